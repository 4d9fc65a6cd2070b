// Run kinds: all the store knows of the studies whose runs it keeps. The store keeps every run alike
// (an immutable plan, a hash-chained log, the derived runs, trajectories and rounds tables, locks
// and leases) and names no study: a study registers each kind of run it writes, with the version of
// its plan, the check of that plan, and how its results reduce from the run's events. A run is
// created only under a registered kind whose study accepts the plan; a stored run reads back
// whether or not its study is loaded here (to the store its plan is opaque beyond the common
// envelope: format, kind, controller).
import { UserError } from '../core/errors.ts';
import type { RunPlannedPayload, StoredEvent } from './events.ts';
import type { Plan } from './plan.ts';

/** Rounds of a trajectory that a run copied in rather than generated, and the SHA-256 of their texts (`frozenTextsSha256`). */
export interface FrozenPrefix {
  /** How many of the first rounds were copied in (Infinity: every round, as in an import). */
  rounds: number;
  /** The hash the plan fixes for their texts (null: the plan fixes none). */
  textsSha256: string | null;
}

/**
 * What a study tells the store about one kind of run it writes (`registerRunKind`). `P` is the
 * study's plan type, `R` what its reducer returns.
 */
export interface RunKind<P extends Plan = Plan, R = unknown> {
  /** The plan's `kind` (`run`, `import`, a study's own), owned by one study. */
  readonly kind: string;
  /** The study that owns it (its folder under src/studies, or the layer that writes it), named in messages. */
  readonly study: string;
  /** The version of the plan this code writes: its plans carry `format: 'revloop.plan/<planVersion>'`. */
  readonly planVersion: number;
  /**
   * Problems with a plan of this kind, each as `field: problem` (empty: a plan its study can run and
   * read). Checked before a run is created, and by the audit of a stored run.
   */
  validatePlan(planned: RunPlannedPayload<P>): string[];
  /**
   * The study's results from a run's events (log order): what `reduceRun` and `RunStore.reduce`
   * return as `results`. Pure and total: it never throws on odd logs (the audit reports a throw).
   */
  reduce?(events: readonly StoredEvent[], planned: RunPlannedPayload<P>): R;
  /**
   * Problems the audit reports in the study's results (what `reduce` returned), each as one line
   * (empty: none). Only with `reduce`.
   */
  audit?(results: R, planned: RunPlannedPayload<P>): string[];
  /**
   * Trajectory runs: the rounds of a trajectory copied into the run rather than generated (a
   * frozen prefix, an import's every round); none when absent or null. The audit
   * checks there are no attempts behind them and that their texts hash as the plan says.
   */
  frozenPrefix?(planned: RunPlannedPayload<P>, caseIndex: number): FrozenPrefix | null;
  /**
   * Trajectory runs: whether the plan sets a guard checked before every generation, which may end
   * a trajectory before the stop rule (its `termination`). The audit refuses such an end otherwise.
   */
  guarded?(planned: RunPlannedPayload<P>): boolean;
}

const KINDS = new Map<string, RunKind<any, any>>();

/** The `format` of a plan of this version. */
export function planFormat(version: number): string {
  return `revloop.plan/${version}`;
}

/**
 * Registers a study's run kinds (once per process; registering the same definition again is a
 * no-op). A kind belongs to one study: a second, different definition of it is refused.
 */
export function registerRunKind(...kinds: readonly RunKind[]): void {
  for (const k of kinds) {
    if (!/^[a-z][a-z0-9_.:-]*$/.test(k.kind))
      throw new TypeError(`run kind '${k.kind}': lower-case letters, digits and . _ : - only, starting with a letter`);
    if (!Number.isInteger(k.planVersion) || k.planVersion < 1)
      throw new TypeError(`run kind '${k.kind}': planVersion must be a positive integer`);
    const known = KINDS.get(k.kind);
    if (known && known !== k) throw new TypeError(`run kind '${k.kind}' is registered twice: by ${known.study} and by ${k.study}`);
    KINDS.set(k.kind, k);
  }
}

/** The registered definition of a run kind (undefined: no study loaded in this process registered it). */
export function runKind(kind: string): RunKind | undefined {
  return KINDS.get(kind);
}

/** Every registered run kind, in registration order. */
export function registeredRunKinds(): string[] {
  return [...KINDS.keys()];
}

/**
 * Problems with a plan as its study judges it: its format against the kind's plan version, then
 * the study's own check. Null when no study registered the kind (nothing to judge it by).
 */
export function planProblems(planned: RunPlannedPayload): string[] | null {
  const k = KINDS.get(planned.plan.kind);
  if (!k) return null;
  const format = planFormat(k.planVersion);
  if (planned.plan.format !== format)
    return [`format: '${String(planned.plan.format)}', but ${k.study} writes and reads '${format}' plans of kind '${k.kind}'`];
  return k.validatePlan(planned);
}

/**
 * Refuses to create a run whose kind no study registered, or whose plan its study does not
 * accept, naming the run, the kind and each problem. Both backends call it in `createRun`.
 */
export function checkNewPlan(runId: string, planned: RunPlannedPayload): void {
  const kind = planned.plan?.kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) {
    const known = registeredRunKinds();
    throw new UserError(
      `run '${runId}': no study registered run kind '${String(kind)}' (registered: ${known.join(', ') || 'none'}); ` +
        'a study registers its kinds (registerRunKind) before it creates runs',
    );
  }
  const problems = planProblems(planned)!;
  if (problems.length)
    throw new UserError(
      `run '${runId}': the ${kind} plan is not one ${KINDS.get(kind)!.study} can run:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
}
