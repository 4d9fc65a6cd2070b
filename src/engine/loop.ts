// The closed loop for one case: draft, verify, feed back, revise, until the first joint success or
// after revision T. Everything it does is reported to a sink (the store's recorder) in order; the
// engine itself keeps no state beyond one trajectory, so a resumed trajectory is just a call with
// the accepted rounds restored.
import { createHash } from 'node:crypto';
import type { AttemptRecord, ChatMessage, Model } from '../models/types.ts';
import type { RoundRecord } from '../store/types.ts';
import { UserError } from '../core/errors.ts';
import { pyStrip } from '../core/py/format.ts';
import { ListHasher } from '../core/util/hash.ts';
import type { ConstraintCase, Family } from '../core/verify/types.ts';
import {
  banProviderNamed,
  cycleOfRounds,
  messagePolicyNamed,
  stopsOnCycle,
  verbatimPolicy,
  type BanProvider,
  type ExchangeRecord,
  type MessagePolicy,
  type RoundContext,
} from './harness.ts';
import type { ProtocolConfig } from './protocol.ts';

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
  maxTokens: number;
  bannedSequences?: string[];
  /** Complete answers banned (a ban provider marked `answers`). */
  bannedAnswers?: string[];
}

/** A successful provider attempt, numbered from 1 within its generation (retries included). */
export interface NumberedAttempt {
  attempt: number;
  record: AttemptRecord;
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
  messagePolicy?: MessagePolicy;
  banProvider?: BanProvider;
  /** End a trajectory at a persistent cycle (default: the protocol's message policy decides). */
  stopOnCycle?: boolean;
  /** Checked before every generation; may end the trajectory (context_limit). */
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

/**
 * The exchanges of the rounds so far. A loop into a literal, not `rounds.map(toExchange)`: once this
 * path is optimised, Turbofan's inlined map() builds its arrays with another elements kind than the
 * builtin did, and every function compiled for the builtin's arrays (the history window, the message
 * hashes) deoptimised at the first one (docs/running.md, round 14). A literal's allocation site keeps
 * one kind for both.
 */
function toExchanges(rounds: readonly AcceptedRound[]): ExchangeRecord[] {
  const out: ExchangeRecord[] = [];
  for (const r of rounds) out.push(toExchange(r));
  return out;
}

/** Verifies one stripped draft and, if the loop goes on, renders the feedback the model will see. */
function acceptDraft(
  job: TrajectoryJob,
  revision: number,
  rawText: string,
  protocol: ProtocolConfig,
  cycleStop: { earlier: readonly AcceptedRound[] } | null = null,
): { round: AcceptedRound; stop: StopReason | null } {
  const text = pyStrip(rawText);
  const state = job.family.verify(text, job.case);
  const energy = job.family.energy(state);
  const joint = state.joint_success === true;
  let stop = stopReason(joint, revision, protocol.budget);
  if (!stop && cycleStop) {
    const rounds = [...cycleStop.earlier, { text, state, energy }].map((r) => ({ draft: r.text, state: r.state, energy: r.energy }));
    if (cycleOfRounds(rounds)) stop = 'cycle';
  }
  const feedback = stop ? null : job.family.feedback(state, job.case, protocol.variant);
  return { round: { revision, text, state, energy, joint, feedback }, stop };
}

function isAbort(e: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || (e as Error)?.name === 'AbortError';
}

/**
 * The revision loop for one case without a store (docs/protocol.md §2): draft, verify, feed back, revise until joint success or the
 * budget, reporting every step to `sink`. A provider fault makes the trajectory incomplete, never a scored draft.
 */
export async function runTrajectory(
  job: TrajectoryJob,
  model: Model,
  sink: TrajectorySink,
  options: EngineOptions,
): Promise<TrajectoryOutcome> {
  const { protocol, signal } = options;
  const policy =
    options.messagePolicy ?? (protocol.messagePolicy === 'verbatim' ? verbatimPolicy : messagePolicyNamed(protocol.messagePolicy));
  const banProvider = options.banProvider ?? (protocol.banProvider ? banProviderNamed(protocol.banProvider) : undefined);
  const cycles = options.stopOnCycle ?? stopsOnCycle(protocol.messagePolicy);
  // A literal, not `job.prior.slice()`: the literal's allocation site learns that it holds objects,
  // so later trajectories' lists start with that elements kind and pushing a round never changes it
  // (a slice of an empty list did, which deoptimised this loop once warm: docs/running.md, round 14).
  const rounds: AcceptedRound[] = [];
  for (const r of job.prior) rounds.push(r);
  const last = rounds[rounds.length - 1];
  if (last) {
    const stop =
      stopReason(last.joint, last.revision, protocol.budget) ??
      (cycles && cycleOfRounds(rounds.map((r) => ({ draft: r.text, state: r.state, energy: r.energy }))) ? 'cycle' : null);
    if (stop) return { status: 'complete', rounds, stop };
  }
  const initialPrompt = job.family.initialPrompt(job.case, protocol.variant);
  const maxTokens = job.family.maxNewTokens(job.case);
  const hashMessages = messagesHasher();

  /** The messages (and bans) of one revision, from the rounds accepted so far. */
  const prepare = (revision: number): { messages: ChatMessage[]; start: AttemptStart } => {
    const ctx: RoundContext = {
      case: job.case,
      family: job.family,
      variant: protocol.variant,
      history: protocol.history,
      revision,
      initialPrompt,
      exchanges: toExchanges(rounds),
    };
    const messages = policy.build(ctx);
    const banned = banProvider?.sequences(ctx);
    const bans = banned && banned.length ? banned : undefined;
    const messagesSha256 = hashMessages(messages);
    const messageCount = messages.length;
    const start: AttemptStart = banProvider?.answers
      ? { revision, messagesSha256, messageCount, maxTokens, bannedAnswers: bans }
      : { revision, messagesSha256, messageCount, maxTokens, bannedSequences: bans };
    return { messages, start };
  };

  /** The guard's verdict on a request; 'failed' when the check itself failed (guardFailure says why). */
  let guardFailure: string | null = null;
  const checkGuard = async (messages: ChatMessage[], revision: number): Promise<GuardStop | null | 'failed'> => {
    if (!options.guard) return null;
    try {
      return await options.guard.check(messages, maxTokens, revision);
    } catch (e) {
      if (e instanceof UserError) throw e;
      guardFailure = `revision ${revision}: ${options.guard.name} check failed: ${(e as Error)?.message ?? String(e)}`;
      return 'failed';
    }
  };

  let prepared: { messages: ChatMessage[]; start: AttemptStart } | null = null;
  for (let revision = rounds.length; revision <= protocol.budget; revision++) {
    if (signal?.aborted) return { status: 'aborted', rounds };
    // The next generation's start was recorded with the previous draft; only the first is alone.
    const { messages, start } = prepared ?? prepare(revision);
    if (!prepared) {
      const halt = options.guard ? await checkGuard(messages, revision) : null;
      if (halt === 'failed') {
        await sink.incomplete(revision, guardFailure!);
        return { status: 'incomplete', rounds, reason: guardFailure! };
      }
      if (halt) {
        if (!sink.terminated) throw new Error('a generation guard needs a sink that records terminations');
        await sink.terminated(rounds.length, halt);
        return { status: 'complete', rounds, stop: halt.stop };
      }
      await sink.attemptStarted(start);
    }

    let attempt = 0;
    let lastError: string | null = null;
    let succeeded: NumberedAttempt | null = null;
    let text: string | null;
    try {
      const result = await model.generate(messages, {
        maxTokens,
        temperature: protocol.temperature ?? undefined,
        seed: protocol.seed ?? undefined,
        bannedSequences: start.bannedSequences,
        bannedAnswers: start.bannedAnswers,
        extraBody: options.extraBody,
        signal,
        onAttempt: (record) => {
          if (signal?.aborted) return;
          attempt++;
          if (record.ok) {
            succeeded = { attempt, record };
            return;
          }
          lastError = record.error ? `${record.error.kind}: ${record.error.message}` : 'failed';
          sink.attemptFinished(revision, attempt, record);
        },
      });
      text = result.text;
    } catch (e) {
      if (isAbort(e, signal)) return { status: 'aborted', rounds };
      // Mistakes in the configuration (a missing key, a capability) concern the whole run.
      if (e instanceof UserError) throw e;
      const reason = `revision ${revision}: generation failed: ${(e as Error)?.message ?? String(e)}`;
      await sink.incomplete(revision, reason);
      return { status: 'incomplete', rounds, reason };
    }
    if (signal?.aborted) return { status: 'aborted', rounds };
    if (text === null) {
      const tries = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
      const reason = `revision ${revision}: provider attempts exhausted (${tries})${lastError ? `; last error: ${lastError}` : ''}`;
      await sink.incomplete(revision, reason);
      return { status: 'incomplete', rounds, reason };
    }
    // A backend that returned text without reporting its attempt still gets one on record.
    const used: NumberedAttempt = succeeded ?? {
      attempt: attempt + 1,
      record: { ok: true, text, startedAt: new Date().toISOString(), latencyMs: 0, meta: { unreported: true } },
    };
    const { round, stop } = acceptDraft(job, revision, text, protocol, cycles ? { earlier: rounds } : null);
    rounds.push(round);
    const next = stop ? null : prepare(revision + 1);
    // The guard sees the next request before its start is recorded with this draft.
    const halt = next && options.guard ? await checkGuard(next.messages, revision + 1) : null;
    if (halt === 'failed') {
      await sink.draftAccepted(round, null, used, null);
      await sink.incomplete(revision + 1, guardFailure!);
      return { status: 'incomplete', rounds, reason: guardFailure! };
    }
    if (halt) {
      await sink.draftAccepted(round, halt.stop, used, null, halt.detail);
      return { status: 'complete', rounds, stop: halt.stop };
    }
    await sink.draftAccepted(round, stop, used, next?.start ?? null);
    if (stop) return { status: 'complete', rounds, stop };
    prepared = next;
  }
  // Unreachable: revision === budget always stops.
  throw new Error('stop rule not reached');
}
