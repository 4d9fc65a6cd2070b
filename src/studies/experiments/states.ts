// State selection (docs/experiments.md, docs/protocol.md §3.10, §3.12, §3.13): which stored rounds an
// experiment starts from, as JSON Lines whose SHA-256 freezes the selection.
//
// - history: recurrence events, a revision whose (stripped) text equals an earlier text of the same
//   trajectory, before its last revision; `first` keeps each trajectory's first one, `all` every one.
// - persist: budget-end failures (the last revision reached the run's budget, no joint success,
//   nonzero terminal error), at their last revision.
// - crossover: the first draft (revision 0) of every trajectory.
//
// `maxStates` samples by stable hash, round-robin over strata (family × source for history and
// crossover; source × terminal-error region for persist): strata in code-point order, within each
// the states sorted by their selection hash (the SHA-256 hex of run, case and revision joined by
// U+001F, docs/protocol.md §6.8), one from each stratum in turn.
import { InputError } from '../../core/errors.ts';
import { compareCodePoints } from '../../core/stats/bootstrap.ts';
import { sha256File, sha256Hex } from '../../core/util/hash.ts';
import { readJsonlLines } from '../../core/util/jsonl.ts';
import type { TrajectoryRunPlanned } from '../../store/events.ts';
import { frozenTextsSha256 } from '../../store/plan.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { labelId } from '../../core/util/slug.ts';
import { DESIGN_DEFAULTS } from './defaults.ts';

/** The experimental design a state selection is made for. */
export type StateDesign = 'history' | 'persist' | 'crossover';
export const STATE_DESIGNS: readonly StateDesign[] = ['history', 'persist', 'crossover'];
/** Which recurrence events of a trajectory are states: the first one, or all. */
export type SelectRule = 'first' | 'all';

/** One selected state: a line of a states file. Keys in this order. */
export interface ExperimentState {
  state_id: string;
  design: StateDesign;
  source_run: string;
  source_plan_sha256: string;
  controller: string;
  case_index: number;
  case_id: string;
  family: string;
  source: string;
  /** The trigger revision r: rounds 0 … r are frozen. */
  revision: number;
  /** history: the revision of the earlier occurrence of this text; null otherwise. */
  origin_revision: number | null;
  /** SHA-256 of the canonical JSON of the texts r0 … r. */
  texts_sha256: string;
  /** The exact-length error (count − target) at r; null for other families. */
  error: number | null;
  /** The violation energy at r. */
  energy: number;
  stratum: string;
  selection_rule: string;
  selection_hash: string;
  selection_index: number;
}

/** How `selectStates` chooses recurrence states: first or all per trajectory, and an optional stratified cap. */
export interface SelectOptions {
  design: StateDesign;
  /** history only (default first). */
  select?: SelectRule;
  /** Sample this many by stable hash (default: all selected; persist: 24). */
  maxStates?: number;
}

/** The persistence design's terminal-error regions (docs/protocol.md §3.13); energy bands for families without a word error. */
export function terminalRegion(error: number | null, energy: number): string {
  if (error !== null) {
    const a = Math.abs(error);
    return a <= 5 ? '1-5' : a <= 20 ? '6-20' : '>20';
  }
  return energy <= 0.25 ? 'energy<=0.25' : energy <= 1 ? 'energy<=1' : 'energy>1';
}

function wordError(t: TrajectoryRecord, revision: number): number | null {
  const e = t.rounds[revision]?.state.error;
  return t.family === 'exact-length' && typeof e === 'number' ? e : null;
}

export function selectionHash(runId: string, caseId: string, revision: number): string {
  return sha256Hex([runId, caseId, String(revision)].join('\u001f'));
}

/**
 * The state id of docs/protocol.md §3.10: `<model>__<case_id>__r<rev>`, the model part being the
 * controller's label as an id (`labelId`: `sim:stubborn`, `Qwen-Qwen3-8B`; no spaces, brackets or
 * simulation mark). States files written before keep their ids; a run planned from one resumes with it.
 */
export function stateId(controller: string, caseId: string, revision: number): string {
  return `${labelId(controller)}__${caseId}__r${revision}`;
}

/**
 * The same states under the ids versions before issue 40 gave them (`<label>__<case_id>__r<rev>`,
 * the label whole: `sim:stubborn [simulated]__…`), so a run planned then still resumes when its
 * command selects its states again.
 */
export function withEarlierStateIds(states: readonly ExperimentState[]): ExperimentState[] {
  return states.map((s) => ({ ...s, state_id: `${s.controller}__${s.case_id}__r${s.revision}` }));
}

/** Candidate states of one trajectory, before sampling. */
function candidates(t: TrajectoryRecord, o: SelectOptions): Array<{ revision: number; origin: number | null }> {
  if (t.status !== 'complete' || !t.rounds.length) return [];
  const last = t.rounds.length - 1;
  switch (o.design) {
    case 'crossover':
      return [{ revision: 0, origin: null }];
    case 'persist': {
      const end = t.rounds[last];
      const reachedBudget = last >= t.budget;
      const nonzero = t.family === 'exact-length' ? wordError(t, last) !== 0 : end.energy > 0;
      return !end.joint && reachedBudget && nonzero && t.termination === undefined ? [{ revision: last, origin: null }] : [];
    }
    case 'history': {
      const out: Array<{ revision: number; origin: number | null }> = [];
      const firstSeen = new Map<string, number>();
      t.rounds.forEach((r, i) => {
        const seen = firstSeen.get(r.text);
        if (seen === undefined) firstSeen.set(r.text, i);
        else if (i < last) out.push({ revision: i, origin: seen });
      });
      return (o.select ?? DESIGN_DEFAULTS.select) === 'first' ? out.slice(0, 1) : out;
    }
  }
}

function stratumOf(design: StateDesign, t: TrajectoryRecord, revision: number): string {
  if (design === 'persist') return `${t.source}|${terminalRegion(wordError(t, revision), t.rounds[revision].energy)}`;
  return `${t.family}|${t.source}`;
}

/** Round-robin over strata (code-point order), each stratum in selection-hash order, until `max`. */
export function roundRobin<T extends { stratum: string; selection_hash: string }>(items: readonly T[], max: number): T[] {
  const byStratum = new Map<string, T[]>();
  for (const it of items) byStratum.set(it.stratum, [...(byStratum.get(it.stratum) ?? []), it]);
  const queues = [...byStratum.keys()].sort(compareCodePoints).map((k) =>
    byStratum
      .get(k)!
      .slice()
      .sort((a, b) => compareCodePoints(a.selection_hash, b.selection_hash)),
  );
  const out: T[] = [];
  for (let round = 0; out.length < max; round++) {
    let any = false;
    for (const q of queues) {
      if (round < q.length && out.length < max) {
        out.push(q[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

/** The rule a selection records (what was asked, in words). */
export function selectionRule(o: SelectOptions, sampled: boolean): string {
  const base =
    o.design === 'history'
      ? `recurrence:${o.select ?? DESIGN_DEFAULTS.select}`
      : o.design === 'persist'
        ? 'budget-end-failure'
        : 'first-draft';
  return sampled ? `${base};stable-hash-round-robin:${o.maxStates}` : base;
}

/** The default cap of each design (persist: up to 24 per model, docs/protocol.md §3.13). */
export function defaultMaxStates(design: StateDesign): number | undefined {
  return design === 'persist' ? DESIGN_DEFAULTS.persistMaxStates : undefined;
}

/** Selects the states of one source run's trajectories. */
export function selectStates(
  planned: TrajectoryRunPlanned,
  runId: string,
  trajectories: readonly TrajectoryRecord[],
  o: SelectOptions,
): ExperimentState[] {
  const max = o.maxStates ?? defaultMaxStates(o.design);
  const all: ExperimentState[] = [];
  for (const t of trajectories) {
    for (const { revision, origin } of candidates(t, o)) {
      all.push({
        state_id: stateId(t.controller, t.caseId, revision),
        design: o.design,
        source_run: runId,
        source_plan_sha256: '',
        controller: t.controller,
        case_index: t.caseIndex,
        case_id: t.caseId,
        family: t.family,
        source: t.source,
        revision,
        origin_revision: origin,
        texts_sha256: frozenTextsSha256(t.rounds.slice(0, revision + 1).map((r) => r.text)),
        error: wordError(t, revision),
        energy: t.rounds[revision].energy,
        stratum: stratumOf(o.design, t, revision),
        selection_rule: '',
        selection_hash: selectionHash(runId, t.caseId, revision),
        selection_index: 0,
      });
    }
  }
  const sampled = max !== undefined && all.length > max;
  const chosen = sampled ? roundRobin(all, max) : all;
  const rule = selectionRule({ ...o, maxStates: max }, sampled);
  return chosen.map((s, i) => ({ ...s, source_plan_sha256: planned.plan_sha256, selection_rule: rule, selection_index: i }));
}

const KEYS: ReadonlyArray<keyof ExperimentState> = [
  'state_id',
  'design',
  'source_run',
  'source_plan_sha256',
  'controller',
  'case_index',
  'case_id',
  'family',
  'source',
  'revision',
  'origin_revision',
  'texts_sha256',
  'error',
  'energy',
  'stratum',
  'selection_rule',
  'selection_hash',
  'selection_index',
];

/** The states file's bytes: one JSON object per line, keys in a fixed order. */
export function statesJsonl(states: readonly ExperimentState[]): string {
  return states.map((s) => JSON.stringify(Object.fromEntries(KEYS.map((k) => [k, s[k]]))) + '\n').join('');
}

/** SHA-256 of a selection's bytes: the hash an experiment plan freezes. */
export function statesSha256(states: readonly ExperimentState[]): string {
  return sha256Hex(statesJsonl(states));
}

const TYPES: Record<keyof ExperimentState, 'string' | 'int' | 'number' | 'int|null' | 'number|null'> = {
  state_id: 'string',
  design: 'string',
  source_run: 'string',
  source_plan_sha256: 'string',
  controller: 'string',
  case_index: 'int',
  case_id: 'string',
  family: 'string',
  source: 'string',
  revision: 'int',
  origin_revision: 'int|null',
  texts_sha256: 'string',
  error: 'number|null',
  energy: 'number',
  stratum: 'string',
  selection_rule: 'string',
  selection_hash: 'string',
  selection_index: 'int',
};

function typeProblem(v: unknown, type: (typeof TYPES)[keyof ExperimentState]): string | null {
  if (v === null) return type.endsWith('|null') ? null : 'must not be null';
  const base = type.replace('|null', '');
  if (base === 'string') return typeof v === 'string' ? null : 'must be a string';
  if (base === 'int') return Number.isInteger(v) && (v as number) >= 0 ? null : 'must be a whole number';
  return typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number';
}

/** Reads a states file, checking every field (errors name the file, line and field). */
export async function readStatesFile(path: string): Promise<{ states: ExperimentState[]; sha256: string }> {
  const states: ExperimentState[] = [];
  for await (const line of readJsonlLines(path)) {
    if (line.error) throw new InputError(line.error, { file: path, line: line.line, field: line.field ?? null });
    const v = line.value as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new InputError('expected a JSON object (one state per line)', { file: path, line: line.line });
    for (const k of KEYS) {
      if (!(k in v))
        throw new InputError('missing (write states files with `revloop experiment states`)', { file: path, line: line.line, field: k });
      const p = typeProblem(v[k], TYPES[k]);
      if (p) throw new InputError(p, { file: path, line: line.line, field: k });
    }
    if (!(STATE_DESIGNS as readonly string[]).includes(v.design as string))
      throw new InputError(`unknown design '${String(v.design)}'; expected ${STATE_DESIGNS.join(', ')}`, {
        file: path,
        line: line.line,
        field: 'design',
      });
    states.push(Object.fromEntries(KEYS.map((k) => [k, v[k]])) as unknown as ExperimentState);
  }
  const seen = new Map<string, number>();
  states.forEach((s, i) => {
    if (seen.has(s.state_id))
      throw new InputError(`'${s.state_id}' is listed twice (states ${seen.get(s.state_id)! + 1} and ${i + 1})`, {
        file: path,
        field: 'state_id',
      });
    seen.set(s.state_id, i);
  });
  if (!states.length) throw new InputError('the file holds no states', { file: path });
  // The file's own bytes are what a run freezes (a file rewritten by hand is a different selection).
  return { states, sha256: await sha256File(path) };
}
