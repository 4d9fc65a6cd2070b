// The one owner of which text a family's verifier judges outside the revision loop (`revloop verify`,
// verifyBatch): the paper's families (exact-length, c05, c07, c09, c10, c12) and families that say
// nothing verify the stripped text (Python str.strip()), as the paper's protocol does with every
// draft; COLLIE's other structures and IFEval verify the text as given, as COLLIE's and
// google-research's checkers do (COLLIE's c04 counts every character, so a sentence of 107 characters
// followed by "\n\n" has 109). The revision loop keeps the paper's stripped drafts for every family
// (engine/loop.ts): this rule never changes a run, its records or its plan.
import { pyStrip } from '../py/format.ts';
import type { Family, TextRule } from './types.ts';

/** The rule a family declares (`stripped` when it says nothing). */
export function textRuleOf(family: Pick<Family, 'textRule'>): TextRule {
  return family.textRule === 'as-given' ? 'as-given' : 'stripped';
}

/** The text the family's verifier judges, from the text as given; `override` applies one rule to every family. */
export function textToVerify(family: Pick<Family, 'textRule'>, text: string, override?: TextRule): string {
  return (override ?? textRuleOf(family)) === 'stripped' ? pyStrip(text) : text;
}
