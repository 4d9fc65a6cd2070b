// The `ifeval` family: one IFEval prompt with its verifiable instructions. The state carries both
// official follow lists (strict and loose); joint success uses the case's mode (strict unless the
// case says loose: `revloop run|verify --ifeval-mode loose` sets it on every IFEval case, so the
// mode is part of the run plan and audits replay it). Feedback names each unmet instruction with
// what was measured and what is required; the wording is revloop's own (docs/verify.md).
import { describe, problems, textProblem } from '../checks.ts';
import { stateEnergy } from '../energy.ts';
import { structuredSuffix } from '../structured/prompt-feedback-text.ts';
import type { ConstraintCase, Family, PromptVariant, VerifierState } from '../types.ts';
import {
  IFEVAL_MODES,
  buildInstructions,
  evaluateIfeval,
  type IfevalMode,
  type IfevalTargets,
  type InstructionOutcome,
} from './evaluate.ts';
import type { BuiltInstruction } from './instructions.ts';

/** The state of the `ifeval` family: the mode, each instruction's strict and loose outcome, and the violation vector of the chosen mode. */
export interface IfevalState extends VerifierState {
  ifeval_mode: IfevalMode;
  instruction_id_list: string[];
  follow_instruction_list_strict: boolean[];
  follow_instruction_list_loose: boolean[];
  follow_all_instructions_strict: boolean;
  follow_all_instructions_loose: boolean;
  instructions: InstructionOutcome[];
}

function ifevalMode(c: ConstraintCase): IfevalMode {
  const mode = (c.targets as IfevalTargets | undefined)?.mode;
  return mode === 'loose' ? 'loose' : 'strict';
}

/** A copy of the case with its mode set (only IFEval cases change). */
export function withIfevalMode(c: ConstraintCase, mode: IfevalMode): ConstraintCase {
  if (c.family !== 'ifeval') return c;
  return { ...c, targets: { ...(c.targets as IfevalTargets), mode } };
}

// Built instructions per targets object: a case is verified once per round with the same targets.
const built = new WeakMap<object, BuiltInstruction[]>();

function instructionsOf(c: ConstraintCase): BuiltInstruction[] {
  const t = c.targets as IfevalTargets;
  let b = built.get(t);
  if (!b) {
    const r = buildInstructions(t);
    if (r.length && !('id' in (r[0] as object))) {
      const [i, message] = (r as Array<[number, string]>)[0];
      throw new TypeError(`kwargs[${i}] (${t.instruction_id_list[i]}): ${message}`);
    }
    b = r as BuiltInstruction[];
    built.set(t, b);
  }
  return b;
}

function verifyIfeval(text: string, c: ConstraintCase): IfevalState {
  const mode = ifevalMode(c);
  const t = c.targets as IfevalTargets;
  const e = evaluateIfeval(text, instructionsOf(c));
  const followed = mode === 'strict' ? e.follow_instruction_list_strict : e.follow_instruction_list_loose;
  return {
    joint_success: followed.every(Boolean),
    ifeval_mode: mode,
    instruction_id_list: [...t.instruction_id_list],
    follow_instruction_list_strict: e.follow_instruction_list_strict,
    follow_instruction_list_loose: e.follow_instruction_list_loose,
    follow_all_instructions_strict: e.follow_instruction_list_strict.every(Boolean),
    follow_all_instructions_loose: e.follow_instruction_list_loose.every(Boolean),
    instructions: e.outcomes,
    violation_vector: followed.map((f) => (f ? 0.0 : 1.0)),
  };
}

function ifevalReport(s: IfevalState): string {
  const followed = s.ifeval_mode === 'strict' ? s.follow_instruction_list_strict : s.follow_instruction_list_loose;
  const lines = [`- instructions followed (${s.ifeval_mode}): ${followed.filter(Boolean).length} of ${followed.length}`];
  s.instructions.forEach((o, i) => {
    if (!followed[i]) lines.push(`- ${o.instruction_id}: ${o.measured}; ${o.required}`);
  });
  return 'DETERMINISTIC VERIFIER REPORT\n' + lines.join('\n');
}

/** Tokens: 1024, or 2 per required word / 40 per required sentence when an "at least" length asks for more. */
function maxNewTokens(c: ConstraintCase): number {
  const t = c.targets as IfevalTargets;
  let n = 1024;
  t.instruction_id_list.forEach((id, i) => {
    const kw = t.kwargs[i] ?? {};
    if (id === 'length_constraints:number_words' && kw.relation === 'at least') n = Math.max(n, 2 * Number(kw.num_words));
    if (id === 'length_constraints:number_sentences' && kw.relation === 'at least') n = Math.max(n, 40 * Number(kw.num_sentences));
  });
  return n;
}

function targetsProblem(t: unknown): string | null {
  if (!t || typeof t !== 'object' || Array.isArray(t)) return `must be {instruction_id_list, kwargs}, got ${describe(t)}`;
  const x = t as Partial<IfevalTargets>;
  if (!Array.isArray(x.instruction_id_list) || x.instruction_id_list.length === 0)
    return `instruction_id_list must be a non-empty list of instruction ids, got ${describe(x.instruction_id_list)}`;
  if (!Array.isArray(x.kwargs) || x.kwargs.length !== x.instruction_id_list.length)
    return `kwargs must be a list with one object per instruction (${x.instruction_id_list.length}), got ${describe(x.kwargs)}`;
  if (x.mode !== undefined && !IFEVAL_MODES.includes(x.mode)) return `mode must be strict or loose, got ${describe(x.mode)}`;
  const bad = x.instruction_id_list.findIndex((id) => typeof id !== 'string');
  if (bad >= 0) return `instruction_id_list[${bad}] must be a string`;
  const r = buildInstructions(x as IfevalTargets);
  if (r.length && !('id' in (r[0] as object))) {
    const [i, message] = (r as Array<[number, string]>)[0];
    return `kwargs[${i}] (${x.instruction_id_list[i]}): ${message}`;
  }
  return null;
}

export const ifevalFamily: Family<IfevalState> = {
  name: 'ifeval',
  version: '1',
  description: "IFEval's verifiable instructions (25 types), strict or loose, as google-research's checker",
  verify: verifyIfeval,
  // google-research's checker judges the response as given (outside the revision loop: text-rule.ts).
  textRule: 'as-given',
  energy: stateEnergy,
  feedback: (state, _c, variant: PromptVariant = 'baseline') => `${ifevalReport(state)}\n${structuredSuffix(variant)}`,
  // IFEval's prompt exactly as the benchmark gives it, in every variant.
  initialPrompt: (c) => c.task ?? '',
  maxNewTokens,
  validateCase: (c) => problems(['task', textProblem(c.task, 'the IFEval prompt')], ['targets', targetsProblem(c.targets)]),
};
