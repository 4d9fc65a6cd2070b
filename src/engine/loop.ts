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
import { verbatimPolicy, type BanProvider, type ExchangeRecord, type MessagePolicy, type RoundContext } from './harness.ts';
import type { ProtocolConfig } from './protocol.ts';

/** A round as the engine keeps it: the record plus the feedback sent after it (null when it stopped). */
export interface AcceptedRound extends RoundRecord {
  feedback: string | null;
}

export type StopReason = 'success' | 'budget';

export interface AttemptStart {
  revision: number;
  /** SHA-256 of the canonical JSON of the message list sent. */
  messagesSha256: string;
  messageCount: number;
  maxTokens: number;
  bannedSequences?: string[];
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
   * A verified draft with the attempt that produced it; `stop` is set when the stop rule ends the
   * trajectory with it, otherwise `next` is the generation that starts now.
   */
  draftAccepted(round: AcceptedRound, stop: StopReason | null, attempt: NumberedAttempt, next: AttemptStart | null): unknown;
  /** The generation's attempts were exhausted: the trajectory is protocol-incomplete (awaited). */
  incomplete(revision: number, reason: string): unknown;
}

export interface TrajectoryJob {
  caseIndex: number;
  case: ConstraintCase;
  family: Family;
  /** Rounds already accepted (resume); empty for a fresh trajectory. */
  prior: AcceptedRound[];
}

export interface EngineOptions {
  protocol: ProtocolConfig;
  messagePolicy?: MessagePolicy;
  banProvider?: BanProvider;
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
}

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

/** Verifies one stripped draft and, if the loop goes on, renders the feedback the model will see. */
export function acceptDraft(
  job: TrajectoryJob,
  revision: number,
  rawText: string,
  protocol: ProtocolConfig,
): { round: AcceptedRound; stop: StopReason | null } {
  const text = pyStrip(rawText);
  const state = job.family.verify(text, job.case);
  const energy = job.family.energy(state);
  const joint = state.joint_success === true;
  const stop = stopReason(joint, revision, protocol.budget);
  const feedback = stop ? null : job.family.feedback(state, job.case, protocol.variant);
  return { round: { revision, text, state, energy, joint, feedback }, stop };
}

function isAbort(e: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || (e as Error)?.name === 'AbortError';
}

export async function runTrajectory(
  job: TrajectoryJob,
  model: Model,
  sink: TrajectorySink,
  options: EngineOptions,
): Promise<TrajectoryOutcome> {
  const { protocol, signal } = options;
  const policy = options.messagePolicy ?? verbatimPolicy;
  const rounds = job.prior.slice();
  const last = rounds[rounds.length - 1];
  if (last) {
    const stop = stopReason(last.joint, last.revision, protocol.budget);
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
      exchanges: rounds.map(toExchange),
    };
    const messages = policy.build(ctx);
    const banned = options.banProvider?.sequences(ctx);
    const bannedSequences = banned && banned.length ? banned : undefined;
    return {
      messages,
      start: { revision, messagesSha256: hashMessages(messages), messageCount: messages.length, maxTokens, bannedSequences },
    };
  };

  let prepared: { messages: ChatMessage[]; start: AttemptStart } | null = null;
  for (let revision = rounds.length; revision <= protocol.budget; revision++) {
    if (signal?.aborted) return { status: 'aborted', rounds };
    // The next generation's start was recorded with the previous draft; only the first is alone.
    const { messages, start } = prepared ?? prepare(revision);
    if (!prepared) await sink.attemptStarted(start);

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
    const { round, stop } = acceptDraft(job, revision, text, protocol);
    rounds.push(round);
    const next = stop ? null : prepare(revision + 1);
    await sink.draftAccepted(round, stop, used, next?.start ?? null);
    if (stop) return { status: 'complete', rounds, stop };
    prepared = next;
  }
  // Unreachable: revision === budget always stops.
  throw new Error('stop rule not reached');
}
