// The immutable plan of a run: what is run (frozen cases, hashed), by whom (model spec, label,
// capabilities, decoding), under which protocol, with which prompt templates and verifiers. A run id
// is bound to one plan for ever: resuming with anything different is refused, naming what differs.
import type { RecordedCapabilities } from '../models/capabilities.ts';
import { createHash } from 'node:crypto';
import { canonicalJson, canonicalSha256, sha256Hex, writeCanonicalJson } from '../core/util/hash.ts';
import type { ConstraintCase, Family, PromptVariant } from '../core/verify/types.ts';
import { diffLeaves } from '../core/util/json-diff.ts';
import { namingOption, PlanMismatchError } from '../core/errors.ts';
import type { PerCase, RunPlannedPayload } from './events.ts';

interface FamilyFingerprint {
  version: string;
  /** SHA-256 of every initial prompt this run sends for the family, in case order. */
  prompt_sha256: string;
  /** SHA-256 of verifier states and feedback on fixed probe texts (behaviour, not just the version). */
  verifier_sha256: string;
}

/** Who runs: the model as the plan freezes it. */
interface PlanController {
  label: string;
  spec: string;
  simulated: boolean;
  /** score, ban and simulated only: a fixed set, so plan hashes stay stable as backends gain capabilities. */
  capabilities: RecordedCapabilities;
  /** Decoding settings that change outputs (timeouts and retries do not, and are not here). */
  generation: { temperature: number | null; seed: number | null; extra_body: Record<string, unknown> | null };
}

/**
 * The kinds of trajectory run: the closed loop run here, trajectories imported from elsewhere,
 * `revise()` loops (src/revise/record.ts), and the controlled experiments (docs/protocol.md
 * §3.10–§3.13), whose trajectories continue frozen prefixes of stored ones.
 */
export type TrajectoryRunKind = 'run' | 'import' | 'revise' | ExperimentKind;

/** One run kind per experimental design (docs/experiments.md). */
export const EXPERIMENT_KINDS = ['experiment:history', 'experiment:crossover', 'experiment:sysid', 'experiment:persist'] as const;
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];
export type ExperimentDesign = 'history' | 'crossover' | 'sysid' | 'persist';

export function isExperimentKind(kind: string): kind is ExperimentKind {
  return (EXPERIMENT_KINDS as readonly string[]).includes(kind);
}

/** A run whose frozen rounds came from: its id, plan hash and controller (so a changed source is a changed plan). */
export interface ExperimentSource {
  run_id: string;
  plan_sha256: string;
  controller: string;
  simulated: boolean;
}

/**
 * One trajectory of an experiment (the case at the same index): the state it starts from, the arm
 * (or cell, or continuation) it belongs to, and its frozen prefix. Rounds 0 … frozen_rounds − 1
 * are copied into the run when it is created and are never generated; everything after them is.
 */
export interface ExperimentTrajectory {
  /** The state's id (docs/protocol.md §3.10: `<controller>__<case>__r<rev>`; §3.11: `<case>__policy_e<e>`). */
  state_id: string;
  /** The history arm (full, reset, last:K, abstract, ban), or the design's single cell name. */
  arm: string;
  /** Where the frozen rounds come from (null: built from the case set, as the system identification's draft). */
  source: { run_id: string; case_index: number; case_id: string } | null;
  /** Revision of the last frozen round (the trigger revision r). */
  trigger_revision: number;
  frozen_rounds: number;
  /** SHA-256 of the canonical JSON of the frozen texts, in revision order. */
  frozen_sha256: string;
  /** Design-specific facts about the state (error bin, command, split, stratum, …). */
  facts: Record<string, unknown>;
}

/** What an experiment freezes in its plan besides the cases: designs, sources, the selection and its hash. */
export interface ExperimentPlan {
  design: ExperimentDesign;
  sources: ExperimentSource[];
  /** SHA-256 of the state selection as JSON Lines (the bytes `revloop experiment states` writes). */
  states_sha256: string;
  /** The selected states, one object per line of that file (the study defines their fields). */
  selection: unknown[];
  /** The design's settings (arms, errors, split, context window, …). */
  settings: Record<string, unknown>;
  trajectories: ExperimentTrajectory[];
}

/** The plan of a trajectory run: frozen cases, a controller, the protocol, family fingerprints. */
export interface RunPlan {
  format: 'revloop.plan/1';
  kind: TrajectoryRunKind;
  case_set: {
    format: string;
    /** Cases in the source before --limit. */
    total: number;
    limit: number | null;
    count: number;
    /** SHA-256 of the case file's bytes (null when the cases did not come from one file). */
    file_sha256: string | null;
    /** SHA-256 of the canonical JSON of the frozen cases. */
    cases_sha256: string;
    manifest: unknown;
  };
  controller: PlanController;
  protocol: ProtocolSpec;
  families: Record<string, FamilyFingerprint>;
  /** Experiment runs only: the frozen inputs (docs/experiments.md). */
  experiment?: ExperimentPlan;
}

/**
 * The plan of a study run that is not a set of trajectories (corrective-gain probes, agent
 * rollouts): its kind, the controller, and the settings that decide what it records. The study's
 * results are keyed `record` events; a resumed session must bring the same plan.
 */
export interface StudyPlan {
  format: 'revloop.plan/1';
  kind: string;
  controller: StudyController;
  settings: Record<string, unknown>;
}

/** The model of a study run, as its plan names it. */
export interface StudyController {
  label: string;
  spec: string;
  simulated: boolean;
}

/** A run's immutable plan: a trajectory run's (`RunPlan`) or another study's (`StudyPlan`). */
export type Plan = RunPlan | StudyPlan;

/** Whether a plan freezes cases and a protocol (a revision run or an import). */
export function isTrajectoryPlan(plan: Plan): plan is RunPlan {
  return 'case_set' in plan && 'protocol' in plan;
}

/** The JSON form stored in plans (history as its string spec). */
export interface ProtocolSpec {
  name: string;
  budget: number;
  history: string;
  variant: PromptVariant;
  temperature: number | null;
  seed: number | null;
  max_new_tokens: 'family';
  message_policy: string;
  ban_provider: string | null;
  /** The paper's rule, or (harnesses whose cycle action is `stop`) also a persistent cycle. */
  stop_rule: 'first-joint-success-or-budget' | 'first-joint-success-budget-or-cycle';
}

/** Probe texts for the verifier fingerprint: empty, a plain sentence, and a messy one. */
const PROBES = ['', 'The quick brown fox jumps over the lazy dog.', '  Two short lines.\nA second one, with "quotes" and don\'t... ok?  '];
/** Cases per family whose probe states enter the fingerprint (enough to see a behaviour change). */
const FINGERPRINT_CASES = 12;

export function familyFingerprint(family: Family, cases: readonly ConstraintCase[], variant: PromptVariant): FamilyFingerprint {
  // Imported cases may lack the prompt fields (their prompts were the source's); they hash as null.
  const prompts = cases.map((c) => {
    try {
      return family.initialPrompt(c, variant);
    } catch {
      return null;
    }
  });
  const probes: unknown[] = [];
  for (const c of cases.slice(0, FINGERPRINT_CASES)) {
    const texts = [...PROBES];
    const reference = c.witness ?? (typeof c.row?.reference === 'string' ? (c.row.reference as string) : undefined);
    if (reference !== undefined) texts.push(reference);
    for (const t of texts) {
      const state = family.verify(t, c);
      probes.push([state, family.energy(state), family.feedback(state, c, variant), family.maxNewTokens(c)]);
    }
  }
  return {
    version: family.version,
    prompt_sha256: canonicalSha256(prompts),
    verifier_sha256: sha256Hex(canonicalJson(probes)),
  };
}

/** SHA-256 of an experiment trajectory's frozen texts (canonical JSON of the list, in revision order). */
export function frozenTextsSha256(texts: readonly string[]): string {
  return sha256Hex(canonicalJson(texts));
}

export function casesSha256(cases: readonly ConstraintCase[]): string {
  return canonicalSha256(cases);
}

/** SHA-256 of the canonical JSON of `{ plan, cases, per_case }` (hashedPlan owns how it is written). */
export function planSha256(plan: Plan, cases: readonly ConstraintCase[], perCase: readonly PerCase[] | null): string {
  return hashedPlan(cases, perCase, () => plan).plan_sha256;
}

/**
 * A plan built from its cases' hash, with the plan's own hash: `planFor(casesSha256(cases))` and
 * `planSha256(plan, cases, perCase)`, with the cases serialised and encoded once for both. The
 * plan's hash is of the canonical JSON of `{ plan, cases, per_case }`, written here key by key in
 * canonical order (`cases`, `per_case`, `plan`), so its first part is the cases' canonical JSON,
 * which both hashes take piece by piece; for the paper's 480 cases that is 1.5 MB serialised once
 * instead of twice. The test holds both digests to the one-shot hashes of the canonical JSON.
 */
export function hashedPlan<P extends Plan>(
  cases: readonly ConstraintCase[],
  perCase: readonly PerCase[] | null,
  planFor: (casesSha256: string) => P,
): { plan: P; plan_sha256: string } {
  const ofCases = createHash('sha256');
  const ofPlan = createHash('sha256').update('{"cases":');
  writeCanonicalJson(cases, (piece) => {
    const bytes = Buffer.from(piece);
    ofCases.update(bytes);
    ofPlan.update(bytes);
  });
  const plan = planFor(ofCases.digest('hex'));
  ofPlan.update(',"per_case":');
  writeCanonicalJson(perCase, (piece) => ofPlan.update(piece));
  ofPlan.update(',"plan":');
  writeCanonicalJson(plan, (piece) => ofPlan.update(piece));
  return { plan, plan_sha256: ofPlan.update('}').digest('hex') };
}

/** Leaf-by-leaf differences between a stored and a requested plan, as "path: stored …, requested …". */
function diffPlans(stored: Plan, requested: Plan, limit = 12): string[] {
  return diffLeaves(stored, requested, ['stored', 'requested'], limit);
}

/**
 * Refuses a different plan under an existing run id, naming what differs: a run's plan never
 * changes, whichever study made it. The message names the option that chose the id (`runId`; see namingOption).
 */
export function assertSamePlan(runId: string, stored: RunPlannedPayload, requested: RunPlannedPayload, option = 'runId'): void {
  if (stored.plan_sha256 === requested.plan_sha256) return;
  const diffs = diffPlans(stored.plan, requested.plan);
  if (!diffs.length) diffs.push('the frozen cases or per-case settings differ');
  throw namingOption(
    option,
    (n) =>
      new PlanMismatchError(
        runId,
        diffs,
        `run '${runId}' exists with a different plan; a run's plan never changes.\n` +
          diffs.map((d) => `  ${d}`).join('\n') +
          `\nUse a new ${n} to run this plan, or repeat the original command to resume '${runId}'.`,
      ),
  );
}
