// The immutable plan of a run: what is run (frozen cases, hashed), by whom (model spec, label,
// capabilities, decoding), under which protocol, with which prompt templates and verifiers. A run id
// is bound to one plan for ever: resuming with anything different is refused, naming what differs.
import type { RecordedCapabilities } from '../models/capabilities.ts';
import { canonicalJson, sha256Hex } from '../core/util/hash.ts';
import type { ConstraintCase, Family, PromptVariant } from '../core/verify/types.ts';
import { diffLeaves } from '../core/util/json-diff.ts';
import { PlanMismatchError } from '../core/errors.ts';
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

/** The kinds of trajectory run: the closed loop run here, trajectories imported from elsewhere, `revise()` loops. */
/** `revise`: one loop recorded by `revise()` (src/revise/record.ts). */
export type TrajectoryRunKind = 'run' | 'import' | 'revise';

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
    prompt_sha256: sha256Hex(canonicalJson(prompts)),
    verifier_sha256: sha256Hex(canonicalJson(probes)),
  };
}

export function casesSha256(cases: readonly ConstraintCase[]): string {
  return sha256Hex(canonicalJson(cases));
}

export function planSha256(plan: Plan, cases: readonly ConstraintCase[], perCase: readonly PerCase[] | null): string {
  return sha256Hex(canonicalJson({ plan, cases, per_case: perCase }));
}

/** Leaf-by-leaf differences between a stored and a requested plan, as "path: stored …, requested …". */
function diffPlans(stored: Plan, requested: Plan, limit = 12): string[] {
  return diffLeaves(stored, requested, ['stored', 'requested'], limit);
}

/**
 * Refuses a different plan under an existing run id, naming what differs: a run's plan never
 * changes, whichever study made it.
 */
export function assertSamePlan(runId: string, stored: RunPlannedPayload, requested: RunPlannedPayload, runFlag = '--run-id'): void {
  if (stored.plan_sha256 === requested.plan_sha256) return;
  const diffs = diffPlans(stored.plan, requested.plan);
  if (!diffs.length) diffs.push('the frozen cases or per-case settings differ');
  throw new PlanMismatchError(
    runId,
    diffs,
    `run '${runId}' exists with a different plan; a run's plan never changes.\n` +
      diffs.map((d) => `  ${d}`).join('\n') +
      `\nUse a new ${runFlag} to run this plan, or repeat the original command to resume '${runId}'.`,
  );
}
