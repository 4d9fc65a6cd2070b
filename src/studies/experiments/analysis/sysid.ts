// System identification / response curves (docs/protocol.md §3.11). Each state is one greedy
// revision of a fixed draft whose target was shifted so the report asks for `command` = −e words.
// Per command: the median realised action (the curve) with a source-stratified bootstrap band,
// gains and the per-state flags; the monotone-pair fraction; the local Theil–Sen slope over
// |command| ≤ 10 (per case, then the median across cases, bootstrapped within sources); the frozen
// prediction protocol on confirmation states; and the frozen curve's transfer to the controller's
// natural trajectories with the 8-step simulation.
import { interpClamped } from '../../../core/stats/interp.ts';
import { spearmanRho } from '../../../core/stats/spearman.ts';
import { stratifiedBootstrap, weightedMedian } from '../../../core/stats/stratified-bootstrap.ts';
import { median } from '../../../core/stats/summary.ts';
import { theilSenSlope } from '../../../core/stats/theil-sen.ts';
import { canonicalJson, sha256Hex } from '../../../core/util/hash.ts';
import type { ExactLengthState } from '../../../core/verify/types.ts';
import type { RunStore } from '../../../store/store.ts';
import type { TrajectoryRecord } from '../../../store/types.ts';
import { finiteOrNull, intervalOf, meanOrNull, rateOf, specOf, streamFor, type ExperimentRunData } from './common.ts';
import type {
  PredictionSpec,
  SysidAnalysis,
  SysidCommandRow,
  SysidPrediction,
  SysidSlope,
  SysidTransfer,
} from './experiment-analysis-types.ts';

/** One system-identification state with its single generated revision. */
export interface SysidRow {
  case_id: string;
  source: string;
  split: 'discovery' | 'confirmation';
  command: number;
  realized: number;
  gain: number;
  direction_correct: boolean;
  contraction: boolean;
  zero_action: boolean;
  /** The right direction, past the target (the new error's sign flips). */
  overshoot: boolean;
  exact: boolean;
  anchors: boolean;
}

const sign = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0);

export function sysidRows(run: ExperimentRunData): SysidRow[] {
  const rows: SysidRow[] = [];
  for (const t of run.trajectories) {
    if (t.status !== 'complete' || t.rounds.length < 2) continue;
    const f = specOf(run, t).facts;
    const s0 = t.rounds[0].state as ExactLengthState;
    const s1 = t.rounds[1].state as ExactLengthState;
    const command = f.command as number;
    const realized = s1.word_count - s0.word_count;
    const direction = sign(realized) === sign(command);
    rows.push({
      case_id: f.case_id as string,
      source: f.source as string,
      split: f.split as 'discovery' | 'confirmation',
      command,
      realized,
      gain: realized / command,
      direction_correct: direction,
      contraction: Math.abs(s1.error) < Math.abs(s0.error),
      zero_action: realized === 0,
      overshoot: direction && sign(s1.error) === -sign(s0.error) && s1.error !== 0,
      exact: s1.error === 0,
      anchors: s1.missing.length === 0,
    });
  }
  return rows;
}

/** Cases (in first-seen order) and each row's case position: the bootstrap resamples cases. */
function caseIndex(rows: readonly SysidRow[]): { cases: string[]; strata: string[]; of: number[] } {
  const pos = new Map<string, number>();
  const strata: string[] = [];
  const of = rows.map((r) => {
    let i = pos.get(r.case_id);
    if (i === undefined) {
      i = pos.size;
      pos.set(r.case_id, i);
      strata.push(r.source);
    }
    return i;
  });
  return { cases: [...pos.keys()], strata, of };
}

export function commandsOf(rows: readonly SysidRow[]): number[] {
  return [...new Set(rows.map((r) => r.command))].sort((a, b) => a - b);
}

/** The median realised action at each command (null where a command has no rows). */
export function medianCurve(rows: readonly SysidRow[], commands: readonly number[]): Array<number | null> {
  return commands.map((c) => finiteOrNull(median(rows.filter((r) => r.command === c).map((r) => r.realized))));
}

export function commandTable(rows: readonly SysidRow[], bootstrap: number, seed: number, key: string): SysidCommandRow[] {
  const { strata, of } = caseIndex(rows);
  return commandsOf(rows).map((command) => {
    const at = rows.map((r, i) => [r, i] as const).filter(([r]) => r.command === command);
    const values = at.map(([r]) => r.realized);
    const owners = at.map(([, i]) => of[i]);
    const band =
      bootstrap > 0
        ? intervalOf(
            stratifiedBootstrap({
              strata,
              resamples: bootstrap,
              rng: streamFor(seed, `${key}:median:${command}`),
              statistic: (counts) =>
                weightedMedian(
                  values,
                  owners.map((o) => counts[o]),
                ),
            }),
          )
        : { lo: null, hi: null };
    const rs = at.map(([r]) => r);
    return {
      command,
      n: rs.length,
      median_action: finiteOrNull(median(values)),
      ci95: band,
      mean_gain: meanOrNull(rs.map((r) => r.gain)),
      direction_correct: rateOf(rs.map((r) => r.direction_correct)),
      contraction: rateOf(rs.map((r) => r.contraction)),
      zero_action: rateOf(rs.map((r) => r.zero_action)),
      overshoot: rateOf(rs.map((r) => r.overshoot)),
      exact: rateOf(rs.map((r) => r.exact)),
      anchors: rateOf(rs.map((r) => r.anchors)),
    };
  });
}

/** Share of ordered command pairs (c_i < c_j) whose median actions strictly increase. */
export function monotonePairFraction(curve: ReadonlyArray<number | null>): number | null {
  const v = curve.filter((x): x is number => x !== null);
  let pairs = 0;
  let up = 0;
  for (let i = 0; i < v.length; i++) {
    for (let j = i + 1; j < v.length; j++) {
      pairs++;
      if (v[j] > v[i]) up++;
    }
  }
  return pairs ? up / pairs : null;
}

const SUBSETS = {
  all: (c: number) => c !== 0 && Math.abs(c) <= 10,
  add: (c: number) => c > 0 && c <= 10,
  remove: (c: number) => c < 0 && c >= -10,
} as const;

/** The local Theil–Sen slope: per case over its commands in the subset, then the median across cases. */
export function localSlopes(rows: readonly SysidRow[], bootstrap: number, seed: number, key: string): SysidSlope[] {
  return (Object.keys(SUBSETS) as Array<keyof typeof SUBSETS>).map((subset) => {
    const byCase = new Map<string, { source: string; x: number[]; y: number[] }>();
    for (const r of rows) {
      if (!SUBSETS[subset](r.command)) continue;
      const c = byCase.get(r.case_id) ?? { source: r.source, x: [], y: [] };
      c.x.push(r.command);
      c.y.push(r.realized);
      byCase.set(r.case_id, c);
    }
    const slopes: number[] = [];
    const strata: string[] = [];
    for (const c of byCase.values()) {
      const s = theilSenSlope(c.x, c.y);
      if (Number.isFinite(s)) {
        slopes.push(s);
        strata.push(c.source);
      }
    }
    const band =
      bootstrap > 0 && slopes.length
        ? intervalOf(
            stratifiedBootstrap({
              strata,
              resamples: bootstrap,
              rng: streamFor(seed, `${key}:slope:${subset}`),
              statistic: (counts) => weightedMedian(slopes, counts),
            }),
          )
        : { lo: null, hi: null };
    return { subset, cases: slopes.length, slope: finiteOrNull(median(slopes)), ci95: band };
  });
}

// ---- the frozen prediction protocol ------------------------------------------------------------------

export const SYSID_ESTIMATOR = 'revloop.sysid-curve/1: median realised action per command; pooled = median over all discovery rows';
export const SYSID_GATE =
  'discovery/confirmation Spearman of the median curves ≥ 0.70; checkpoint−pooled MAE 95% CI upper bound < 0 (docs/protocol.md §3.11)';
export const SPEC_RECORD = 'prediction-spec';

export function predictionSpec(
  controller: string,
  own: readonly SysidRow[],
  pooled: readonly SysidRow[],
  pooledRuns: string[],
): PredictionSpec {
  const discovery = own.filter((r) => r.split === 'discovery');
  const pooledDiscovery = pooled.filter((r) => r.split === 'discovery');
  const commands = commandsOf(discovery);
  return {
    estimator: SYSID_ESTIMATOR,
    controller,
    commands,
    checkpoint: medianCurve(discovery, commands),
    pooled: medianCurve(pooledDiscovery, commands),
    pooled_runs: pooledRuns,
    gate: SYSID_GATE,
  };
}

export function specSha256(spec: PredictionSpec): string {
  return sha256Hex(canonicalJson(spec));
}

/** The spec a run froze when its discovery states finished, or null. */
export async function frozenSpec(store: RunStore, runId: string): Promise<{ spec: PredictionSpec; sha256: string } | null> {
  const [e] = await store.readEvents(runId, { types: ['record'], keyPrefix: `${SPEC_RECORD}:` });
  if (!e || e.type !== 'record') return null;
  return e.payload.data as { spec: PredictionSpec; sha256: string };
}

function predictAt(spec: PredictionSpec, curve: ReadonlyArray<number | null>, command: number): number | null {
  const i = spec.commands.indexOf(command);
  return i < 0 ? null : curve[i];
}

function evaluatePrediction(
  spec: { spec: PredictionSpec; sha256: string },
  rows: readonly SysidRow[],
  bootstrap: number,
  seed: number,
  key: string,
): SysidPrediction {
  const confirmation = rows.filter((r) => r.split === 'confirmation' && predictAt(spec.spec, spec.spec.checkpoint, r.command) !== null);
  const loss = {
    checkpoint: confirmation.map((r) => Math.abs(r.realized - predictAt(spec.spec, spec.spec.checkpoint, r.command)!)),
    pooled: confirmation.map((r) => Math.abs(r.realized - (predictAt(spec.spec, spec.spec.pooled, r.command) ?? NaN))),
    zero: confirmation.map((r) => Math.abs(r.realized)),
    identity: confirmation.map((r) => Math.abs(r.realized - r.command)),
  };
  // The checkpoint − pooled difference averaged within case, then across cases.
  const perCase = new Map<string, { source: string; d: number[] }>();
  confirmation.forEach((r, i) => {
    const c = perCase.get(r.case_id) ?? { source: r.source, d: [] };
    c.d.push(loss.checkpoint[i] - loss.pooled[i]);
    perCase.set(r.case_id, c);
  });
  const caseDiffs = [...perCase.values()].map((c) => c.d.reduce((s, x) => s + x, 0) / c.d.length);
  const strata = [...perCase.values()].map((c) => c.source);
  const finite = caseDiffs.every(Number.isFinite);
  const diff = caseDiffs.length && finite ? caseDiffs.reduce((s, x) => s + x, 0) / caseDiffs.length : null;
  const ci =
    bootstrap > 0 && diff !== null
      ? intervalOf(
          stratifiedBootstrap({
            strata,
            resamples: bootstrap,
            rng: streamFor(seed, `${key}:prediction`),
            statistic: (counts) => {
              let s = 0;
              let w = 0;
              caseDiffs.forEach((d, i) => {
                s += counts[i] * d;
                w += counts[i];
              });
              return s / w;
            },
          }),
        )
      : { lo: null, hi: null };
  const confCurve = medianCurve(
    rows.filter((r) => r.split === 'confirmation'),
    spec.spec.commands,
  );
  const paired = spec.spec.checkpoint.map((d, i) => [d, confCurve[i]] as const).filter(([d, c]) => d !== null && c !== null);
  const rho =
    paired.length >= 2
      ? finiteOrNull(
          spearmanRho(
            paired.map(([d]) => d!),
            paired.map(([, c]) => c!),
          ),
        )
      : null;
  return {
    spec_sha256: spec.sha256,
    rows: confirmation.length,
    predictors: (['checkpoint', 'pooled', 'zero', 'identity'] as const).map((name) => ({
      name,
      mae: finiteOrNull(meanOrNull(loss[name]) ?? NaN),
    })),
    checkpoint_minus_pooled: diff,
    ci95: ci,
    curve_spearman: rho,
    gates: {
      curve_spearman_at_least_0_70: rho === null ? null : rho >= 0.7,
      checkpoint_beats_pooled: ci.hi === null ? null : ci.hi < 0,
    },
  };
}

// ---- transfer to natural trajectories ---------------------------------------------------------------

/** The frozen curve with (0, 0), as interpolation knots. */
export function curveKnots(spec: PredictionSpec): { x: number[]; y: number[] } {
  const points = new Map<number, number>([[0, 0]]);
  spec.commands.forEach((c, i) => {
    const v = spec.checkpoint[i];
    if (v !== null) points.set(c, v);
  });
  const x = [...points.keys()].sort((a, b) => a - b);
  return { x, y: x.map((c) => points.get(c)!) };
}

export function simulateCapture(knots: { x: number[]; y: number[] }, e0: number, steps = 8): boolean {
  let e = e0;
  for (let s = 0; s < steps; s++) {
    if (Math.abs(e) < 0.5) return true;
    const command = Math.max(-50, Math.min(50, -e));
    e += interpClamped(command, knots.x, knots.y);
  }
  return Math.abs(e) < 0.5;
}

async function transfer(
  store: RunStore,
  controller: string,
  spec: PredictionSpec,
  sysidCases: ReadonlySet<string>,
): Promise<SysidTransfer | null> {
  const runs: string[] = [];
  const natural: TrajectoryRecord[] = [];
  for (const s of await store.listRuns()) {
    if ((s.kind !== 'run' && s.kind !== 'import') || s.controller !== controller) continue;
    const ts = (await store.loadTrajectories([s.runId])).filter(
      (t) => t.family === 'exact-length' && t.status === 'complete' && t.controller === controller && !sysidCases.has(t.caseId),
    );
    if (ts.length) {
      runs.push(s.runId);
      natural.push(...ts);
    }
  }
  if (!natural.length) return null;
  const knots = curveKnots(spec);
  const errs = { curve: [] as number[], zero: [] as number[], identity: [] as number[] };
  const captures: boolean[] = [];
  const exact: boolean[] = [];
  for (const t of natural) {
    const e = t.rounds.map((r) => r.state.error as number);
    for (let i = 0; i + 1 < e.length; i++) {
      if (e[i] === 0 || Math.abs(e[i]) > 50) continue;
      const actual = e[i + 1] - e[i];
      const command = -e[i];
      errs.curve.push(Math.abs(actual - interpClamped(command, knots.x, knots.y)));
      errs.zero.push(Math.abs(actual));
      errs.identity.push(Math.abs(actual - command));
    }
    if (e[0] !== 0) {
      captures.push(simulateCapture(knots, e[0]));
      exact.push(t.rounds[t.rounds.length - 1].state.exact_length === true);
    }
  }
  return {
    runs,
    transitions: errs.curve.length,
    mae_curve: meanOrNull(errs.curve),
    mae_zero: meanOrNull(errs.zero),
    mae_identity: meanOrNull(errs.identity),
    simulated_capture: rateOf(captures),
    observed_exact: rateOf(exact),
  };
}

export async function analyzeSysid(
  store: RunStore,
  run: ExperimentRunData,
  o: { bootstrap: number; seed: number },
): Promise<SysidAnalysis> {
  const rows = sysidRows(run);
  const key = `sysid:${run.runId}`;
  const notes: string[] = [];
  const curves = (['discovery', 'confirmation', 'all'] as const)
    .map((split) => {
      const rs = split === 'all' ? rows : rows.filter((r) => r.split === split);
      const table = commandTable(rs, o.bootstrap, o.seed, `${key}:${split}`);
      return { split, rows: table, monotone_pair_fraction: monotonePairFraction(table.map((r) => r.median_action)) };
    })
    .filter((c) => c.rows.length);
  const spec = await frozenSpec(store, run.runId);
  const controller = run.planned.plan.controller.label;
  const prediction = spec && rows.some((r) => r.split === 'confirmation') ? evaluatePrediction(spec, rows, o.bootstrap, o.seed, key) : null;
  if (!spec) notes.push('no prediction spec frozen yet (the discovery states are not all complete): no prediction or transfer');
  const sysidCases = new Set(run.experiment.trajectories.map((t) => t.facts.case_id as string));
  const tr = spec ? await transfer(store, controller, spec.spec, sysidCases) : null;
  if (spec && !tr) notes.push(`no exact-length revision run of ${controller} outside the sysid cases in this store: no transfer`);
  const excluded = (run.experiment.settings.excluded_cells as unknown[] | undefined)?.length ?? 0;
  return {
    run_id: run.runId,
    controller,
    simulated: run.planned.plan.controller.simulated,
    split: run.experiment.settings.split as string,
    excluded_cells: excluded,
    curves,
    slopes: localSlopes(rows, o.bootstrap, o.seed, key),
    prediction,
    transfer: tr,
    notes,
  };
}
