// Hand-built trajectories for the analysis tests: texts are single letters, so a repeated letter is
// a repeated state; exact-length rounds take their signed error and missing anchors explicitly.
import type { RoundRecord, TrajectoryRecord, TrajectoryStatus } from '../../src/store/types.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';

export interface Spec {
  controller?: string;
  family?: string;
  caseId?: string;
  source?: string;
  /** One letter per round; "*" marks the joint success round (must be last). */
  texts: string;
  /** Exact length: signed error per round (default: 0 on success, 7 otherwise). */
  errors?: number[];
  /** Exact length: rounds (by index) that miss an anchor. */
  missingAt?: number[];
  status?: TrajectoryStatus;
  reason?: string;
  simulated?: boolean;
  target?: number;
  lengthBand?: string;
  budget?: number;
}

export function traj(spec: Spec): TrajectoryRecord {
  const family = spec.family ?? 'exact-length';
  const letters = [...spec.texts];
  const rounds: RoundRecord[] = letters.map((ch, revision) => {
    const joint = ch === '*';
    const text = joint ? `success ${revision}` : `draft ${ch}`;
    if (family === 'exact-length') {
      const error = spec.errors?.[revision] ?? (joint ? 0 : 7);
      const missing = spec.missingAt?.includes(revision) ? ['anchor'] : [];
      if (joint && (error !== 0 || missing.length)) throw new Error('bad spec: success needs error 0 and no missing anchor');
      if (!joint && error === 0 && !missing.length) throw new Error(`bad spec: round ${revision} would be a success`);
      const state = {
        word_count: 100 + error,
        error,
        exact_length: error === 0,
        missing,
        joint_success: joint,
        violation_vector: [Math.abs(error) / 100, missing.length],
      };
      return { revision, text, state, energy: state.violation_vector[0] + state.violation_vector[1], joint };
    }
    const state = { joint_success: joint, violation_vector: [joint ? 0 : 1] };
    return { revision, text, state, energy: joint ? 0 : 1, joint };
  });
  const caseId = spec.caseId ?? 'case-1';
  return {
    runId: `run-${spec.controller ?? 'model-a'}`,
    caseIndex: 0,
    caseId,
    controller: spec.controller ?? 'model-a',
    simulated: spec.simulated ?? false,
    family,
    source: spec.source ?? (family === 'exact-length' ? 'dolly_creative_writing' : 'wiki'),
    case: {
      id: caseId,
      family,
      source: spec.source ?? 'dolly_creative_writing',
      ...(family === 'exact-length'
        ? { target: spec.target ?? 100, anchors: ['anchor'], row: { length_band: spec.lengthBand ?? '51-100' } }
        : {}),
    },
    rounds,
    status: spec.status ?? 'complete',
    ...(spec.reason ? { incompleteReason: spec.reason } : {}),
    budget: spec.budget ?? PAPER_PROTOCOL.budget,
  };
}
