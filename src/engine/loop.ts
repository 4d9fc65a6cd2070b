// The closed loop for one case: draft, verify, feed back, revise, until the first joint success or
// after revision T — the lab's adapter over the revise package's kernel (runLoop), which revise()
// runs too (docs/revise.md §1): the kernel drives the trajectory, this module binds it to a
// family, a case, the protocol and its harness, and reports every step to a sink (the store's
// recorder) in order. The engine keeps no state beyond one trajectory, so a resumed trajectory is
// just a call with the accepted rounds restored.
import { createHash } from 'node:crypto';
import {
  runLoop,
  stopAfterRevisions,
  stopOnCycle,
  stopOnSuccess,
  type GenerationStart,
  type LoopEnd,
  type LoopOutcome,
  type LoopRound,
  type NumberedAttempt,
  type StopCondition,
} from '@revloop/revise';
import type { AttemptRecord, ChatMessage, Model } from '../models/types.ts';
import type { RoundRecord } from '../store/types.ts';
import { ListHasher } from '../core/util/hash.ts';
import type { ConstraintCase, Family, VerifierState } from '../core/verify/types.ts';
import {
  banProviderNamed,
  messageBuilderNamed,
  verbatimMessages,
  violationTags,
  type ExchangeRecord,
  type RoundContext,
} from './round-policy.ts';
import type { BanProvider, MessageBuilder } from './round-policy.ts';
import { stopsOnCycle, type ProtocolConfig } from './protocol.ts';

export type { NumberedAttempt };

/** A round as the engine keeps it: the record plus the feedback sent after it (null when it stopped). */
export interface AcceptedRound extends RoundRecord {
  feedback: string | null;
}

/**
 * success / budget: the stop rule; cycle: a persistent cycle ended the loop (harnesses whose cycle
 * action is `stop`, docs/revise.md §4); context_limit: a generation guard ended it (docs/protocol.md §3.13).
 */
export type StopReason = 'success' | 'budget' | 'cycle' | 'context_limit';

/** Why a guard ended a trajectory before a generation. */
export interface GuardStop {
  stop: 'context_limit';
  /** In words: the counts that ended it. */
  detail: string;
}

/**
 * A check before every generation (the extended-budget experiment's context window, docs/protocol.md
 * §3.13): null lets the generation go ahead; a GuardStop ends the trajectory there, complete, with
 * that termination instead of the stop rule's. Its `name` is written into the run plan.
 */
export interface GenerationGuard {
  readonly name: string;
  check(messages: ChatMessage[], maxTokens: number, revision: number): Promise<GuardStop | null>;
}

/**
 * What a `TrajectorySink` learns when a generation starts: the revision, the hash and size of the messages sent, the token limit and any
 * bans.
 */
export interface AttemptStart {
  revision: number;
  /** SHA-256 of the canonical JSON of the message list sent. */
  messagesSha256: string;
  messageCount: number;
  /** null: unset, the backend's own limit (a revise() call without maxTokens). */
  maxTokens: number | null;
  bannedSequences?: string[];
  /** Complete answers banned (a ban provider marked `answers`). */
  bannedAnswers?: string[];
}

/**
 * Receives every step of a trajectory, in order; each call is one durable write. A round is one
 * write: the successful attempt, the verified draft, and either the end of the trajectory or the
 * start of the next generation, so a process that dies loses at most the attempts in flight.
 * `attemptStarted` and `draftAccepted` may return a promise (a store's group commit): the engine
 * awaits what they return before it starts the generation they announce. (Typed `unknown` so that
 * sinks returning anything else, e.g. `(r) => list.push(r)`, stay valid, as with `void`.)
 */
export interface TrajectorySink {
  /** The first generation of this session starts (later ones arrive with draftAccepted). */
  attemptStarted(start: AttemptStart): unknown;
  /** A failed provider attempt (it is never scored); a sink that writes it durably commits it before the next round's write. */
  attemptFinished(revision: number, attempt: number, record: AttemptRecord): void;
  /**
   * A verified draft with the attempt that produced it; `stop` is set when the stop rule (or a
   * guard: `detail` then says why) ends the trajectory with it, otherwise `next` is the generation
   * that starts now.
   */
  draftAccepted(
    round: AcceptedRound,
    stop: StopReason | null,
    attempt: NumberedAttempt,
    next: AttemptStart | null,
    detail?: string,
  ): unknown;
  /** The generation's attempts were exhausted: the trajectory is protocol-incomplete (awaited). */
  incomplete(revision: number, reason: string): unknown;
  /**
   * A guard ended the trajectory before the first generation of this session, after `rounds`
   * accepted rounds (awaited). Needed only by sinks of runs with a guard.
   */
  terminated?(rounds: number, stop: GuardStop): unknown;
}

/** One case to run: its index and case, its family, the prompt variant, and rounds already accepted (when resuming). */
export interface TrajectoryJob {
  caseIndex: number;
  case: ConstraintCase;
  family: Family;
  /** Rounds already accepted (resume); empty for a fresh trajectory. */
  prior: AcceptedRound[];
}

/**
 * Options of `runTrajectory`: the protocol, the harness hooks (default: the paper's verbatim messages, no bans), extra request fields,
 * and an abort signal.
 */
export interface EngineOptions {
  protocol: ProtocolConfig;
  messagePolicy?: MessageBuilder;
  banProvider?: BanProvider;
  /** End a trajectory at a persistent cycle (default: the protocol's message policy decides). */
  stopOnCycle?: boolean;
  /** Checked before every generation; may end the trajectory (context_limit). In a stored run its settings belong in the plan. */
  guard?: GenerationGuard;
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** How `runTrajectory` ended: complete (with its stop reason), protocol-incomplete (with the reason), or aborted. */
export type TrajectoryOutcome =
  | { status: 'complete'; rounds: AcceptedRound[]; stop: StopReason }
  | { status: 'incomplete'; rounds: AcceptedRound[]; reason: string }
  | { status: 'aborted'; rounds: AcceptedRound[] };

/**
 * SHA-256 identifying a message list (role and content of each message, in order): the hash of
 * JSON.stringify(messages.map((m) => [m.role, m.content])), fed message by message.
 */
export function messagesSha256(messages: ChatMessage[]): string {
  const h = createHash('sha256').update('[');
  for (let i = 0; i < messages.length; i++) h.update((i ? ',' : '') + serializeMessage(messages[i]));
  return h.update(']').digest('hex');
}

const serializeMessage = (m: ChatMessage) => JSON.stringify([m.role, m.content]);
const sameMessage = (a: ChatMessage, b: ChatMessage) => a.role === b.role && a.content === b.content;

/** messagesSha256 for the growing message lists of one trajectory (hashes only what each round adds). */
export function messagesHasher(): (messages: ChatMessage[]) => string {
  const hasher = new ListHasher<ChatMessage>(serializeMessage, sameMessage);
  return (messages) => hasher.digest(messages);
}

/** The stop rule: stop at the first joint success, or after revision `budget`. */
export function stopReason(joint: boolean, revision: number, budget: number): StopReason | null {
  if (joint) return 'success';
  if (revision >= budget) return 'budget';
  return null;
}

export function toExchange(r: AcceptedRound): ExchangeRecord {
  if (r.feedback === null) throw new Error(`round ${r.revision} has no feedback but the trajectory continued`);
  return { revision: r.revision, draft: r.text, feedback: r.feedback, state: r.state, energy: r.energy, joint: r.joint };
}

/** A kernel round as the engine records it. */
function acceptedRound(r: LoopRound<VerifierState>): AcceptedRound {
  return { revision: r.index, text: r.draft, state: r.state, energy: r.measure, joint: r.ok, feedback: r.feedback };
}

/** The exchanges of the rounds so far (a loop into a literal, not map(): docs/performance.md#deoptimisations). */
function toExchanges(rounds: readonly LoopRound<VerifierState>[]): ExchangeRecord[] {
  const out: ExchangeRecord[] = [];
  for (const r of rounds) {
    if (r.feedback === null) throw new Error(`round ${r.index} has no feedback but the trajectory continued`);
    out.push({ revision: r.index, draft: r.draft, feedback: r.feedback, state: r.state, energy: r.measure, joint: r.ok });
  }
  return out;
}

/** The lab's names of the kernel's stop conditions (its `budget` is the kernel's `revisions`). */
const STOP_NAMES: Readonly<Record<string, StopReason>> = { success: 'success', revisions: 'budget', cycle: 'cycle' };

/**
 * The revision loop for one case without a store (docs/protocol.md §2): draft, verify, feed back, revise until joint success or the
 * budget, reporting every step to `sink`. A provider fault makes the trajectory incomplete, never a scored draft.
 */
export function runTrajectory(job: TrajectoryJob, model: Model, sink: TrajectorySink, options: EngineOptions): Promise<TrajectoryOutcome> {
  const { protocol, signal, guard } = options;
  const { family, case: c } = job;
  const policy =
    options.messagePolicy ?? (protocol.messagePolicy === 'verbatim' ? verbatimMessages : messageBuilderNamed(protocol.messagePolicy));
  const banProvider = options.banProvider ?? (protocol.banProvider ? banProviderNamed(protocol.banProvider) : undefined);
  const cycles = options.stopOnCycle ?? stopsOnCycle(protocol.messagePolicy);
  const initialPrompt = family.initialPrompt(c, protocol.variant);
  const maxTokens = family.maxNewTokens(c);
  const hashMessages = messagesHasher();
  const stopWhen: StopCondition<VerifierState>[] = [stopOnSuccess(), stopAfterRevisions(protocol.budget)];
  if (cycles) stopWhen.push(stopOnCycle());

  /** The recorded start of a generation: the hash and size of its messages, its token limit and bans. */
  const startOf = (s: GenerationStart): AttemptStart => {
    const { messages, bannedSequences, bannedAnswers } = s.request;
    const messagesSha256 = hashMessages(messages);
    return bannedAnswers
      ? { revision: s.index, messagesSha256, messageCount: messages.length, maxTokens, bannedAnswers }
      : { revision: s.index, messagesSha256, messageCount: messages.length, maxTokens, bannedSequences };
  };
  const reasonOf = (end: Extract<LoopEnd, { status: 'incomplete' }>): string =>
    end.cause === 'guard' ? `revision ${end.index}: ${guard!.name} check failed: ${end.message}` : `revision ${end.index}: ${end.message}`;

  // A literal, not `job.prior.slice()`: docs/performance.md#deoptimisations
  const accepted: AcceptedRound[] = [];
  for (const r of job.prior) accepted.push(r);
  // Not an async function: no extra layer of promises between the kernel and the run's pool.
  const outcome = (o: LoopOutcome<VerifierState>): TrajectoryOutcome => {
    const end = o.end;
    if (end.status === 'aborted') return { status: 'aborted', rounds: accepted };
    if (end.status === 'incomplete') return { status: 'incomplete', rounds: accepted, reason: reasonOf(end) };
    return { status: 'complete', rounds: accepted, stop: (STOP_NAMES[end.reason] ?? end.reason) as StopReason };
  };
  return runLoop<VerifierState>({
    model,
    call: { temperature: protocol.temperature ?? undefined, seed: protocol.seed ?? undefined, extraBody: options.extraBody },
    verifier: {
      verify: (draft) => {
        const state = family.verify(draft, c);
        return { ok: state.joint_success === true, state, violations: violationTags(state), measure: family.energy(state) };
      },
      feedback: (round) => family.feedback(round.state, c, protocol.variant),
    },
    policy: {
      request: (rounds, revision) => {
        const ctx: RoundContext = {
          case: c,
          family,
          variant: protocol.variant,
          history: protocol.history,
          revision,
          initialPrompt,
          exchanges: toExchanges(rounds),
        };
        const banned = banProvider?.sequences(ctx);
        const bans = banned && banned.length ? banned : undefined;
        const messages = policy.build(ctx);
        return banProvider?.answers ? { messages, bannedAnswers: bans, maxTokens } : { messages, bannedSequences: bans, maxTokens };
      },
    },
    stopWhen,
    guard: guard
      ? async (request, revision) => {
          const halt = await guard.check(request.messages, maxTokens, revision);
          return halt ? { reason: halt.stop, detail: halt.detail } : null;
        }
      : undefined,
    identity: 'exact',
    prior: job.prior.map((r) => ({
      index: r.revision,
      draft: r.text,
      ok: r.joint,
      state: r.state,
      violations: violationTags(r.state),
      measure: r.energy,
      feedback: r.feedback,
    })),
    signal,
    sink: {
      started: (s) => sink.attemptStarted(startOf(s)),
      attempt: (revision, attempt, record) => {
        if (!record.ok) sink.attemptFinished(revision, attempt, record);
      },
      drafted: (r, end, generation, next) => {
        const round = acceptedRound(r);
        accepted.push(round);
        // The kernel ends a trajectory at a draft only by a stop (a stop rule, or the guard before the next generation).
        if (end === null || end.status !== 'stopped') return sink.draftAccepted(round, null, generation.used, next ? startOf(next) : null);
        const stop = (STOP_NAMES[end.reason] ?? end.reason) as StopReason;
        // A stop rule's completion carries no detail; a guard's says why.
        return end.when === 'draft'
          ? sink.draftAccepted(round, stop, generation.used, null)
          : sink.draftAccepted(round, stop, generation.used, null, end.detail);
      },
      ended: async (end) => {
        if (end.status === 'incomplete') return sink.incomplete(end.index, reasonOf(end));
        if (end.status !== 'stopped') return;
        if (!sink.terminated) throw new Error('a generation guard needs a sink that records terminations');
        return sink.terminated(accepted.length, { stop: end.reason as GuardStop['stop'], detail: end.detail });
      },
    },
  }).then(outcome);
}
