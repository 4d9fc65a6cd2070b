// A seeded generator of SIMULATED trajectories with the paper's panel shape (controllers × 480 cases
// per assay: exact-length; c05 240 + c07 120 + c12 120; c09 240 + c10 240). It exists for the
// analysis benchmark, tests and power analysis; every trajectory it makes has `simulated: true`,
// and its numbers describe the simulation only.
import type { ConstraintCase } from '../../core/verify/types.ts';
import type { RoundRecord, TrajectoryRecord } from '../../store/types.ts';
import { Xoshiro128 } from '../../core/stats/prng.ts';
import { PAPER_PROTOCOL } from '../../engine/protocol.ts';

/** A synthetic controller's behaviour: first-draft success, and per-revision capture and repetition probabilities. */
export interface SyntheticController {
  name: string;
  /** Probability the first draft succeeds. */
  initial: number;
  /** Per-revision probability of capture while unresolved. */
  capture: number;
  /** Per-revision probability of repeating an earlier draft (instead of a new one). */
  repeat: number;
}

/**
 * Options of `syntheticTrajectories`: the controllers, seed, budget, cases per structure (default: the paper's allocation) and the
 * incomplete rate (default 0).
 */
export interface SyntheticOptions {
  controllers: SyntheticController[];
  seed?: number;
  budget?: number;
  /** Cases per structure: defaults to the paper's allocation. */
  cases?: Partial<Record<'exact-length' | 'c05' | 'c07' | 'c12' | 'c09' | 'c10', number>>;
  /** Fraction of trajectories marked protocol-incomplete (default 0). */
  incompleteRate?: number;
}

const EXACT_SOURCES = [
  'dolly_creative_writing',
  'no_robots_test_generation',
  'no_robots_train_generation',
  'oasst1_train_root_text',
  'oasst1_validation_root_text',
  'writingprompts_validation',
];
const COLLIE_SOURCES = ['ccnews', 'guten', 'wiki'];
const BANDS = ['10-50', '51-100', '101-200', '201-500'];
const DEFAULT_CASES = { 'exact-length': 480, c05: 240, c07: 120, c12: 120, c09: 240, c10: 240 };

/** Builds the case sets once, then one trajectory per controller × case. */
export function syntheticTrajectories(options: SyntheticOptions): TrajectoryRecord[] {
  const budget = options.budget ?? PAPER_PROTOCOL.budget;
  const counts = { ...DEFAULT_CASES, ...options.cases };
  const caseRng = Xoshiro128.fromKey(`revloop.synthetic.cases\u001f${options.seed ?? 1}`);
  const cases: ConstraintCase[] = [];
  for (const [family, count] of Object.entries(counts)) {
    for (let i = 0; i < count; i++) {
      if (family === 'exact-length') {
        const target = 10 + caseRng.nextBelow(491);
        const band = target <= 50 ? BANDS[0] : target <= 100 ? BANDS[1] : target <= 200 ? BANDS[2] : BANDS[3];
        const source = EXACT_SOURCES[i % EXACT_SOURCES.length];
        cases.push({
          id: `syn-exact-${String(i).padStart(4, '0')}`,
          family,
          source,
          target,
          anchors: ['alpha', 'beta', 'gamma'],
          row: { length_band: band },
        });
      } else {
        cases.push({ id: `syn-${family}-${String(i).padStart(4, '0')}`, family, source: COLLIE_SOURCES[i % 3] });
      }
    }
  }
  const out: TrajectoryRecord[] = [];
  for (const controller of options.controllers) {
    const rng = Xoshiro128.fromKey(`revloop.synthetic\u001f${options.seed ?? 1}\u001f${controller.name}`);
    cases.forEach((c, caseIndex) => {
      const rounds: RoundRecord[] = [];
      for (let r = 0; r <= budget; r++) {
        const success = rng.nextDouble() < (r === 0 ? controller.initial : controller.capture);
        if (!success && r > 0 && rng.nextDouble() < controller.repeat) {
          // Repeat an earlier (failed) draft: usually the last one, sometimes an older one.
          const back = rng.nextDouble() < 0.7 ? 1 : 1 + rng.nextBelow(r);
          const prev = rounds[r - Math.min(back, r)];
          rounds.push({ ...prev, revision: r });
        } else {
          rounds.push(makeRound(c, r, success, rng));
        }
        if (rounds[r].joint) break;
      }
      const incomplete = options.incompleteRate ? rng.nextDouble() < options.incompleteRate : false;
      out.push({
        runId: `synthetic-${controller.name}`,
        caseIndex,
        caseId: c.id,
        controller: controller.name,
        simulated: true,
        family: c.family,
        source: c.source,
        case: c,
        rounds: incomplete ? rounds.slice(0, 1 + rng.nextBelow(rounds.length)) : rounds,
        status: incomplete ? 'incomplete' : 'complete',
        ...(incomplete ? { incompleteReason: 'simulated provider failure' } : {}),
        budget,
      });
    });
  }
  return out;
}

function makeRound(c: ConstraintCase, revision: number, success: boolean, rng: Xoshiro128): RoundRecord {
  const text = success ? `ok ${c.id} r${revision}` : `draft ${c.id} r${revision} ${rng.nextUint32()}`;
  if (c.family === 'exact-length') {
    const target = c.target ?? 100;
    let error = success ? 0 : rng.nextBelow(41) - 20;
    const missing = success ? [] : rng.nextDouble() < 0.3 || error === 0 ? ['beta'] : [];
    if (!success && error === 0 && missing.length === 0) error = 1;
    const state = {
      word_count: target + error,
      error,
      exact_length: error === 0,
      missing,
      joint_success: success,
      violation_vector: [Math.abs(error) / Math.max(target, 1), 0, missing.length ? 1 : 0, 0],
    };
    return { revision, text, state, energy: state.violation_vector.reduce((a, b) => a + b, 0), joint: success };
  }
  const v = success ? [0, 0] : [rng.nextDouble(), rng.nextBelow(2)];
  return {
    revision,
    text,
    state: { joint_success: success, violation_vector: v },
    energy: v[0] + v[1],
    joint: success,
  };
}

/** Nineteen simulated controllers spanning the paper's range of success rates. */
export function paperShapedControllers(): SyntheticController[] {
  const out: SyntheticController[] = [];
  for (let i = 0; i < 19; i++) {
    out.push({
      name: `sim:controller-${String(i + 1).padStart(2, '0')}`,
      initial: 0.02 + 0.04 * (i % 5),
      capture: 0.03 + 0.045 * i,
      repeat: 0.6 - 0.03 * i,
    });
  }
  return out;
}
