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
 * The plan of a trajectory run: frozen cases, a controller, the protocol, family fingerprints. A
 * study may add keys of its own (its frozen inputs, say; see run-kinds.ts), which the store keeps and
 * hashes as they are.
 */
export interface RunPlan {
  /** `revloop.plan/<version>`: the version of the kind's plan (its study's `planVersion`). */
  format: string;
  /** Which kind of run (`run`, `import`, …): one a study registered (run-kinds.ts). */
  kind: string;
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
 * The plan of a study run that is not a set of trajectories: its kind, the controller, and the
 * settings that decide what it records. The study's results are keyed `record` events; a resumed
 * session must bring the same plan.
 */
export interface StudyPlan {
  /** `revloop.plan/<version>`: the version of the kind's plan (its study's `planVersion`). */
  format: string;
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

/**
 * Problems with a trajectory plan's common part, as `field: problem`: cases and a protocol frozen,
 * as many cases as the case set counts, one per-case entry per case. (A study's `validatePlan`
 * starts here and adds its own keys' checks.)
 */
export function trajectoryPlanProblems(planned: RunPlannedPayload): string[] {
  const plan = planned.plan;
  if (!isTrajectoryPlan(plan)) return ['case_set: a trajectory plan freezes cases and a protocol'];
  const problems: string[] = [];
  if (plan.case_set.count !== planned.cases.length)
    problems.push(`case_set.count: ${plan.case_set.count}, but the plan freezes ${planned.cases.length} cases`);
  if (planned.per_case !== null && planned.per_case.length !== planned.cases.length)
    problems.push(`per_case: ${planned.per_case.length} entries for ${planned.cases.length} cases`);
  if (!Number.isInteger(plan.protocol.budget) || plan.protocol.budget < 0) problems.push(`protocol.budget: ${plan.protocol.budget}`);
  return problems;
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

/** SHA-256 of the texts of a trajectory's frozen rounds (canonical JSON of the list, in revision order): see `FrozenPrefix`. */
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
        `run '${runId}' exists with a different plan; a run's plan never changes.\n` +
          diffs.map((d) => `  ${d}`).join('\n') +
          `\nUse a new ${n} to run this plan, or repeat the original command to resume '${runId}'.`,
        { runId, differences: diffs },
      ),
  );
}
