// The five COLLIE-derived families as `Family` objects: verifier, report, prompts, token limits,
// case validation and corruption checks.
import { describe, intProblem, isInt, problems, stringListProblem, textProblem } from '../checks.ts';
import { stateEnergy } from '../energy.ts';
import { pyInt } from '../../py/values.ts';
import type { ConstraintCase, Family, PromptVariant, VerifierState } from '../types.ts';
import { corruptionChecks, type StructureCode } from './corruption.ts';
import {
  reportC05,
  reportC07,
  reportC09,
  reportC10,
  reportC12,
  structuredInitialPrompt,
  structuredSuffix,
} from './prompt-feedback-text.ts';
import { words } from './units.ts';
import { verifyC05, verifyC07, verifyC09, verifyC10, verifyC12 } from './verifiers.ts';

/** Token limit when a c07/c09/c12 case has no witness to size it by (user cases): the reference's cap. */
const NO_WITNESS_MAX_TOKENS = 1024;

/** A family built on a COLLIE task (structured and COLLIE families alike). */
interface CollieTaskSpec<S extends VerifierState> {
  name: string;
  description: string;
  verify(text: string, targets: unknown): S;
  report(state: S): string;
  maxNewTokens(c: ConstraintCase): number;
  targetsProblem(targets: unknown): string | null;
  corruptionChecks?(c: ConstraintCase): Record<string, boolean>;
}

/**
 * A family whose prompt is COLLIE's task text wrapped as the paper wraps c05…c12
 * (structuredInitialPrompt) and whose feedback is its report plus the paper's closing instruction.
 */
export function collieTaskFamily<S extends VerifierState>(spec: CollieTaskSpec<S>): Family<S> {
  return {
    name: spec.name,
    version: '1',
    description: spec.description,
    verify: (text, c) => spec.verify(text, c.targets),
    energy: stateEnergy,
    feedback: (state: S, _c: ConstraintCase, variant: PromptVariant = 'baseline') => `${spec.report(state)}\n${structuredSuffix(variant)}`,
    initialPrompt: structuredInitialPrompt,
    maxNewTokens: spec.maxNewTokens,
    validateCase: (c) => problems(['task', textProblem(c.task, 'the COLLIE prompt')], ['targets', spec.targetsProblem(c.targets)]),
    ...(spec.corruptionChecks ? { corruptionChecks: spec.corruptionChecks } : {}),
  };
}

/** The five structured families: their token limits and corruption checks are their own. */
function makeFamily<S extends VerifierState>(
  spec: Omit<CollieTaskSpec<S>, 'name' | 'corruptionChecks'> & { name: StructureCode },
): Family<S> {
  return collieTaskFamily({ ...spec, corruptionChecks: (c) => corruptionChecks(spec.name, c.witness ?? '', c.targets) });
}

/** c07/c09/c12: three tokens per NLTK word of the witness, between 128 and 1024. */
export function witnessSizedTokens(c: ConstraintCase): number {
  if (typeof c.witness !== 'string') return NO_WITNESS_MAX_TOKENS;
  return Math.max(128, Math.min(1024, words(c.witness).length * 3));
}

function listProblem(t: unknown, min: number): string | null {
  if (!Array.isArray(t)) return `must be a list, got ${t === undefined ? 'nothing' : describe(t)}`;
  if (t.length < min) return `must have at least ${min} entries, got ${t.length}`;
  return null;
}

export const c05Family = makeFamily({
  name: 'c05',
  description: 'exactly N words, with given words at positions 4, 8 and 11 (NLTK words)',
  verify: verifyC05,
  report: reportC05,
  maxNewTokens: (c) => Math.max(128, pyInt((c.targets as unknown[])[0]) * 3),
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 2) return `must be [word count, [word 4, word 8, word 11]], got ${describe(t)}`;
    const p = intProblem(t[0], 1);
    if (p) return `word count ${p}`;
    const w = stringListProblem(t[1], { exact: 3 });
    return w ? `position words ${w}` : null;
  },
});

export const c07Family = makeFamily({
  name: 'c07',
  description: 'every required word appears (NLTK words, normalised literals)',
  verify: verifyC07,
  report: reportC07,
  maxNewTokens: witnessSizedTokens,
  targetsProblem: (t) => stringListProblem(t, { min: 1 }),
});

export const c09Family = makeFamily({
  name: 'c09',
  description: 'exactly N sentences and none of the forbidden words',
  verify: verifyC09,
  report: reportC09,
  maxNewTokens: witnessSizedTokens,
  targetsProblem: (t) => {
    const l = listProblem(t, 2);
    if (l) return `${l} ([sentence count, forbidden word, …])`;
    const list = t as unknown[];
    const p = intProblem(list[0], 1);
    if (p) return `sentence count ${p}`;
    const w = stringListProblem(list.slice(1));
    return w ? `forbidden words: ${w}` : null;
  },
});

export const c10Family = makeFamily({
  name: 'c10',
  description: 'exactly N sentences, each with between L and U words',
  verify: verifyC10,
  report: reportC10,
  maxNewTokens: (c) => {
    const t = c.targets as unknown[];
    return Math.max(128, pyInt(t[0]) * pyInt(t[2]) * 3);
  },
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 3) return `must be [sentence count, lower, upper], got ${describe(t)}`;
    const p = intProblem(t[0], 1) ?? intProblem(t[1], 0) ?? intProblem(t[2], 0);
    if (p) return `every value ${p}`;
    if (isInt(t[1]) && isInt(t[2]) && t[1] > t[2]) return `lower bound ${t[1]} is above upper bound ${t[2]}`;
    return null;
  },
});

export const c12Family = makeFamily({
  name: 'c12',
  description: 'exactly N sentences whose final words are given',
  verify: verifyC12,
  report: reportC12,
  maxNewTokens: witnessSizedTokens,
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 2) return `must be [sentence count, [final word, …]], got ${describe(t)}`;
    const p = intProblem(t[0], 1);
    if (p) return `sentence count ${p}`;
    const w = stringListProblem(t[1], { min: 1 });
    return w ? `final words ${w}` : null;
  },
});
