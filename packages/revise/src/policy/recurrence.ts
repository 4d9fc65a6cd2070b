// Recurrence and cycle detection for revision loops, the one owner of both (docs/revise.md §4):
// the lab's harnesses, `revise()` and `compare-policies` all call these functions.
//
// - A draft's identity is a key: the draft after normalisation (compared in memory, never stored).
//   `exact` is the paper's text identity (the stripped text, docs/protocol.md §3.1, the lab's);
//   `normalised` also folds Unicode to NFC and collapses whitespace runs (revise()'s default for a
//   policy object: a reflowed repeat is a repeat). The kernel takes it as its `identity` option.
// - A recurrence is a draft whose key equals an earlier draft's (the paper's recurrence event).
// - A cycle is persistent recurrence, as the paper's terminal classes define it (§3.2), checked
//   at each new draft: a fixed point (the last three drafts equal), or a period-p cycle (p = 2, 3, 4:
//   the last p drafts equal the p before them and hold at least two distinct drafts). A repeated
//   violation set is the same stall in the verifier's terms: the last three attempts violated the
//   same set of constraints (by code and path) by the same measure (score, else count), so the
//   verifier said the same thing three times while the drafts changed.
import { pyStrip } from '../py-strip.ts';

/** How drafts are normalised before they are compared for recurrence (`whitespace`: the former name of `normalised`). */
export type DraftNormalisation = 'exact' | 'normalised' | 'whitespace';

/** The text a draft is compared by. */
export function normaliseDraft(text: string, normalisation: DraftNormalisation): string {
  return normalisation === 'exact' ? pyStrip(text) : text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** The recurrence key of a draft: its normalised text (two drafts recur when their keys are equal). */
export function draftKey(text: string, normalisation: DraftNormalisation): string {
  return normaliseDraft(text, normalisation);
}

/** Index of the nearest earlier equal key, or null when keys[i] is new. */
export function recurrenceOf(keys: readonly string[], i: number): number | null {
  for (let j = i - 1; j >= 0; j--) if (keys[j] === keys[i]) return j;
  return null;
}

/** One verified attempt as the cycle detector sees it. */
export interface AttemptShape {
  key: string;
  /** The violated constraints, e.g. sorted `code@path` strings; empty when the draft passed. */
  violations: readonly string[];
  /** Lower is better: the verifier's score when it gives one, else the number of violations. */
  measure: number;
}

/** The kinds of cycle a revision loop can enter: a fixed point, a period-p cycle, or a repeated violation set. */
export type CycleKind = 'fixed-point' | 'cycle' | 'repeated-violations';

/** A cycle found at one draft: its kind, period and the revisions involved. */
export interface CycleFinding {
  kind: CycleKind;
  /** 1 for a fixed point, p for a period-p cycle, 3 (the window) for a repeated violation set. */
  period: number;
  /** Index of the attempt that completed the pattern. */
  attempt: number;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The persistent recurrence that attempt i completes, if any (fixed point first, then p = 2, 3, 4, then violations). */
export function cycleAt(attempts: readonly AttemptShape[], i: number): CycleFinding | null {
  const key = (j: number) => attempts[j].key;
  if (i >= 2 && key(i) === key(i - 1) && key(i) === key(i - 2)) return { kind: 'fixed-point', period: 1, attempt: i };
  for (let p = 2; p <= 4; p++) {
    if (i + 1 < 2 * p) break;
    let match = true;
    for (let k = 0; k < p && match; k++) match = key(i - k) === key(i - p - k);
    if (!match) continue;
    const distinct = new Set(Array.from({ length: p }, (_, k) => key(i - k)));
    if (distinct.size >= 2) return { kind: 'cycle', period: p, attempt: i };
  }
  if (i >= 2) {
    const [a, b, c] = [attempts[i - 2], attempts[i - 1], attempts[i]];
    if (
      c.violations.length &&
      same(a.violations, b.violations) &&
      same(b.violations, c.violations) &&
      a.measure === b.measure &&
      b.measure === c.measure
    ) {
      return { kind: 'repeated-violations', period: 3, attempt: i };
    }
  }
  return null;
}

/** A violation-set entry: the code, and the path when there is one. */
export function violationTag(code: string, path?: string | readonly (string | number)[] | null): string {
  const p = Array.isArray(path) ? path.join('.') : (path ?? '');
  return p ? `${code}@${p}` : code;
}

/** Sorted, de-duplicated violation tags (a set, compared by value). */
export function violationSet(tags: Iterable<string>): string[] {
  return [...new Set(tags)].sort();
}
