// Item-level probe measures from teacher-forced scores (docs/harness.md §0, §4.6, §4.7). All log-probs
// are summed over the candidate's tokens; every measure is a difference of the SAME string's
// log-probability under two contexts. Missing scores give NaN (null in JSON), never 0.
import { EXTENDED_CONDITIONS, type CandidateName, type Condition, type ScoreRecord } from './probe-types.ts';

/** The extended conditions measured against fail (G_X, delta_X): all but neut_pad, which has its own terms (copy_pad, sem_pad). */
const EXTENDED_CONTRASTS = EXTENDED_CONDITIONS.filter(
  (c): c is Exclude<(typeof EXTENDED_CONDITIONS)[number], 'neut_pad'> => c !== 'neut_pad',
);

/** Measures with a one-line gloss each (the reference's MEASURES, plus the extended G_X). */
export const MEASURE_DOC: Readonly<Record<string, string>> = {
  G: 'corrective gain: lp(failed|pre) - lp(failed|fail); < 0 is feedback inversion',
  copy: 'surface-form term: lp(failed|neut) - lp(failed|pre)',
  sem: 'semantic term: lp(failed|fail) - lp(failed|neut)',
  copy_pad: 'surface-form term, length-matched neutral observation',
  sem_pad: 'semantic term, length-matched neutral observation',
  polarity: 'lp(failed|fail) - lp(failed|succ) (= sem_succ)',
  copy_succ: 'lp(failed|succ) - lp(failed|pre)',
  G_abstract: 'corrective gain under the abstracted failure record',
  delta_abstract: 'paired change vs fail: lp(failed|abstract) - lp(failed|fail)',
  repair: 'lp(gold|fail) - lp(gold|pre)',
  repair_abstract: 'lp(gold|abstract) - lp(gold|pre)',
  margin_pre: 'lp(gold|pre) - lp(failed|pre)',
  margin_fail: 'lp(gold|fail) - lp(failed|fail)',
  margin_abstract: 'lp(gold|abstract) - lp(failed|abstract)',
  margin_shift: 'margin_fail - margin_pre',
  G_per_token: 'G / tokens of the failed action (under fail)',
  copy_per_token: 'copy / tokens of the failed action',
  sem_per_token: 'sem / tokens of the failed action',
  G_negative: 'indicator G < 0 (item-level sign statistic)',
  p_repeat_pre: 'normalised P(failed) among the candidates scored under pre',
  p_repeat_fail: 'normalised P(failed) among the candidates scored under fail',
  p_repeat_abstract: 'normalised P(failed) vs gold under abstract',
  p_repeat_neut: 'normalised P(failed) vs gold under neut',
  p_repeat_succ: 'normalised P(failed) vs gold under succ',
  p_repeat_shift: 'p_repeat_fail - p_repeat_pre',
  greedy_repeat_pre: 'greedy decoding reproduces the failed call exactly, before the attempt',
  greedy_repeat_fail: 'greedy decoding reproduces the failed call exactly, after the failure',
  greedy_repeat_abstract: 'greedy decoding reproduces the failed call exactly, abstracted record',
  ...Object.fromEntries(
    EXTENDED_CONTRASTS.flatMap((c) => [
      [`G_${c}`, `lp(failed|pre) - lp(failed|${c})`],
      [`delta_${c}`, `paired change vs fail: lp(failed|${c}) - lp(failed|fail)`],
    ]),
  ),
};

/** Measures in display order (the main, repeat and extended families). */
export const MEASURE_ORDER: readonly string[] = Object.keys(MEASURE_DOC);

/** The scores of one item, indexed by condition and candidate. */
type ItemScores = Map<Condition, Map<CandidateName, ScoreRecord>>;

/** Groups score records by item (the last record of a key wins, as in the reference's dedup). */
export function groupScores(records: Iterable<ScoreRecord>): Map<string, ItemScores> {
  const byItem = new Map<string, ItemScores>();
  for (const r of records) {
    let item = byItem.get(r.item_id);
    if (!item) byItem.set(r.item_id, (item = new Map()));
    let cond = item.get(r.condition);
    if (!cond) item.set(r.condition, (cond = new Map()));
    cond.set(r.candidate, r);
  }
  return byItem;
}

/** Normalised probability of the failed candidate among those scored (max-subtracted softmax). */
export function pRepeat(scores: Map<CandidateName, ScoreRecord> | undefined): number {
  if (!scores) return NaN;
  const failed = scores.get('failed')?.logprob;
  const lps = [...scores.values()].map((r) => r.logprob).filter((x) => Number.isFinite(x));
  if (failed === undefined || !Number.isFinite(failed) || lps.length < 2) return NaN;
  const mx = Math.max(...lps);
  let denom = 0;
  for (const x of lps) denom += Math.exp(x - mx);
  return denom > 0 ? Math.exp(failed - mx) / denom : NaN;
}

/** Every measure of one item (NaN where a needed score is missing). */
export function itemMeasures(scores: ItemScores): Record<string, number> {
  const lp = (c: Condition, k: CandidateName): number => scores.get(c)?.get(k)?.logprob ?? NaN;
  const f = (c: Condition) => lp(c, 'failed');
  const g = (c: Condition) => lp(c, 'gold');
  const m: Record<string, number> = {};
  m.G = f('pre') - f('fail');
  m.copy = f('neut') - f('pre');
  m.sem = f('fail') - f('neut');
  m.copy_pad = f('neut_pad') - f('pre');
  m.sem_pad = f('fail') - f('neut_pad');
  m.polarity = f('fail') - f('succ');
  m.copy_succ = f('succ') - f('pre');
  m.G_abstract = f('pre') - f('abstract');
  m.delta_abstract = f('abstract') - f('fail');
  m.repair = g('fail') - g('pre');
  m.repair_abstract = g('abstract') - g('pre');
  m.margin_pre = g('pre') - f('pre');
  m.margin_fail = g('fail') - f('fail');
  m.margin_abstract = g('abstract') - f('abstract');
  m.margin_shift = m.margin_fail - m.margin_pre;
  const ntok = scores.get('fail')?.get('failed')?.n_tokens ?? NaN;
  m.G_per_token = ntok > 0 ? m.G / ntok : NaN;
  m.copy_per_token = ntok > 0 ? m.copy / ntok : NaN;
  m.sem_per_token = ntok > 0 ? m.sem / ntok : NaN;
  m.G_negative = Number.isNaN(m.G) ? NaN : m.G < 0 ? 1 : 0;
  for (const c of ['pre', 'fail', 'abstract', 'neut', 'succ'] as const) m[`p_repeat_${c}`] = pRepeat(scores.get(c));
  m.p_repeat_shift = m.p_repeat_fail - m.p_repeat_pre;
  for (const c of ['pre', 'fail', 'abstract'] as const) {
    const greedy = scores.get(c)?.get('failed')?.is_greedy;
    m[`greedy_repeat_${c}`] = greedy === true ? 1 : greedy === false ? 0 : NaN;
  }
  for (const c of EXTENDED_CONTRASTS) {
    m[`G_${c}`] = f('pre') - f(c);
    m[`delta_${c}`] = f(c) - f('fail');
  }
  return m;
}
