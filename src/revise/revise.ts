// revise(): the revision controller (docs/revise.md). Draft, verify, feed back, revise, under a
// policy from the harness layer (src/remedy/: message policies, failure abstraction, ban lists,
// recurrence and cycle rules) and a budget checked before every generation. Every provider attempt
// is counted, failed ones included; the result says why the loop stopped, what it cost, where it
// cycled and which draft was best, on every status.
import { createModel } from '../models/index.ts';
import type { AttemptRecord, ChatMessage, Model } from '../models/types.ts';
import { CapabilityError, UsageError } from '../core/errors.ts';
import { pyStrip } from '../core/py/format.ts';
import { sha256Hex } from '../core/util/hash.ts';
import {
  banKindFor,
  banStrings,
  buildRevisionMessages,
  cycleAt,
  draftKey,
  messagePolicyOf,
  recurrenceOf,
  REVLOOP_DEFAULT_POLICY,
  violationSet,
  violationTag,
  windowStart,
  type RevisionExchange,
  type RevisionPolicy,
} from '../remedy/index.ts';
import { messagesSha256 } from '../engine/loop.ts';
import { aiSdkModel, isAiSdkModel } from './ai-sdk.ts';
import { familyVerifier } from './verifiers.ts';
import { openRecording, type Recording } from './record.ts';
import type {
  Attempt,
  CycleReport,
  ReviseEvent,
  ReviseOptions,
  ReviseResult,
  ReviseStatus,
  Usage,
  VerifyFunction,
  VerifyResult,
  Violation,
} from './types.ts';

/** The report sent back after a failed draft (feedback `verbatim`), unless the verifier gives its own. */
export function renderViolations(violations: readonly Violation[]): string {
  const lines = violations.map((v) => {
    const path = Array.isArray(v.path) ? v.path.join('.') : (v.path ?? '');
    return `- ${path ? `${path}: ` : ''}${v.message} [${v.code}]`;
  });
  return [
    'The output did not pass verification:',
    ...(lines.length ? lines : ['- the verifier rejected it without details']),
    'Revise the complete output so that every problem above is fixed. Return only the revised output.',
  ].join('\n');
}

/** Tokens per character assumed before the provider has reported any prompt (conservative: 2 characters a token). */
const INITIAL_TOKENS_PER_CHAR = 0.5;

const chars = (messages: readonly ChatMessage[]) => messages.reduce((n, m) => n + m.content.length + m.role.length, 0);

function checkVerifyResult(r: unknown): VerifyResult {
  const v = r as VerifyResult;
  if (!v || typeof v !== 'object' || typeof v.ok !== 'boolean' || !Array.isArray(v.violations))
    throw new TypeError('verify must return { ok: boolean, violations: { code, message, path? }[], score? }');
  return v;
}

function positive(name: string, v: number | undefined, integer = false): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v)))
    throw new UsageError(name, `${name} must be ${integer ? 'a whole number' : 'a number'} ≥ 0 (got ${String(v)})`);
}

function resolvePolicy(o: ReviseOptions): RevisionPolicy & { feedbackFn: ((v: Violation[], a: Attempt) => string) | null } {
  const p = { ...REVLOOP_DEFAULT_POLICY, ...(o.policy ?? {}) };
  const feedbackFn = typeof p.feedback === 'function' ? p.feedback : null;
  return {
    history: p.history,
    feedback: feedbackFn ? 'verbatim' : p.feedback,
    ban: p.ban,
    onCycle: p.onCycle,
    feedbackFn,
  } as RevisionPolicy & {
    feedbackFn: typeof feedbackFn;
  };
}

/** Runs the loop; `emit` receives every event in order. */
async function run(o: ReviseOptions, emit: (e: ReviseEvent) => void): Promise<ReviseResult> {
  const t0 = Date.now();
  const policy = resolvePolicy(o);
  const messagePolicy = messagePolicyOf(policy);
  const budget = { revisions: o.budget?.revisions ?? 8, tokens: o.budget?.tokens, usd: o.budget?.usd, ms: o.budget?.ms };
  positive('budget.revisions', budget.revisions, true);
  positive('budget.tokens', budget.tokens, true);
  positive('budget.usd', budget.usd);
  positive('budget.ms', budget.ms);
  if (budget.usd !== undefined && !o.pricing)
    throw new UsageError('budget.usd', 'budget.usd needs pricing: { inputPerMTok, outputPerMTok }');
  const maxTokens = o.maxTokens ?? 1024;
  positive('maxTokens', maxTokens, true);

  // The verifier: the caller's function, or a registered family and case (the lab's verifiers).
  let verify: VerifyFunction;
  let initialPrompt: string | undefined;
  let family = { name: 'revise', version: 'revise-1', verifierId: 'function' };
  if (typeof o.verify === 'function') verify = o.verify;
  else if (o.verify && typeof o.verify === 'object' && typeof o.verify.family === 'string') {
    const fv = familyVerifier(o.verify.family, o.verify.case);
    verify = fv;
    initialPrompt = fv.initialPrompt;
    family = { name: o.verify.family, version: fv.version, verifierId: `family:${o.verify.family}@${fv.version}` };
  } else throw new UsageError('verify', 'verify must be a function (draft) => { ok, violations } or { family, case }');
  const prompt = o.prompt ?? initialPrompt;
  if (prompt === undefined) throw new UsageError('prompt', 'prompt is required (a string or chat messages)');
  const initial: ChatMessage[] =
    typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt.map((m) => ({ role: m.role, content: m.content }));
  if (!initial.length || initial.some((m) => typeof m.content !== 'string'))
    throw new UsageError('prompt', 'prompt messages must be { role, content: string } and at least one');

  let owned: Model | null = null;
  const model: Model =
    typeof o.model === 'string' ? (owned = await createModel(o.model)) : isAiSdkModel(o.model) ? aiSdkModel(o.model) : (o.model as Model);
  const banning = banKindFor(policy.ban, model.capabilities);
  if ((banning === 'failed-drafts' && !model.capabilities.ban) || (banning === 'complete-repeats' && !model.capabilities.banAnswers)) {
    await owned?.close?.();
    throw new CapabilityError(
      banning === 'failed-drafts'
        ? `${model.label}: this backend cannot ban token sequences during decoding, so ban 'failed-drafts' is refused; use a vllm:, gguf: or sim: model, or ban 'none'`
        : `${model.label}: this backend cannot ban complete answers, so ban 'complete-repeats' is refused; use a gguf: or sim: model, or ban 'auto' (complete repeats where the backend can)`,
      banning === 'failed-drafts' ? 'ban' : 'banAnswers',
      model.label,
    );
  }

  let recording: Recording | null = null;
  const attempts: Attempt[] = [];
  const exchanges: RevisionExchange[] = [];
  const shapes: Array<{ key: string; violations: string[]; measure: number }> = [];
  const cycles: CycleReport[] = [];
  const usage: Usage = { promptTokens: 0, completionTokens: 0, generations: 0, providerAttempts: 0, unreportedAttempts: 0 };
  const cost = (prompt: number, completion: number) =>
    o.pricing ? (prompt * o.pricing.inputPerMTok + completion * o.pricing.outputPerMTok) / 1e6 : 0;
  let tokensPerChar = INITIAL_TOKENS_PER_CHAR;
  let status: ReviseStatus = 'budget';
  let limit: ReviseResult['limit'];
  let reason = '';

  try {
    if (o.store !== undefined) {
      recording = await openRecording({
        store: o.store,
        runId: o.runId,
        caseId: o.caseId ?? 'revise',
        model,
        initial,
        family,
        familyCase: typeof o.verify === 'object' ? o.verify.case : null,
        policy,
        feedbackName: policy.feedbackFn ? `custom:${sha256Hex(String(policy.feedbackFn)).slice(0, 12)}` : policy.feedback,
        banned: banning,
        revisions: budget.revisions,
        maxTokens,
        temperature: o.temperature ?? null,
        seed: o.seed ?? null,
      });
    }

    /** The next request, and the limit it would pass (null: within every budget). */
    const prepare = (index: number) => {
      const messages = buildRevisionMessages(initial, exchanges, messagePolicy);
      const bannedSequences = banning ? banStrings(exchanges.map((e) => e.draft)) : [];
      const projectedPrompt = Math.ceil(chars(messages) * tokensPerChar);
      const projectedTokens = projectedPrompt + maxTokens;
      let over: ReviseResult['limit'] | null = null;
      if (index > budget.revisions) over = 'revisions';
      else if (budget.tokens !== undefined && usage.promptTokens + usage.completionTokens + projectedTokens > budget.tokens)
        over = 'tokens';
      else if (budget.usd !== undefined && cost(usage.promptTokens, usage.completionTokens) + cost(projectedPrompt, maxTokens) > budget.usd)
        over = 'usd';
      else if (budget.ms !== undefined && Date.now() - t0 >= budget.ms) over = 'ms';
      return { messages, bannedSequences, projectedTokens, over };
    };
    const limitReason = (l: NonNullable<ReviseResult['limit']>, index: number) =>
      l === 'revisions'
        ? `no draft passed within ${budget.revisions} revisions`
        : `the ${l} budget would be passed by generation ${index} (stopped before it)`;

    let next = prepare(0);
    if (next.over) {
      limit = next.over;
      reason = limitReason(next.over, 0);
      if (recording) await recording.end('incomplete', 0, reason);
    }
    for (let i = 0; !limit; i++) {
      if (o.signal?.aborted) {
        status = 'aborted';
        reason = 'aborted by the caller';
        if (recording) await recording.end('incomplete', attempts.length, reason);
        break;
      }
      const { messages, bannedSequences } = next;
      // A restart of the history window (reset-on-recurrence, onCycle 'reset') shows as a policy action.
      const start = windowStart(exchanges, messagePolicy);
      if (start > 0 && start === exchanges.length - 1 && messagePolicy.feedback !== 'drop')
        emit({
          type: 'policy',
          attempt: i,
          action: 'reset',
          reason: `history restarted at attempt ${start} (${
            recurrenceOf(
              shapes.map((s) => s.key),
              start,
            ) !== null && messagePolicy.resetOnRecurrence
              ? 'recurrence'
              : 'cycle'
          })`,
        });
      if (bannedSequences.length)
        emit({
          type: 'policy',
          attempt: i,
          action: 'ban',
          reason: `${bannedSequences.length} earlier failed drafts banned${banning === 'complete-repeats' ? ' as complete answers' : ''}`,
        });
      emit({
        type: 'attempt-started',
        attempt: i,
        messages: messages.map((m) => ({ ...m })),
        bannedSequences,
        projectedTokens: next.projectedTokens,
      });
      const started = {
        revision: i,
        messagesSha256: messagesSha256(messages),
        messageCount: messages.length,
        maxTokens,
        ...(banning === 'complete-repeats'
          ? { bannedAnswers: bannedSequences.length ? bannedSequences : undefined }
          : { bannedSequences: bannedSequences.length ? bannedSequences : undefined }),
      };
      if (recording) await recording.recorder.attemptStarted(started);

      usage.generations++;
      const provider: AttemptRecord[] = [];
      const own = { promptTokens: 0, completionTokens: 0 };
      let firstPrompt: number | undefined;
      const timeLeft = budget.ms !== undefined ? Math.max(1, budget.ms - (Date.now() - t0)) : undefined;
      const timeout = timeLeft !== undefined ? AbortSignal.timeout(timeLeft) : undefined;
      const signals = [o.signal, timeout].filter((s): s is AbortSignal => !!s);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const tStart = performance.now();
      let text: string | null = null;
      let failure: string | null = null;
      try {
        const r = await model.generate(messages, {
          maxTokens,
          temperature: o.temperature,
          seed: o.seed,
          bannedSequences: banning === 'failed-drafts' && bannedSequences.length ? bannedSequences : undefined,
          bannedAnswers: banning === 'complete-repeats' && bannedSequences.length ? bannedSequences : undefined,
          signal,
          onAttempt: (record) => {
            provider.push(record);
            usage.providerAttempts++;
            const u = record.usage;
            if (!u || (u.promptTokens === undefined && u.completionTokens === undefined)) usage.unreportedAttempts++;
            own.promptTokens += u?.promptTokens ?? 0;
            own.completionTokens += u?.completionTokens ?? 0;
            usage.promptTokens += u?.promptTokens ?? 0;
            usage.completionTokens += u?.completionTokens ?? 0;
            if (firstPrompt === undefined && u?.promptTokens !== undefined) firstPrompt = u.promptTokens;
            emit({ type: 'attempt-finished', attempt: i, record });
            if (!record.ok && recording) recording.recorder.attemptFinished(i, provider.length, record);
          },
        });
        text = r.text;
        if (text === null)
          failure = `generation ${i}: every provider attempt failed (${provider.length}); last: ${provider.at(-1)?.error?.message ?? 'no text'}`;
      } catch (e) {
        if (o.signal?.aborted) {
          status = 'aborted';
          reason = 'aborted by the caller';
        } else if (timeout?.aborted) {
          status = 'budget';
          limit = 'ms';
          reason = `the time budget of ${budget.ms} ms ran out during generation ${i}`;
        } else failure = `generation ${i}: ${(e as Error)?.message ?? String(e)}`;
        if (!failure) {
          if (recording) await recording.end('incomplete', attempts.length, reason);
          attempts.push(failedAttempt(i, messages, bannedSequences, provider, own, performance.now() - tStart));
          break;
        }
      }
      if (firstPrompt !== undefined) tokensPerChar = firstPrompt / Math.max(1, chars(messages));
      if (failure !== null || text === null) {
        status = 'provider_error';
        reason = failure ?? 'no text';
        attempts.push(failedAttempt(i, messages, bannedSequences, provider, own, performance.now() - tStart));
        if (recording) await recording.recorder.incomplete(i, reason);
        break;
      }

      const draft = pyStrip(text);
      let vr: VerifyResult;
      try {
        vr = checkVerifyResult(await verify(draft, { attempt: i }));
      } catch (e) {
        status = 'verifier_error';
        reason = `verify threw on attempt ${i}: ${(e as Error)?.message ?? String(e)}`;
        attempts.push({ ...failedAttempt(i, messages, bannedSequences, provider, own, performance.now() - tStart), draft });
        if (recording) await recording.recorder.incomplete(i, reason);
        break;
      }
      const violations = vr.violations.map((v) => ({ ...v }));
      emit({ type: 'verified', attempt: i, draft, ok: vr.ok, violations, score: vr.score });
      const shape = {
        key: draftKey(draft, 'whitespace'),
        violations: vr.ok ? [] : violationSet(violations.map((v) => violationTag(v.code, v.path))),
        measure: vr.score ?? violations.length,
      };
      shapes.push(shape);
      const recurrence = recurrenceOf(
        shapes.map((s) => s.key),
        i,
      );
      const cycle = vr.ok ? null : cycleAt(shapes, i);
      if (cycle) {
        cycles.push({ ...cycle, action: policy.onCycle });
        emit({ type: 'cycle', attempt: i, kind: cycle.kind, period: cycle.period });
      }
      const attempt: Attempt = {
        index: i,
        messages: messages.map((m) => ({ ...m })),
        bannedSequences,
        draft,
        ok: vr.ok,
        violations,
        ...(vr.score !== undefined ? { score: vr.score } : {}),
        providerAttempts: provider,
        usage: own,
        recurrenceOf: recurrence,
        feedback: null,
        latencyMs: performance.now() - tStart,
      };
      attempts.push(attempt);

      let stop: 'success' | 'cycle' | 'budget' | 'limit' | null = null;
      if (vr.ok) {
        stop = 'success';
        status = 'ok';
        reason = `attempt ${i} passed`;
      } else if (cycle && policy.onCycle === 'stop') {
        stop = 'cycle';
        status = 'cycle';
        reason = `${cycle.kind === 'cycle' ? `a period-${cycle.period} cycle` : cycle.kind === 'fixed-point' ? 'a fixed point' : 'a repeated violation set'} at attempt ${i}`;
        emit({ type: 'policy', attempt: i, action: 'stop', reason });
      } else {
        attempt.feedback = policy.feedbackFn ? policy.feedbackFn(violations, attempt) : (vr.feedback ?? renderViolations(violations));
        exchanges.push({ revision: i, draft, feedback: attempt.feedback, ...shape });
        next = prepare(i + 1);
        if (next.over) {
          limit = next.over;
          status = 'budget';
          reason = limitReason(next.over, i + 1);
          stop = next.over === 'revisions' ? 'budget' : 'limit';
          attempt.feedback = null;
        }
      }
      if (recording) {
        const state = vr.state ?? {
          joint_success: vr.ok,
          violation_vector: violations.map(() => 1),
          violations,
          ...(vr.score !== undefined ? { score: vr.score } : {}),
        };
        const record = provider.filter((p) => p.ok).at(-1) ?? {
          ok: true,
          text,
          startedAt: new Date().toISOString(),
          latencyMs: 0,
          meta: { unreported: true },
        };
        const round = {
          revision: i,
          text: draft,
          state: state as never,
          energy: vr.score ?? violations.length,
          joint: vr.ok,
          feedback: attempt.feedback,
        };
        await recording.recorder.draftAccepted(round, stop === 'limit' ? null : stop, { attempt: provider.length, record }, null);
        if (stop === 'limit') await recording.end('completed', i + 1, reason);
      }
      if (stop) break;
    }
  } finally {
    await recording?.close();
    await owned?.close?.();
  }

  const drafts = attempts.filter((a) => a.draft !== null);
  const best = drafts.reduce<Attempt | null>((b, a) => {
    if (!b) return a;
    const sa = a.score ?? a.violations.length;
    const sb = b.score ?? b.violations.length;
    return sa < sb || (sa === sb && a.violations.length < b.violations.length) ? a : b;
  }, null);
  const result: ReviseResult = {
    status,
    ...(limit ? { limit } : {}),
    output: drafts.at(-1)?.draft ?? null,
    best: best
      ? {
          attempt: best.index,
          draft: best.draft as string,
          violations: best.violations,
          ...(best.score !== undefined ? { score: best.score } : {}),
        }
      : null,
    attempts,
    usage,
    ...(o.pricing ? { usd: cost(usage.promptTokens, usage.completionTokens) } : {}),
    cycles,
    reason,
    ...(recording ? { runId: recording.runId } : {}),
  };
  emit({ type: 'done', result });
  return result;
}

function failedAttempt(
  index: number,
  messages: ChatMessage[],
  bannedSequences: string[],
  providerAttempts: AttemptRecord[],
  usage: { promptTokens: number; completionTokens: number },
  latencyMs: number,
): Attempt {
  return {
    index,
    messages: messages.map((m) => ({ ...m })),
    bannedSequences,
    draft: null,
    ok: false,
    violations: [],
    providerAttempts,
    usage,
    recurrenceOf: null,
    feedback: null,
    latencyMs,
  };
}

/** Revises until the verifier passes a draft or a budget, a cycle, an error or the caller stops it. */
export async function revise(options: ReviseOptions): Promise<ReviseResult> {
  const onEvent = options.onEvent;
  return run(options, (e) => onEvent?.(e));
}

/** The same loop as an async iterator of its events (the last is `done`); `result` resolves with the result. */
export interface ReviseStream extends AsyncIterableIterator<ReviseEvent> {
  readonly result: Promise<ReviseResult>;
}

/** `revise()` as an async iterator of its events, ending with the result. */
export function reviseStream(options: ReviseOptions): ReviseStream {
  const queue: ReviseEvent[] = [];
  let wake: (() => void) | null = null;
  let finished = false;
  let error: unknown = null;
  // Leaving the loop early (break) aborts the revision at the next check.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const result = run({ ...options, signal }, (e) => {
    options.onEvent?.(e);
    queue.push(e);
    wake?.();
  }).then(
    (r) => {
      finished = true;
      wake?.();
      return r;
    },
    (e) => {
      finished = true;
      error = e;
      wake?.();
      throw e;
    },
  );
  result.catch(() => undefined);
  const iterator: ReviseStream = {
    result,
    async next(): Promise<IteratorResult<ReviseEvent>> {
      while (!queue.length && !finished) await new Promise<void>((r) => (wake = r));
      wake = null;
      if (queue.length) return { value: queue.shift()!, done: false };
      if (error) throw error;
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<ReviseEvent>> {
      stop.abort();
      await result.catch(() => undefined);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
