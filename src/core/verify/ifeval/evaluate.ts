// IFEval's strict and loose evaluation (evaluation_lib.test_instruction_following_strict / _loose):
// strict checks the response as it is; loose accepts an instruction when any of eight variants
// passes (the response, without its first line, without its last line, without both, and each of
// those with every "*" removed). An empty or all-whitespace variant never passes.
import { pyStrip } from '../../py/format.ts';
import { buildInstruction, checkInstruction, createCheckContext, type BuiltInstruction, type CheckResult } from './instructions.ts';

/** An IFEval judging mode (see `IFEVAL_MODES`). */
export type IfevalMode = 'strict' | 'loose';
/**
 * IFEval's two ways of judging a response: `strict`, or `loose` (also passes when a variant without the first or last line or markdown
 * emphasis passes).
 */
export const IFEVAL_MODES: readonly IfevalMode[] = ['strict', 'loose'];

/** An IFEval case's targets: the row's instruction ids and kwargs, and the mode joint success uses. */
export interface IfevalTargets {
  instruction_id_list: string[];
  kwargs: Array<Record<string, unknown>>;
  /** Which follow list decides joint success; strict when absent. */
  mode?: IfevalMode;
}

/** One IFEval instruction's outcome in a state: its id and whether it was followed strictly and loosely. */
export interface InstructionOutcome {
  instruction_id: string;
  followed_strict: boolean;
  followed_loose: boolean;
  /** Measured on the response as it is (strict). */
  measured: string;
  required: string;
}

interface IfevalEvaluation {
  follow_instruction_list_strict: boolean[];
  follow_instruction_list_loose: boolean[];
  outcomes: InstructionOutcome[];
}

/** The eight responses the loose mode tries, in the official order. */
export function looseVariants(response: string): string[] {
  const r = response.split('\n');
  const removeFirst = pyStrip(r.slice(1).join('\n'));
  const removeLast = pyStrip(r.slice(0, -1).join('\n'));
  const removeBoth = pyStrip(r.slice(1, -1).join('\n'));
  const noStars = (s: string) => s.replaceAll('*', '');
  return [response, noStars(response), removeFirst, removeLast, removeBoth, noStars(removeFirst), noStars(removeLast), noStars(removeBoth)];
}

/** Builds every instruction of a case; the problems as [kwargs index, message] when any cannot be built. */
export function buildInstructions(t: IfevalTargets): BuiltInstruction[] | Array<[number, string]> {
  const built: BuiltInstruction[] = [];
  const problems: Array<[number, string]> = [];
  t.instruction_id_list.forEach((id, i) => {
    const b = buildInstruction(id, t.kwargs[i]);
    if (typeof b === 'string') problems.push([i, b]);
    else built.push(b);
  });
  return problems.length ? problems : built;
}

/** Evaluates a response against built instructions in both modes. */
export function evaluateIfeval(response: string, instructions: readonly BuiltInstruction[]): IfevalEvaluation {
  const ctx = createCheckContext();
  const variants = looseVariants(response);
  const strictGate = pyStrip(response) !== '';
  const outcomes = instructions.map((b): InstructionOutcome => {
    const strict: CheckResult = checkInstruction(b, response, ctx);
    const followedStrict = strictGate && strict.followed;
    let followedLoose = followedStrict;
    if (!followedLoose) {
      for (let i = 1; i < variants.length; i++) {
        const v = variants[i];
        if (pyStrip(v) !== '' && checkInstruction(b, v, ctx).followed) {
          followedLoose = true;
          break;
        }
      }
    }
    return {
      instruction_id: b.id,
      followed_strict: followedStrict,
      followed_loose: followedLoose,
      measured: strictGate ? strict.measured : 'the response is empty',
      required: strict.required,
    };
  });
  return {
    follow_instruction_list_strict: outcomes.map((o) => o.followed_strict),
    follow_instruction_list_loose: outcomes.map((o) => o.followed_loose),
    outcomes,
  };
}
