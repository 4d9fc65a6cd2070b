// The demo case set: about thirty cases across the six families, built from revloop's own texts
// (src/demo/texts.ts). Every target is derived from its witness with the verifier's own counters,
// and every witness is checked to pass its own verifier, so the set is satisfiable by construction.
// Structured cases need the Punkt parameters (sentence splitting); without them only the
// exact-length part is built.
import { countWords } from '../../core/text/index.ts';
import { getFamily, structuredSentences, structuredWords } from '../../core/verify/index.ts';
import type { ConstraintCase } from '../../core/verify/types.ts';
import { EXACT_SEEDS, PARAGRAPHS, SENTENCES } from './texts.ts';

const quoteList = (ws: string[]) => ws.map((w) => `'${w}'`).join(', ');

function lengthBand(n: number): string {
  return n <= 50 ? '1-50' : n <= 100 ? '51-100' : n <= 200 ? '101-200' : '201-500';
}

export function exactLengthDemoCases(): ConstraintCase[] {
  return EXACT_SEEDS.map((s) => {
    const target = countWords(s.response);
    return {
      id: `demo-exact-${s.slug}`,
      family: 'exact-length',
      source: 'demo-requests',
      instruction: s.instruction,
      target,
      anchors: s.anchors,
      witness: s.response,
      row: { meta: { source_id: s.slug, length_band: lengthBand(target) } },
    };
  });
}

function c05(text: string, i: number): ConstraintCase {
  const w = structuredWords(text);
  const picks = [w[3], w[7], w[10]];
  return {
    id: `demo-c05-${i}`,
    family: 'c05',
    source: 'demo-sentences',
    task: `Please generate a sentence:\n1) with exactly ${w.length} words;\n2) with the 4th, 8th, 11th words to be ${quoteList(picks)} respectively.`,
    targets: [w.length, picks],
    witness: text,
  };
}

function c07(text: string, i: number): ConstraintCase {
  // The three longest words (first occurrence wins ties): distinctive enough to be a constraint.
  const picks = [...new Set(structuredWords(text))]
    .map((w, order) => ({ w, order }))
    .sort((a, b) => b.w.length - a.w.length || a.order - b.order)
    .slice(0, 3)
    .sort((a, b) => a.order - b.order)
    .map((x) => x.w);
  return {
    id: `demo-c07-${i}`,
    family: 'c07',
    source: 'demo-sentences',
    task: `Please generate a sentence containing the word ${quoteList(picks)}.`,
    targets: picks,
    witness: text,
  };
}

const FORBIDDEN_CANDIDATES = ['is', 'this', 'be', 'was', 'it', 'and', 'not', 'have', 'with', 'very', 'they', 'so'];

function c09(text: string, i: number): ConstraintCase {
  const n = structuredSentences(text).length;
  const present = new Set(structuredWords(text).map((w) => w.toLowerCase()));
  const forbidden = FORBIDDEN_CANDIDATES.filter((w) => !present.has(w)).slice(0, 3);
  const clauses = forbidden.map((w, k) => `${k + 2}) not containing the word '${w}'`).join(';\n');
  return {
    id: `demo-c09-${i}`,
    family: 'c09',
    source: 'demo-paragraphs',
    task: `Please generate a paragraph:\n1) with exactly ${n} sentences;\n${clauses}.`,
    targets: [n, ...forbidden],
    witness: text,
  };
}

function c10(text: string, i: number): ConstraintCase {
  const counts = structuredSentences(text).map((s) => structuredWords(s).length);
  const lo = Math.max(1, Math.min(...counts) - 1);
  const hi = Math.max(...counts) + 2;
  return {
    id: `demo-c10-${i}`,
    family: 'c10',
    source: 'demo-paragraphs',
    task: `Please generate a paragraph:\n1) with exactly ${counts.length} sentences;\n2) with all sentences having at least ${lo} words;\n3) with all sentences having at most ${hi} words.`,
    targets: [counts.length, lo, hi],
    witness: text,
  };
}

function c12(text: string, i: number): ConstraintCase {
  const n = structuredSentences(text).length;
  // The verifier's own reading of the last words (its literal normalisation included).
  const probe = getFamily('c12').verify(text, { id: 'probe', family: 'c12', source: '', targets: [n, Array(n).fill('')] });
  const last = probe.observed_last_words as string[];
  return {
    id: `demo-c12-${i}`,
    family: 'c12',
    source: 'demo-paragraphs',
    task: `Please generate a paragraph:\n1) with exactly ${n} sentences;\n2) with sentences having the last word to be ${quoteList(last)}, respectively.`,
    targets: [n, last],
    witness: text,
  };
}

export function structuredDemoCases(): ConstraintCase[] {
  return [
    ...SENTENCES.slice(0, 4).map(c05),
    ...SENTENCES.slice(4, 8).map(c07),
    ...PARAGRAPHS.slice(0, 4).map(c09),
    ...PARAGRAPHS.slice(4, 8).map(c10),
    ...PARAGRAPHS.slice(8, 12).map(c12),
  ];
}

/** Every demo case whose witness fails its own verifier (empty when the set is sound). */
export function unsatisfiedWitnesses(cases: readonly ConstraintCase[]): string[] {
  return cases.filter((c) => !getFamily(c.family).verify(c.witness ?? '', c).joint_success).map((c) => c.id);
}
