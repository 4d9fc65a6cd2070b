// The harness variants of the agent study (docs/harness.md §5.1): how failed steps enter the context, an
// optional do-not-repeat instruction, and an optional decoder ban of earlier failed actions. The
// study compared six; `drop+ban` is registered but was not run.
import type { AgentHistoryPolicy } from '../../remedy/messages.ts';
import { UserError } from '../../core/errors.ts';

/** A harness variant: how failed steps appear in the context, and whether failed actions are banned at decoding time. */
export interface Harness {
  name: HarnessName;
  policy: AgentHistoryPolicy;
  /** Ban previously failed actions at decoding time (needs the backend's `ban` capability). */
  ban: boolean;
}

/** The harness variants' names. */
export const HARNESS_NAMES = ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban', 'drop+ban'] as const;
/** The name of a harness variant. */
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The six harnesses of the study, in the reference's reporting order. */
export const STUDY_HARNESSES: readonly HarnessName[] = ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban'];

/** Every harness variant by name: its history policy and whether failed actions are banned. */
export const HARNESSES: Readonly<Record<HarnessName, Harness>> = {
  verbatim: { name: 'verbatim', policy: { failurePolicy: 'verbatim' }, ban: false },
  'verbatim+instr': { name: 'verbatim+instr', policy: { failurePolicy: 'verbatim', negativeInstruction: true }, ban: false },
  abstract: { name: 'abstract', policy: { failurePolicy: 'abstract' }, ban: false },
  drop: { name: 'drop', policy: { failurePolicy: 'drop' }, ban: false },
  'verbatim+ban': { name: 'verbatim+ban', policy: { failurePolicy: 'verbatim' }, ban: true },
  'abstract+ban': { name: 'abstract+ban', policy: { failurePolicy: 'abstract' }, ban: true },
  'drop+ban': { name: 'drop+ban', policy: { failurePolicy: 'drop' }, ban: true },
};

/** The harness of this name. Throws a UserError naming the known harnesses for an unknown one. */
export function getHarness(name: string): Harness {
  if (!(HARNESS_NAMES as readonly string[]).includes(name)) {
    throw new UserError(`unknown harness "${name}"; choose one of ${HARNESS_NAMES.join(', ')}`);
  }
  return HARNESSES[name as HarnessName];
}
