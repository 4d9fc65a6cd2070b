// Test-side builders: small trajectories verified by the real families (our own sentences), with
// hostile texts mixed in, plus a larger synthetic set for the lazy-rendering checks.
import { getFamily } from '../../src/core/verify/index.ts';
import type { ConstraintCase, Family, VerifierState } from '../../src/core/verify/types.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';

export const HOSTILE = '</script><script>alert(1)</script>';
export const LINE_SEP = '\u2028';

export const CASES: Record<string, ConstraintCase> = {
  tea: {
    id: 'tea-01',
    family: 'exact-length',
    source: 'own',
    instruction: 'Write one sentence about tea.',
    target: 5,
    anchors: ['green tea'],
  },
  rain: { id: 'rain-02', family: 'exact-length', source: 'own', instruction: 'Describe rain briefly.', target: 6, anchors: ['umbrella'] },
  bread: { id: 'bread-03', family: 'exact-length', source: 'other', instruction: 'Say something about bread.', target: 4, anchors: [] },
  apple: { id: 'apple-04', family: 'c07', source: 'own', task: 'Write a sentence that uses the word "apple".', targets: ['apple'] },
};

/** A trajectory from drafts through the real verifier, cut at the first joint success. */
export function trajectory(
  runId: string,
  controller: string,
  simulated: boolean,
  caseIndex: number,
  c: ConstraintCase,
  drafts: string[],
  options: { budget?: number; family?: Family; incompleteReason?: string; storeFeedback?: boolean } = {},
): TrajectoryRecord {
  const family = options.family ?? getFamily(c.family);
  const budget = options.budget ?? 4;
  const rounds: TrajectoryRecord['rounds'] = [];
  for (const [i, text] of drafts.entries()) {
    if (i > budget) break;
    const state = family.verify(text, c) as VerifierState;
    const joint = state.joint_success;
    rounds.push({ revision: i, text, state, energy: family.energy(state), joint });
    if (joint) break;
  }
  const resolved = rounds.at(-1)?.joint ?? false;
  const complete = !options.incompleteReason && (resolved || rounds.length === budget + 1);
  if (options.storeFeedback !== false) {
    rounds.forEach((r, i) => {
      r.feedback = i + 1 < rounds.length ? family.feedback(r.state, c) : null;
    });
  }
  const t: TrajectoryRecord = {
    runId,
    caseIndex,
    caseId: c.id,
    controller,
    simulated,
    family: c.family,
    source: c.source,
    case: c,
    rounds,
    status: complete ? 'complete' : 'incomplete',
    budget,
  };
  if (!complete) t.incompleteReason = options.incompleteReason ?? 'provider attempts exhausted';
  return t;
}

/** Two controllers (one simulated) over four cases with every outcome the filters distinguish. */
export function smallSet(): TrajectoryRecord[] {
  const A = 'run-alpha';
  const S = 'run-sim';
  const longDraft = Array.from({ length: 4000 }, (_, i) => `word${i}`).join(' ');
  return [
    // alpha: success after two revisions, with a diff to show.
    trajectory(A, 'alpha', false, 0, CASES.tea, ['Tea is nice.', 'Green tea is very nice today.', 'I love green tea daily.']),
    // alpha: terminal fixed point, with a hostile draft.
    trajectory(A, 'alpha', false, 1, CASES.rain, [
      'Rain falls.',
      `Rain ${HOSTILE} falls.`,
      `Rain ${HOSTILE} falls.`,
      `Rain ${HOSTILE} falls.`,
      `Rain ${HOSTILE} falls.`,
    ]),
    // alpha: terminal cycle of period 2, with U+2028 and an image tag that must never load.
    trajectory(A, 'alpha', false, 2, CASES.bread, [
      'Bread is good.',
      `Bread${LINE_SEP}is warm <img src="http://example.invalid/x.png"> here.`,
      'Bread is good.',
      `Bread${LINE_SEP}is warm <img src="http://example.invalid/x.png"> here.`,
      'Bread is good.',
      'never used',
    ]),
    // alpha: c07 success at once.
    trajectory(A, 'alpha', false, 3, CASES.apple, ['I ate an apple.']),
    // sim: no repeat failure with a very long draft.
    trajectory(S, 'sim:steady', true, 0, CASES.tea, ['Tea.', 'Tea is hot.', longDraft, 'Tea is hot and good.', 'We drink tea here now.']),
    // sim: other repeat (a repeat that is neither a terminal fixed point nor a cycle).
    trajectory(S, 'sim:steady', true, 1, CASES.rain, [
      'Rain.',
      'Rain again.',
      'Rain.',
      'Rain is wet and cold.',
      'The umbrella is wet now.',
    ]),
    // sim: protocol-incomplete.
    trajectory(S, 'sim:steady', true, 2, CASES.bread, ['Bread.', 'Bread again.'], {
      incompleteReason: 'provider attempts exhausted (HTTP 503)',
    }),
    // sim: c07 failure (no repeat) whose reports are not stored: the family renders them.
    trajectory(
      S,
      'sim:steady',
      true,
      3,
      CASES.apple,
      ['I ate a pear.', 'I ate a plum.', 'I ate a fig.', 'I ate a date.', 'I ate a kiwi.'],
      { storeFeedback: false },
    ),
  ];
}

/** A cheap family for large synthetic sets: joint when the text has at least `target` characters. */
export const minCharsFamily: Family = {
  name: 'min-chars',
  version: 'test-1',
  verify(text, c) {
    const short = Math.max(0, (c.target ?? 0) - text.length);
    return { joint_success: short === 0, short_by: short, violation_vector: [short / Math.max(c.target ?? 1, 1)] };
  },
  energy: (s) => s.violation_vector.reduce((a, b) => a + b, 0),
  feedback: (s) => `MIN-CHARS REPORT: ${String((s as VerifierState & { short_by: number }).short_by)} characters short.`,
  initialPrompt: (c) => `Write at least ${c.target} characters.`,
  maxNewTokens: () => 64,
  validateCase: () => [],
};

/** `n` synthetic trajectories over three controllers (deterministic) with 60%, 40% and 20% successes. */
export function largeSet(n: number): TrajectoryRecord[] {
  const out: TrajectoryRecord[] = [];
  const controllers = ['big-a', 'big-b', 'sim:big'];
  for (let i = 0; i < n; i++) {
    const k = i % 3;
    const j = Math.floor(i / 3);
    const controller = controllers[k];
    const c: ConstraintCase = { id: `syn-${String(j).padStart(5, '0')}`, family: 'min-chars', source: ['s1', 's2'][j % 2], target: 60 };
    const short = (r: number) => `Case ${c.id}, draft ${r}: too short.`;
    const succeeds = j % 5 < 3 - k;
    const kind = j % 3;
    const drafts = succeeds
      ? [short(0), short(1), short(2), short(3)]
          .slice(0, j % 4)
          .concat([`Case ${c.id}: this draft is long enough to pass the character check.`])
      : kind === 0
        ? [short(0), short(1), short(1), short(1), short(1)]
        : kind === 1
          ? [short(0), short(1), short(0), short(1), short(0)]
          : [short(0), short(1), short(2), short(3), short(4)];
    out.push(trajectory(`run-${controller}`, controller, controller.startsWith('sim:'), j, c, drafts, { family: minCharsFamily }));
  }
  return out;
}
