// The remedy layer's policies applied to a revision round. The policies themselves live in src/remedy/
// (message policies, failure abstraction, ban lists, recurrence and cycle rules; docs/revise.md);
// this module binds them to the engine's round context, by name, so a run's plan names its harness
// and a resumed run or an audit rebuilds exactly the same requests.
//
// - A MessageBuilder builds the message list sent for one revision. The default, `verbatim`, is the
//   paper's: initial prompt, then the stripped drafts and verifier reports kept by the history
//   window. A harness can instead replace failed drafts with abstracted failure records, drop them,
//   or restart the window at recurrences; it sees every earlier exchange with its verifier state.
// - A BanProvider returns, per round, token sequences the decoder must never complete (for example
//   every earlier failed draft). It is passed to `generate` as `bannedSequences` and needs a model
//   with the `ban` capability; the run refuses at planning time otherwise. A provider marked
//   `answers` bans its strings as complete answers instead (`bannedAnswers`: the end of the answer
//   masked after them, the `banAnswers` capability; src/models/ban.ts).
//
// Both carry a `name` that is written into the run plan, so a run's protocol says which harness
// produced it and resuming under a different harness is refused.
import type { ChatMessage } from '../models/types.ts';
import type { ConstraintCase, Family, PromptVariant, VerifierState } from '../core/verify/types.ts';
import { namingOption, UsageError } from '../core/errors.ts';
import { buildHistoryMessages, type Exchange, type HistoryWindow } from '../remedy/history-window.ts';
import { buildRevisionMessages, type RevisionExchange } from '../remedy/revision-messages.ts';
import { messageRulesOf, policyName, POLICY_PRESETS } from '@revloop/revise';
import { banStrings } from '../remedy/ban.ts';
import { cycleAt, draftKey, type AttemptShape, type CycleFinding } from '../remedy/recurrence.ts';

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
  history: HistoryWindow;
  /** The revision about to be generated (0 = first draft). */
  revision: number;
  initialPrompt: string;
  /** Every earlier round, oldest first (all failed: the loop stops at the first success). */
  exchanges: readonly ExchangeRecord[];
}

/**
 * A harness hook: builds the message list of each revision from the round context. Its `name` is written into the run plan; the paper's
 * is `verbatimMessages`.
 */
export interface MessageBuilder {
  readonly name: string;
  build(ctx: RoundContext): ChatMessage[];
}

/**
 * A harness hook: the sequences the decoder must never complete in a round (passed to `generate` as `bannedSequences`; needs the model's
 * `ban` capability). Its `name` is written into the run plan.
 */
export interface BanProvider {
  readonly name: string;
  /** True: the strings are banned as complete answers (`bannedAnswers`), not as sequences. */
  readonly answers?: boolean;
  /** Sequences to ban for this round; undefined or empty for none. */
  sequences(ctx: RoundContext): string[] | undefined;
}

/** The paper's messages: the history window applied to the verbatim drafts and reports. */
export const verbatimMessages: MessageBuilder = {
  name: 'verbatim',
  build: (ctx) => buildHistoryMessages(ctx.initialPrompt, ctx.exchanges, ctx.history),
};

/**
 * A round as the recurrence rules see it (docs/revise.md §4): the paper's text identity (the
 * stripped text, docs/protocol.md §3.1), the violated components of the violation vector, and the
 * energy.
 */
export function roundShape(r: { draft: string; state: VerifierState; energy: number }): AttemptShape {
  return { key: draftKey(r.draft, 'exact'), violations: violationTags(r.state), measure: r.energy };
}

/** The violated components of a state's violation vector, as the recurrence rules' violation set (`v0`, `v2`, …). */
export function violationTags(state: VerifierState): string[] {
  const violations: string[] = [];
  const vector = state.violation_vector;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) violations.push(`v${i}`);
  return violations;
}

/** The cycle a round list ends in, if any. */
export function cycleOfRounds(rounds: ReadonlyArray<{ draft: string; state: VerifierState; energy: number }>): CycleFinding | null {
  return rounds.length ? cycleAt(rounds.map(roundShape), rounds.length - 1) : null;
}

/** Earlier failed drafts, banned at decoding (docs/harness.md §6 applied to revision loops). */
export const failedDraftsBan: BanProvider = {
  name: 'failed-drafts',
  sequences: (ctx) => banStrings(ctx.exchanges.map((e) => e.draft)),
};

/**
 * Complete repeats of earlier failed drafts, banned at decoding: the answer may not end where it
 * equals a failed draft, but may extend one (docs/revise.md §2). The same strings as
 * `failedDraftsBan`, passed as `bannedAnswers`.
 */
const completeRepeatsBan: BanProvider = {
  name: 'complete-repeats',
  answers: true,
  sequences: (ctx) => banStrings(ctx.exchanges.map((e) => e.draft)),
};

/** The message builder of a named policy (`verbatim`, `abstract`, `drop`, `reset-on-recurrence`, `revloop-default`). */
export function messageBuilderNamed(name: string): MessageBuilder {
  const canonical = policyName(name, 'messagePolicy');
  if (canonical === 'verbatim') return verbatimMessages;
  const preset = POLICY_PRESETS[canonical];
  return {
    name: canonical,
    build: (ctx) =>
      buildRevisionMessages(
        [{ role: 'user', content: ctx.initialPrompt }],
        // Object.assign, not a spread: docs/performance.md#hidden-classes
        ctx.exchanges.map((e): RevisionExchange => Object.assign({}, e, roundShape(e))),
        messageRulesOf(preset, ctx.history),
      ),
  };
}

/** The ban provider of a name recorded in a plan (null: none). */
export function banProviderNamed(name: string | null): BanProvider | undefined {
  if (name === null) return undefined;
  if (name === 'failed-drafts') return failedDraftsBan;
  if (name === 'complete-repeats') return completeRepeatsBan;
  throw namingOption(
    'banProvider',
    (n) => new UsageError(`${n}: unknown ban '${name}'; use failed-drafts or complete-repeats (or leave it out)`, { option: n }),
  );
}
