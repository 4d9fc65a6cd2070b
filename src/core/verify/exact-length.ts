// The exact-length family (docs/protocol.md §1.2, §6.1, §6.2): an exact word count under the
// deterministic word counter plus retained content anchors.
// By module, not through the text barrel: that would also load the Punkt and Treebank tokenisers
// (see registry.ts on start-up).
import { anchorPresent, anchorSearchText } from '../text/anchors.ts';
import { countWords } from '../text/words.ts';
import { intProblem, problems, stringListProblem, textProblem } from './checks.ts';
import { stateEnergy } from './energy.ts';
import type { ConstraintCase, ExactLengthState, Family, PromptVariant } from './types.ts';

function caseTarget(c: ConstraintCase): number {
  if (typeof c.target !== 'number') throw new TypeError(`case ${c.id}: exact-length needs a numeric target`);
  return c.target;
}

function caseAnchors(c: ConstraintCase): string[] {
  return c.anchors ?? [];
}

/**
 * The exact-length verifier (docs/protocol.md §1): the word count against the case's target and the anchors missing from the text. The
 * same as `getFamily('exact-length').verify`.
 */
export function verifyExactLength(text: string, c: ConstraintCase): ExactLengthState {
  const target = caseTarget(c);
  const anchors = caseAnchors(c);
  const count = countWords(text);
  const exact = count === target;
  const error = count - target;
  // Paper Eq. 7: normalised absolute length error, then one missingness flag per anchor.
  const vector = [Math.abs(error) / Math.max(target, 1)];
  const missing: string[] = [];
  // One loop, not map/filter over a `present` list (docs/performance.md#deoptimisations);
  // anchorPresent caches each anchor's compiled pattern, so repeated rounds stay cheap.
  const searchText = anchors.length > 0 ? anchorSearchText(text) : null;
  for (const a of anchors) {
    const present = anchorPresent(a, text, searchText);
    if (!present) missing.push(a);
    vector.push(present ? 0.0 : 1.0);
  }
  return {
    word_count: count,
    error,
    exact_length: exact,
    missing,
    joint_success: exact && missing.length === 0,
    violation_vector: vector,
  };
}

/** "add exactly d words" when d = target − count > 0, otherwise "remove exactly −d words" (also for d = 0). */
function exactLengthAction(count: number, target: number): string {
  const delta = target - count;
  return delta > 0 ? `add exactly ${delta} words` : `remove exactly ${-delta} words`;
}

/** Python str.capitalize(): first character upper-cased, the rest lower-cased. */
function capitalize(s: string): string {
  const [first = '', ...rest] = Array.from(s);
  return first.toUpperCase() + rest.join('').toLowerCase();
}

function exactLengthInitialPrompt(c: ConstraintCase, variant: PromptVariant = 'baseline'): string {
  const instruction = c.instruction ?? '';
  const target = caseTarget(c);
  const anchors = caseAnchors(c).join('; ');
  switch (variant) {
    case 'baseline':
      return (
        `${instruction}\n\nLength constraint: write exactly ${target} words under the deterministic word counter. ` +
        `The response must explicitly retain these required content items: ${anchors}. ` +
        'Return only the requested response. Do not include a preface, word-count note, analysis, or commentary.'
      );
    case 'structured':
      return (
        `TASK\n${instruction}\n\nCONSTRAINTS\nTARGET_WORDS: ${target}\nREQUIRED_CONTENT: ${anchors}\n` +
        'COUNTING: deterministic word counter\nOUTPUT: only the requested response; no preface, word-count note, analysis, or commentary.'
      );
    case 'concise':
      return (
        `${instruction}\n\nWrite exactly ${target} words, as measured by the deterministic word counter. ` +
        `Include each of these required content items explicitly: ${anchors}. ` +
        'Output the response only, without a preface, count, analysis, or commentary.'
      );
    default:
      throw new RangeError(`unknown prompt variant ${String(variant)}`);
  }
}

function exactLengthFeedback(state: ExactLengthState, c: ConstraintCase, variant: PromptVariant = 'baseline'): string {
  const target = caseTarget(c);
  const current = state.word_count;
  const action = exactLengthAction(current, target);
  const missing = state.missing.length === 0 ? 'none' : state.missing.join('; ');
  switch (variant) {
    case 'baseline':
      return (
        `DETERMINISTIC VERIFIER: previous response = ${current} words; target = ${target}; ` +
        `required action = ${action}. Missing required content items: ${missing}. ` +
        'Revise the complete response to satisfy the exact target and retain every required content item. ' +
        'Return only the revised response with no analysis, count, or commentary.'
      );
    case 'structured':
      return (
        `DETERMINISTIC_VERIFIER\nCURRENT_WORDS: ${current}\nTARGET_WORDS: ${target}\nREQUIRED_ACTION: ${action}\n` +
        `MISSING_REQUIRED_CONTENT: ${missing}\n` +
        'INSTRUCTION: Revise the complete response to hit TARGET_WORDS exactly and retain every required content item. ' +
        'Return only the revised response; no analysis, count, or commentary.'
      );
    case 'concise':
      return (
        `Verifier result: the response has ${current} words; the target is ${target}. ${capitalize(action)}. ` +
        `Missing required content: ${missing}. Revise the whole response to exactly ${target} words while keeping every required item. ` +
        'Output only the revision, without analysis, a count, or commentary.'
      );
    default:
      throw new RangeError(`unknown prompt variant ${String(variant)}`);
  }
}

export const exactLengthFamily: Family<ExactLengthState> = {
  name: 'exact-length',
  version: '1',
  description: 'exactly `target` words under the deterministic word counter, keeping every anchor',
  verify: verifyExactLength,
  energy: stateEnergy,
  feedback: exactLengthFeedback,
  initialPrompt: exactLengthInitialPrompt,
  maxNewTokens: (c) => Math.max(128, 3 * caseTarget(c)),
  validateCase: (c) =>
    problems(
      ['instruction', textProblem(c.instruction, 'the request the model answers')],
      ['target', intProblem(c.target, 1)],
      ['anchors', stringListProblem(c.anchors)],
    ),
};
