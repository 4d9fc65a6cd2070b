// Leaf-by-leaf comparison of two JSON values, for messages that name exactly what differs.
import { canonicalJson } from './hash.ts';

function show(v: unknown): string {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 77) + '…' : s;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** "path: <left> …, <right> …" for every differing leaf (arrays of equal length compare by index). */
export function diffLeaves(
  a: unknown,
  b: unknown,
  labels: [string, string] = ['stored', 'requested'],
  limit = 12,
  /** Leaves that count as equal although they differ (default: none). */
  same?: (x: unknown, y: unknown) => boolean,
): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string): void => {
    if (isObject(x) && isObject(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])]) walk(x[k], y[k], path ? `${path}.${k}` : k);
      return;
    }
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length) {
      x.forEach((v, i) => walk(v, y[i], `${path}[${i}]`));
      return;
    }
    if (canonicalJson(x) !== canonicalJson(y) && !same?.(x, y))
      out.push(`${path || '(value)'}: ${labels[0]} ${show(x)}, ${labels[1]} ${show(y)}`);
  };
  walk(a, b, '');
  return out.length > limit ? [...out.slice(0, limit), `… and ${out.length - limit} more`] : out;
}
