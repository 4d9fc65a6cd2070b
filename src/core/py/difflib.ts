// The parts of Python's `difflib` that pick a visible string: `SequenceMatcher` (with isjunk=None
// and the autojunk heuristic) and `get_close_matches`. ToolShed's "Did you mean …?" and "Closest
// match" hints come from them, and ties must fall the way CPython breaks them.
import { pyCompare } from './strings.ts';

interface Match {
  a: number;
  b: number;
  size: number;
}

/** `difflib.SequenceMatcher(None, a, b)`; strings are compared by code point, like Python. */
export class SequenceMatcher {
  private a: string[] = [];
  private b: string[] = [];
  private b2j = new Map<string, number[]>();
  private bpopular = new Set<string>();
  private fullbcount: Map<string, number> | null = null;
  private matchingBlocks: Match[] | null = null;

  constructor(
    a: string | readonly string[] = '',
    b: string | readonly string[] = '',
    private readonly autojunk = true,
  ) {
    this.setSeqs(a, b);
  }

  setSeqs(a: string | readonly string[], b: string | readonly string[]): void {
    this.setSeq1(a);
    this.setSeq2(b);
  }

  setSeq1(a: string | readonly string[]): void {
    this.a = typeof a === 'string' ? Array.from(a) : a.slice();
    this.matchingBlocks = null;
  }

  setSeq2(b: string | readonly string[]): void {
    this.b = typeof b === 'string' ? Array.from(b) : b.slice();
    this.matchingBlocks = null;
    this.fullbcount = null;
    this.chainB();
  }

  private chainB(): void {
    const b = this.b;
    const b2j = new Map<string, number[]>();
    b.forEach((elt, i) => {
      const list = b2j.get(elt);
      if (list) list.push(i);
      else b2j.set(elt, [i]);
    });
    // isjunk is None, so there is no junk; only the "popular" heuristic can prune elements.
    this.bpopular = new Set();
    const n = b.length;
    if (this.autojunk && n >= 200) {
      const ntest = Math.floor(n / 100) + 1;
      for (const [elt, idxs] of b2j) if (idxs.length > ntest) this.bpopular.add(elt);
      for (const elt of this.bpopular) b2j.delete(elt);
    }
    this.b2j = b2j;
  }

  /** `find_longest_match(alo, ahi, blo, bhi)`. */
  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): Match {
    const { a, b, b2j } = this;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const newj2len = new Map<number, number>();
      for (const j of b2j.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        newj2len.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = newj2len;
    }
    // With no junk the junk-extension loops reduce to extending over equal (popular) elements.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize++;
    }
    return { a: besti, b: bestj, size: bestsize };
  }

  /** `get_matching_blocks()`, including the terminating (len(a), len(b), 0) triple. */
  getMatchingBlocks(): Match[] {
    if (this.matchingBlocks) return this.matchingBlocks;
    const la = this.a.length;
    const lb = this.b.length;
    const queue: [number, number, number, number][] = [[0, la, 0, lb]];
    const blocks: Match[] = [];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const x = this.findLongestMatch(alo, ahi, blo, bhi);
      const { a: i, b: j, size: k } = x;
      if (k) {
        blocks.push(x);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    blocks.sort((p, q) => p.a - q.a || p.b - q.b || p.size - q.size);
    const nonAdjacent: Match[] = [];
    let i1 = 0;
    let j1 = 0;
    let k1 = 0;
    for (const { a: i2, b: j2, size: k2 } of blocks) {
      if (i1 + k1 === i2 && j1 + k1 === j2) {
        k1 += k2;
      } else {
        if (k1) nonAdjacent.push({ a: i1, b: j1, size: k1 });
        i1 = i2;
        j1 = j2;
        k1 = k2;
      }
    }
    if (k1) nonAdjacent.push({ a: i1, b: j1, size: k1 });
    nonAdjacent.push({ a: la, b: lb, size: 0 });
    this.matchingBlocks = nonAdjacent;
    return nonAdjacent;
  }

  /** `ratio()` = 2·M / T. */
  ratio(): number {
    const matches = this.getMatchingBlocks().reduce((s, m) => s + m.size, 0);
    return calculateRatio(matches, this.a.length + this.b.length);
  }

  /** `quick_ratio()`: an upper bound from multiset intersection. */
  quickRatio(): number {
    if (!this.fullbcount) {
      this.fullbcount = new Map();
      for (const elt of this.b) this.fullbcount.set(elt, (this.fullbcount.get(elt) ?? 0) + 1);
    }
    const fullbcount = this.fullbcount;
    const avail = new Map<string, number>();
    let matches = 0;
    for (const elt of this.a) {
      const numb = avail.has(elt) ? avail.get(elt)! : (fullbcount.get(elt) ?? 0);
      avail.set(elt, numb - 1);
      if (numb > 0) matches++;
    }
    return calculateRatio(matches, this.a.length + this.b.length);
  }

  /** `real_quick_ratio()`: an upper bound from the lengths alone. */
  realQuickRatio(): number {
    const la = this.a.length;
    const lb = this.b.length;
    return calculateRatio(Math.min(la, lb), la + lb);
  }
}

function calculateRatio(matches: number, length: number): number {
  return length ? (2.0 * matches) / length : 1.0;
}

/**
 * `difflib.get_close_matches(word, possibilities, n, cutoff)`: the best `n` by ratio, ties broken
 * toward the greater string (heapq.nlargest over (score, string) tuples).
 */
export function getCloseMatches(word: string, possibilities: readonly string[], n = 3, cutoff = 0.6): string[] {
  if (!(n > 0)) throw new RangeError(`n must be > 0: ${n}`);
  if (!(cutoff >= 0 && cutoff <= 1)) throw new RangeError(`cutoff must be in [0.0, 1.0]: ${cutoff}`);
  const scored: [number, string][] = [];
  const s = new SequenceMatcher();
  s.setSeq2(word);
  for (const x of possibilities) {
    s.setSeq1(x);
    if (s.realQuickRatio() >= cutoff && s.quickRatio() >= cutoff && s.ratio() >= cutoff) {
      scored.push([s.ratio(), x]);
    }
  }
  // sorted(reverse=True) over tuples; stable, so equal tuples keep their order (they are identical).
  scored.sort((p, q) => q[0] - p[0] || pyCompare(q[1], p[1]));
  return scored.slice(0, n).map(([, x]) => x);
}
