// Named simulated-controller profiles and their parameters. A profile is a response curve plus a
// few probabilities; any parameter can be overridden in the spec: `sim:steady?gain=0.7&recur=0.2&seed=3`.
import { NotFoundError, UsageError } from '../../core/errors.ts';
import { numberParam } from '../spec.ts';

export interface SimParams {
  /** Fraction of a requested numeric correction that is applied (1 = exactly what was asked). */
  gain: number;
  /** Add/remove asymmetry in (−1, 1): additions use gain·(1+asym), removals gain·(1−asym). */
  asym: number;
  /** Requested corrections of at most this size (in words or sentences) are ignored. */
  dead: number;
  /** Relative s.d. of the applied correction: Δ = g·Δ*·(1 + noise·z), then stochastic rounding. */
  noise: number;
  /** Probability of returning an earlier draft verbatim instead of revising (recurrence). */
  recur: number;
  /**
   * History effect 1 (0 = none): each earlier draft in the context beyond the last makes a verbatim
   * return likelier: P(recur) = 1 − (1 − recur)·(1 − echo)^k, k = drafts in the context − 1.
   */
  echo: number;
  /**
   * History effect 2 (0 = none): how much the controller corrects its gain by the gain it observes
   * in its context (how far each earlier revision moved against what its report asked): the
   * requested correction is scaled by (1 − memory) + memory/ĝ, ĝ the mean observed gain.
   */
  memory: number;
  /** Probability that each reported content violation (missing anchor/word, wrong word) is fixed. */
  fix: number;
  /** Probability that each satisfied content item is broken during a revision. */
  slip: number;
  /** Relative error of the first draft's size (−0.2 = 20% short). */
  draft_bias: number;
  /** Relative s.d. of the first draft's size. */
  draft_noise: number;
  /** Probability that each content item is satisfied in the first draft. */
  draft_fix: number;
  /** Seed of every random draw (mixed with a hash of the messages). */
  seed: number;
  /** Artificial latency per generation, in ms (for benchmarks). */
  latency_ms: number;
}

export interface SimProfile {
  name: string;
  description: string;
  params: SimParams;
  /** `instant` never sleeps, whatever latency a server or option asks for. */
  fixedLatency?: boolean;
}

const BASE: SimParams = {
  gain: 1,
  asym: 0,
  dead: 0,
  noise: 0,
  recur: 0,
  echo: 0,
  memory: 0,
  fix: 1,
  slip: 0,
  draft_bias: -0.2,
  draft_noise: 0,
  draft_fix: 0.5,
  seed: 0,
  latency_ms: 0,
};

/** The simulated controllers' profiles by name (`sim:<name>`), each with its description; every output of one is labelled SIMULATED. */
export const SIM_PROFILES: Record<string, SimProfile> = {
  ideal: {
    name: 'ideal',
    description: 'a first draft 20% short with half the content items, then exactly what the verifier asks (solves at revision 1)',
    params: { ...BASE },
  },
  steady: {
    name: 'steady',
    description: 'mostly follows the report with some noise and rare recurrence',
    params: { ...BASE, gain: 0.85, noise: 0.25, recur: 0.05, fix: 0.8, slip: 0.02, draft_bias: -0.1, draft_noise: 0.15, draft_fix: 0.6 },
  },
  sluggish: {
    name: 'sluggish',
    description: 'applies under half of each correction, ignores ±1 corrections, removes less readily than it adds',
    params: {
      ...BASE,
      gain: 0.4,
      asym: 0.25,
      dead: 1,
      noise: 0.2,
      recur: 0.1,
      fix: 0.5,
      slip: 0.02,
      draft_bias: -0.25,
      draft_noise: 0.2,
      draft_fix: 0.5,
    },
  },
  overshoot: {
    name: 'overshoot',
    description: 'over-corrects (gain 1.7): oscillates around the target and converges slowly',
    params: { ...BASE, gain: 1.7, noise: 0.15, recur: 0.05, fix: 0.8, slip: 0.05, draft_bias: -0.1, draft_noise: 0.15, draft_fix: 0.6 },
  },
  stubborn: {
    name: 'stubborn',
    description: 'weak gain, a dead zone of 3 and high recurrence: returns earlier drafts half the time',
    params: {
      ...BASE,
      gain: 0.3,
      dead: 3,
      noise: 0.3,
      recur: 0.5,
      fix: 0.3,
      slip: 0.05,
      draft_bias: -0.3,
      draft_noise: 0.2,
      draft_fix: 0.4,
    },
  },
  contextual: {
    name: 'contextual',
    description:
      "sluggish's response curve without its dead zone, and a history that matters both ways: it learns its gain from the earlier reports in its context (memory 1) and returns an earlier draft more often the more drafts its context holds (echo 0.1)",
    params: {
      ...BASE,
      gain: 0.4,
      asym: 0.25,
      noise: 0.2,
      recur: 0.05,
      echo: 0.1,
      memory: 1,
      fix: 0.5,
      slip: 0.02,
      draft_bias: -0.25,
      draft_noise: 0.2,
      draft_fix: 0.5,
    },
  },
  instant: {
    name: 'instant',
    description: 'the steady profile with no latency ever (engine and store benchmarks)',
    params: { ...BASE, gain: 0.85, noise: 0.25, recur: 0.05, fix: 0.8, slip: 0.02, draft_bias: -0.1, draft_noise: 0.15, draft_fix: 0.6 },
    fixedLatency: true,
  },
};

/** Bounds of each parameter, for validation and docs. */
export const PARAM_RANGES: Record<keyof SimParams, { min: number; max: number; integer?: boolean }> = {
  gain: { min: 0, max: 5 },
  asym: { min: -0.99, max: 0.99 },
  dead: { min: 0, max: 1000, integer: true },
  noise: { min: 0, max: 5 },
  recur: { min: 0, max: 1 },
  echo: { min: 0, max: 1 },
  memory: { min: 0, max: 1 },
  fix: { min: 0, max: 1 },
  slip: { min: 0, max: 1 },
  draft_bias: { min: -0.95, max: 5 },
  draft_noise: { min: 0, max: 5 },
  draft_fix: { min: 0, max: 1 },
  seed: { min: -(2 ** 53), max: 2 ** 53, integer: true },
  latency_ms: { min: 0, max: 600_000 },
};

export interface ResolvedSim {
  profile: SimProfile;
  params: SimParams;
  /** The parameters given explicitly in the spec (in key order), for the label and records. */
  overrides: Partial<SimParams>;
}

/** Resolves `profile` + spec parameters (+ a fallback seed) into concrete parameters. */
export function resolveSim(
  spec: string,
  profileName: string,
  query: Record<string, string>,
  defaults: Partial<SimParams> = {},
): ResolvedSim {
  const profile = SIM_PROFILES[profileName];
  if (!profile) {
    throw new NotFoundError(
      `unknown simulated profile "${profileName}" in ${JSON.stringify(spec)}; known profiles: ${Object.keys(SIM_PROFILES).join(', ')}`,
      { kind: 'profile', target: profileName },
    );
  }
  const params: SimParams = { ...profile.params, ...defaults };
  const overrides: Partial<SimParams> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!(key in PARAM_RANGES)) {
      throw new UsageError(
        `invalid model spec ${JSON.stringify(spec)}: unknown sim parameter "${key}"; known: ${Object.keys(PARAM_RANGES).join(', ')}`,
        { option: key },
      );
    }
    const k = key as keyof SimParams;
    overrides[k] = numberParam(spec, key, value, PARAM_RANGES[k]);
    params[k] = overrides[k]!;
  }
  if (profile.fixedLatency) params.latency_ms = 0;
  return { profile, params, overrides };
}
