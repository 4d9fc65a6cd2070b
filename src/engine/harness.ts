// Extension points for harness variants (a later issue adds them; the engine only calls them).
//
// - A MessagePolicy builds the message list sent for one revision. The default, `verbatim`, is the
//   paper's: initial prompt, then the stripped drafts and verifier reports kept by the history
//   policy. A harness can instead replace failed drafts with abstracted failure records, drop them,
//   or add an instruction; it sees every earlier exchange with its verifier state.
// - A BanProvider returns, per round, token sequences the decoder must never complete (for example
//   every earlier failed draft). It is passed to `generate` as `bannedSequences` and needs a model
//   with the `ban` capability; the run refuses at planning time otherwise.
//
// Both carry a `name` that is written into the run plan, so a run's protocol says which harness
// produced it and resuming under a different harness is refused.
import type { ChatMessage } from '../models/types.ts';
import type { ConstraintCase, Family, PromptVariant, VerifierState } from '../core/verify/types.ts';
import { buildHistoryMessages, type Exchange, type HistoryPolicy } from './history.ts';

/** An earlier round with everything the verifier said about it. */
export interface ExchangeRecord extends Exchange {
  state: VerifierState;
  energy: number;
  joint: boolean;
}

/** What a policy knows when the engine asks for the messages of one revision. */
export interface RoundContext {
  case: ConstraintCase;
  family: Family;
  variant: PromptVariant;
  history: HistoryPolicy;
  /** The revision about to be generated (0 = first draft). */
  revision: number;
  initialPrompt: string;
  /** Every earlier round, oldest first (all failed: the loop stops at the first success). */
  exchanges: readonly ExchangeRecord[];
}

/**
 * A harness hook: builds the message list of each revision from the round context. Its `name` is written into the run plan; the paper's
 * is `verbatimPolicy`.
 */
export interface MessagePolicy {
  readonly name: string;
  build(ctx: RoundContext): ChatMessage[];
}

/**
 * A harness hook: the sequences the decoder must never complete in a round (passed to `generate` as `bannedSequences`; needs the model's
 * `ban` capability). Its `name` is written into the run plan.
 */
export interface BanProvider {
  readonly name: string;
  /** Sequences to ban for this round; undefined or empty for none. */
  sequences(ctx: RoundContext): string[] | undefined;
}

/** The paper's messages: the history policy applied to the verbatim drafts and reports. */
export const verbatimPolicy: MessagePolicy = {
  name: 'verbatim',
  build: (ctx) => buildHistoryMessages(ctx.initialPrompt, ctx.exchanges, ctx.history),
};
