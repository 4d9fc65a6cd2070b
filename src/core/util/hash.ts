import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Canonical JSON: sorted keys, no whitespace. Used for content hashes of rows and plans. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

/**
 * `sha256Hex(canonicalJson(value))`, without building the whole canonical JSON as one string (see
 * writeCanonicalJson; why: docs/performance.md#the-plans-hash).
 */
export function canonicalSha256(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonicalJson(value, (piece) => hash.update(piece));
  return hash.digest('hex');
}

/**
 * Writes `canonicalJson(value)` to `write` part by part: the outer arrays and objects (two levels)
 * piece by piece, each part's canonical JSON in turn, gathered into pieces of about 4,000
 * characters. The pieces joined are exactly canonicalJson's text.
 */
export function writeCanonicalJson(value: unknown, write: (piece: string) => void): void {
  let pending = '';
  const put = (s: string): void => {
    pending += s;
    if (pending.length >= 4096) {
      write(pending);
      pending = '';
    }
  };
  const emit = (v: unknown, depth: number): void => {
    // What JSON.stringify writes for `v` inside an array (where it writes null for what it would omit).
    if (depth === 0 || !v || typeof v !== 'object' || v instanceof Date || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      put(canonicalJson(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      put('[');
      // By index, not forEach: a hole in a sparse array is written as null, as JSON.stringify does.
      for (let i = 0; i < v.length; i++) {
        if (i) put(',');
        emit(v[i], depth - 1);
      }
      put(']');
      return;
    }
    put('{');
    let first = true;
    // The key order of sortDeep's object: sorted, but (as every JS object) integer-like keys first, in numeric order.
    const order: Record<string, true> = {};
    for (const k of Object.keys(v).sort()) order[k] = true;
    for (const k of Object.keys(order)) {
      const x = (v as Record<string, unknown>)[k];
      // Dropped as JSON.stringify(sortDeep(v)) drops them: undefined (sortDeep), functions and symbols (stringify).
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      put(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      emit(x, depth - 1);
    }
    put('}');
  };
  emit(value, 2);
  if (pending) write(pending);
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortDeep(x);
    }
    return out;
  }
  return v;
}

/**
 * SHA-256 of a JSON list `[s(x0),s(x1),…]` whose items are serialised one by one, remembering the
 * hash state after the last list: a list that extends the previous one (each earlier item the same
 * per `same`) hashes only its new items. A revision loop's message list grows by two messages a
 * round, so hashing it is linear in the conversation instead of quadratic. The digest is exactly
 * the one-shot hash of the whole list.
 */
export class ListHasher<T> {
  /** The last list (and its length then: a caller may grow the same array), with the state after its items. */
  private last: { items: readonly T[]; count: number; state: Hash } | null = null;

  constructor(
    private readonly serialize: (item: T) => string,
    private readonly same: (a: T, b: T) => boolean,
  ) {}

  digest(items: readonly T[]): string {
    const last = this.last;
    let state: Hash;
    let from = 0;
    if (last && items.length >= last.count && this.extends(items, last)) {
      // The saved state is advanced in place: it is only ever needed for the newest list.
      state = last.state;
      from = last.count;
    } else state = createHash('sha256').update('[');
    for (let i = from; i < items.length; i++) state.update((i ? ',' : '') + this.serialize(items[i]));
    this.last = { items, count: items.length, state };
    return state.copy().update(']').digest('hex');
  }

  private extends(items: readonly T[], last: { items: readonly T[]; count: number }): boolean {
    for (let i = 0; i < last.count; i++) if (!this.same(last.items[i], items[i])) return false;
    return true;
  }
}
