// Mutation operators for CodeRepair items (docs/harness.md §7): single-edit bugs applied to a reference
// solution, in a fixed order, each at most once. Patterns follow Python `re` semantics for the
// ASCII code MBPP contains (JS `\b` and `\s` are ASCII-only, which is what matters there).
import { pySplitlines } from '../../core/py/strings.ts';
import { PY_SPACE_CLASS, pyStrip } from '../../core/py/format.ts';

const S = PY_SPACE_CLASS;
const LEADING_SPACE = new RegExp(`^${S}*`, 'u');

/** One mutant of a program and the operator that made it. */
export interface Mutation {
  code: string;
  operator: string;
}

/** `re.subn(pattern, repl, code, count=1)`, kept only when it changed something. */
function subOnce(code: string, pattern: RegExp, repl: string | ((...m: string[]) => string)): string | null {
  const re = new RegExp(pattern.source, pattern.flags.replace('g', ''));
  const m = re.exec(code);
  if (!m) return null;
  const replacement = typeof repl === 'string' ? repl : repl(...(m as unknown as string[]));
  const out = code.slice(0, m.index) + replacement + code.slice(m.index + m[0].length);
  return out !== code ? out : null;
}

const NOT_RENAMED = new Set(['return', 'range', 'for', 'def', 'not', 'and', 'len']);

/** The mutants of a Python program that the CodeRepair operators produce, in a deterministic order (docs/harness.md §7). */
export function mutate(code: string): Mutation[] {
  const out: Mutation[] = [];
  const lines = pySplitlines(code);

  const cmp = subOnce(code, /(?<![<>=!])<=(?!=)/, '<') ?? subOnce(code, /(?<![<>=!])<(?!=)/, '<=');
  if (cmp) out.push({ code: cmp, operator: 'flip_comparison' });
  const cmp2 = subOnce(code, /(?<![<>=!])>=(?!=)/, '>') ?? subOnce(code, /(?<![<>=!])>(?!=)/, '>=');
  if (cmp2) out.push({ code: cmp2, operator: 'flip_comparison2' });

  const obo = subOnce(code, /range\(([^()\n]*?)\)/, (_m, args) => `range(${args} - 1)`);
  if (obo) out.push({ code: obo, operator: 'off_by_one' });

  const edits: Array<[RegExp, string, string]> = [
    [new RegExp(`\\[${S}*0${S}*\\]`, 'u'), '[1]', 'index_shift'],
    [new RegExp(`\\[${S}*-1${S}*\\]`, 'u'), '[0]', 'index_shift'],
    [/\[::-1\]/, '[:]', 'drop_reverse'],
    [/\bTrue\b/, 'False', 'flip_bool'],
    [new RegExp(`\\bnot${S}+`, 'u'), '', 'drop_negation'],
    [new RegExp(`\\breverse${S}*=${S}*True`, 'u'), 'reverse=False', 'flip_bool'],
  ];
  for (const [re, rep, op] of edits) {
    const cand = subOnce(code, re, rep);
    if (cand) {
      out.push({ code: cand, operator: op });
      break;
    }
  }

  // The last `return …` line becomes `pass` (same indentation): the function returns None.
  for (let i = lines.length - 1; i >= 0; i--) {
    const stripped = pyStrip(lines[i]);
    if (stripped.startsWith('return ') && lines.length > 2) {
      const indent = LEADING_SPACE.exec(lines[i])![0];
      const mutated = [...lines];
      mutated[i] = `${indent}pass`;
      out.push({ code: mutated.join('\n'), operator: 'drop_return' });
      break;
    }
  }

  // The first name (≥ 3 characters, first-appearance order) used at least twice gets its LAST
  // occurrence renamed to name_x: a NameError at run time.
  const counts = new Map<string, number>();
  for (const m of code.matchAll(/\b([a-z_][a-z0-9_]{2,})\b/g)) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
  for (const [name, c] of counts) {
    if (c >= 2 && !NOT_RENAMED.has(name)) {
      const positions = [...code.matchAll(new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g'))].map((m) => m.index!);
      const pos = positions[positions.length - 1];
      out.push({ code: code.slice(0, pos) + name + '_x' + code.slice(pos + name.length), operator: 'undefined_name' });
      break;
    }
  }

  const arith = subOnce(code, /(?<![+\-*/=<>!])\+(?![+=])/, '-');
  if (arith) out.push({ code: arith, operator: 'flip_arith' });
  return out;
}
