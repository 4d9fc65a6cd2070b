// The immutable plan of a run: what is run (frozen cases, hashed), by whom (model spec, label,
// capabilities, decoding), under which protocol, with which prompt templates and verifiers. A run id
// is bound to one plan for ever: resuming with anything different is refused, naming what differs.
import type { ModelCapabilities } from '../models/types.ts';
import { canonicalJson, sha256Hex } from '../core/util/hash.ts';
import type { ConstraintCase, Family, PromptVariant } from '../core/verify/types.ts';
import type { ProtocolSpec } from '../engine/protocol.ts';
import { diffLeaves } from '../core/util/json-diff.ts';
import type { PerCase } from './events.ts';

export interface FamilyFingerprint {
  version: string;
  /** SHA-256 of every initial prompt this run sends for the family, in case order. */
  prompt_sha256: string;
  /** SHA-256 of verifier states and feedback on fixed probe texts (behaviour, not just the version). */
  verifier_sha256: string;
}

export interface RunPlan {
  format: 'revloop.plan/1';
  kind: 'run' | 'import';
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
  controller: {
    label: string;
    spec: string;
    simulated: boolean;
    capabilities: ModelCapabilities;
    /** Decoding settings that change outputs (timeouts and retries do not, and are not here). */
    generation: { temperature: number | null; seed: number | null; extra_body: Record<string, unknown> | null };
  };
  protocol: ProtocolSpec;
  families: Record<string, FamilyFingerprint>;
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

export function planSha256(plan: RunPlan, cases: readonly ConstraintCase[], perCase: readonly PerCase[] | null): string {
  return sha256Hex(canonicalJson({ plan, cases, per_case: perCase }));
}

/** Leaf-by-leaf differences between a stored and a requested plan, as "path: stored …, requested …". */
export function diffPlans(stored: RunPlan, requested: RunPlan, limit = 12): string[] {
  return diffLeaves(stored, requested, ['stored', 'requested'], limit);
}
