// revise(): the revision controller (docs/revise.md), an adapter over the kernel (kernel/loop.ts)
// that the lab's runs share. Draft, verify, feed back, revise, under a policy (policy/: message
// policies, failure abstraction, ban lists, recurrence and cycle rules) and stop conditions checked
// before every generation. Every provider attempt is counted, failed ones included; the result
// says why the loop stopped, what it cost, where it cycled, what was done about it and which draft
// was best, on every status.
import { CapabilityError, UsageError } from '../errors.ts';
import { modelCanBan, modelCanBanAnswers, type ChatMessage, type ReviseModel } from '../model.ts';
import { runLoop, type LoopPolicy, type LoopVerifier } from '../kernel/loop.ts';
import {
  costOf,
  stopAfterRevisions,
  stopAtMs,
  stopAtTokens,
  stopAtUsd,
  stopConditions,
  stopOnCycle,
  stopOnSuccess,
  type StopCondition,
} from '../kernel/stop.ts';
import type { Generation, GenerationStart, LoopEnd, LoopRequest, LoopRound, LoopSink } from '../kernel/loop-types.ts';
import { banStrings } from '../policy/ban.ts';
import { violationSet, violationTag } from '../policy/recurrence.ts';
import { planRevisionRequest, type RevisionExchange } from '../policy/revision-messages.ts';
import {
  banKindFor,
  messageRulesOf,
  PAPER_BUDGET,
  policyPreset,
  REVLOOP_DEFAULT_POLICY,
  type RevisionPolicy,
} from '../policy/revision-policy.ts';
import { aiSdkModel, isAiSdkModel } from './ai-sdk.ts';
import { familyVerifier, type PreparedVerifyFunction } from './verifiers.ts';
import { withTelemetry } from './telemetry.ts';
import type {
  Attempt,
  CycleOutcome,
  FeedbackRenderer,
  CycleReport,
  ReviseEvent,
  ReviseOptions,
  ReviseResult,
  ReviseStatus,
  VerifyFunction,
  VerifyResult,
  Violation,
} from './revise-types.ts';
import type { DraftNormalisation } from '../policy/recurrence.ts';

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

function checkVerifyResult(r: unknown): VerifyResult {
  const v = r as VerifyResult;
  if (!v || typeof v !== 'object' || typeof v.ok !== 'boolean' || !Array.isArray(v.violations))
    throw new TypeError('verify must return { ok: boolean, violations: { code, message, path? }[], score? }');
  return v;
}

function nonNegative(name: string, v: number | undefined, integer = false): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v)))
    throw new UsageError(`${name} must be ${integer ? 'a whole number' : 'a number'} ≥ 0 (got ${String(v)})`, { option: name });
}

/** A policy with its own feedback renderer split out, and the draft identity it runs with. */
export interface ResolvedPolicy extends RevisionPolicy {
  feedbackFn: FeedbackRenderer | null;
  identity: DraftNormalisation;
  /** The preset's name when the policy was given by name. */
  name: string | null;
}

/**
 * The policy of a `revise()` call: a named policy is the lab's loop (identity `exact`, as
 * `revloop run --harness NAME`); a policy object fills the fields it leaves out from the default,
 * identity `normalised` unless it says.
 */
export function resolvePolicy(policy: ReviseOptions['policy']): ResolvedPolicy {
  if (typeof policy === 'string') return { ...policyPreset(policy, 'policy'), feedbackFn: null, identity: 'exact', name: policy };
  const p = { ...REVLOOP_DEFAULT_POLICY, ...(policy ?? {}) };
  const feedbackFn = typeof p.feedback === 'function' ? p.feedback : null;
  const identity = policy?.identity ?? 'normalised';
  if (identity !== 'exact' && identity !== 'normalised')
    throw new UsageError(`policy.identity must be 'exact' or 'normalised' (got ${String(identity)})`, { option: 'policy.identity' });
  return {
    history: p.history,
    feedback: feedbackFn ? 'verbatim' : p.feedback,
    ban: p.ban,
    onCycle: p.onCycle,
    feedbackFn,
    identity,
    name: null,
  } as ResolvedPolicy;
}

/** The verifier of a call: the caller's function, or a family and case (its prompt and token limit too). */
function resolveVerify(o: ReviseOptions): { verify: PreparedVerifyFunction; prompt?: string; maxTokens?: number } {
  if (typeof o.verify === 'function') return { verify: o.verify };
  if (o.verify && typeof o.verify === 'object' && o.verify.family !== undefined) {
    if (typeof o.verify.family === 'string')
      throw new UsageError(
        `verify.family '${o.verify.family}' is a name: pass the family object (getFamily('${o.verify.family}') from 'revloop/core/verify'), or import revise from 'revloop/revise', which knows the registered families`,
        { option: 'verify' },
      );
    const fv = familyVerifier(o.verify.family, o.verify.case);
    return { verify: fv, prompt: fv.initialPrompt, maxTokens: fv.maxTokens };
  }
  throw new UsageError('verify must be a function (draft) => { ok, violations } or { family, case }', { option: 'verify' });
}

const shapeOf = (vr: VerifyResult) => {
  const violations = vr.violations.map((v) => ({ ...v }));
  return {
    violations,
    tags: vr.ok ? [] : violationSet(violations.map((v) => violationTag(v.code, v.path))),
    measure: vr.score ?? violations.length,
  };
};

/** The built-in conditions of a call, in order (success, revisions, cycle; then tokens, usd, ms), then the caller's. */
function conditionsOf(o: ReviseOptions, policy: ResolvedPolicy, revisions: number): StopCondition<VerifyResult>[] {
  const list: StopCondition<VerifyResult>[] = [stopOnSuccess(), stopAfterRevisions(revisions)];
  if (policy.onCycle === 'stop') list.push(stopOnCycle());
  const b = o.budget ?? {};
  if (b.tokens !== undefined) list.push(stopAtTokens(b.tokens));
  if (b.usd !== undefined) list.push(stopAtUsd(b.usd, o.pricing!));
  if (b.ms !== undefined) list.push(stopAtMs(b.ms));
  if (o.stopWhen) list.push(...stopConditions(o.stopWhen));
  return list;
}

/** What a request bans, either kind (a result's `bannedSequences`: the ban's kind is the policy's). */
const bannedOf = (request: LoopRequest): string[] => request.bannedSequences ?? request.bannedAnswers ?? [];

/** One generation as the result reports it. */
function attemptOf(round: LoopRound<VerifyResult>, generation: Generation, feedback: string | null): Attempt {
  const vr = round.state;
  return {
    index: round.index,
    messages: generation.request.messages.map((m) => ({ ...m })),
    bannedSequences: bannedOf(generation.request),
    draft: round.draft,
    ok: round.ok,
    violations: vr.violations,
    ...(vr.score !== undefined ? { score: vr.score } : {}),
    providerAttempts: generation.attempts,
    usage: { ...generation.usage },
    recurrenceOf: round.recurrenceOf,
    feedback,
    latencyMs: generation.latencyMs,
  };
}

const LIMITS = new Set(['revisions', 'tokens', 'usd', 'ms']);

/** Runs the loop; `emit` receives every event in order; `pace` (the stream's) may hold the next generation back. */
export async function runRevise(o: ReviseOptions, emit: (e: ReviseEvent) => void, pace?: () => Promise<void>): Promise<ReviseResult> {
  const policy = resolvePolicy(o.policy);
  const messageRules = messageRulesOf(policy);
  const revisions = o.budget?.revisions ?? PAPER_BUDGET;
  nonNegative('budget.revisions', revisions, true);
  nonNegative('budget.tokens', o.budget?.tokens, true);
  nonNegative('budget.usd', o.budget?.usd);
  nonNegative('budget.ms', o.budget?.ms);
  nonNegative('maxTokens', o.maxTokens, true);
  if (o.budget?.usd !== undefined && !o.pricing)
    throw new UsageError('budget.usd needs pricing: { inputPerMTok, outputPerMTok }', { option: 'budget.usd' });
  const verifier = resolveVerify(o);
  const maxTokens = o.maxTokens ?? verifier.maxTokens;
  const prompt = o.prompt ?? verifier.prompt;
  if (prompt === undefined) throw new UsageError('prompt is required (a string or chat messages)', { option: 'prompt' });
  const initial: ChatMessage[] =
    typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt.map((m) => ({ role: m.role, content: m.content }));
  if (!initial.length || initial.some((m) => typeof m.content !== 'string'))
    throw new UsageError('prompt messages must be { role, content: string } and at least one', { option: 'prompt' });
  const sdk = isAiSdkModel(o.model) ? o.model : null;
  const model: ReviseModel = sdk ? aiSdkModel(sdk, { retry: o.retry }) : (o.model as ReviseModel);
  if (!model || typeof model.generate !== 'function')
    throw new UsageError('model must be a model with generate() (createModel(spec) from revloop/models) or an AI SDK LanguageModel', {
      option: 'model',
    });
  const banning = banKindFor(policy.ban, { ban: modelCanBan(model), banAnswers: modelCanBanAnswers(model) });
  if (banning === 'failed-drafts' && !modelCanBan(model))
    throw new CapabilityError(
      `${model.label}: this backend cannot ban token sequences during decoding, so ban 'failed-drafts' is refused; use a vllm:, gguf: or sim: model (or an AI SDK model with banOption), or ban 'none'`,
      { capability: 'ban', model: model.label },
    );
  if (banning === 'complete-repeats' && !modelCanBanAnswers(model))
    throw new CapabilityError(
      `${model.label}: this backend cannot ban complete answers, so ban 'complete-repeats' is refused; use a gguf: or sim: model, or ban 'auto' (complete repeats where the backend can)`,
      { capability: 'banAnswers', model: model.label },
    );
  // A verifier that needs an optional peer says so now, before anything is sent.
  await (verifier.verify as PreparedVerifyFunction).ready?.();
  const tracing = await withTelemetry(o.telemetry, {
    model: sdk?.modelId ?? model.spec ?? model.label,
    system: sdk?.provider ?? 'revloop',
    policy:
      policy.name ??
      `history=${policy.history},feedback=${policy.feedbackFn ? 'custom' : policy.feedback},ban=${policy.ban},on-cycle=${policy.onCycle}`,
  });

  const attempts: Attempt[] = [];
  const actions = new Map<number, CycleOutcome>();
  const verify: VerifyFunction = verifier.verify;
  const loopVerifier: LoopVerifier<VerifyResult> = {
    verify: (draft, index) => {
      const done = (raw: unknown) => {
        const vr = checkVerifyResult(raw);
        const s = shapeOf(vr);
        return { ok: vr.ok, state: { ...vr, violations: s.violations }, violations: s.tags, measure: s.measure };
      };
      const r = verify(draft, { attempt: index });
      return r && typeof (r as Promise<VerifyResult>).then === 'function' ? (r as Promise<VerifyResult>).then(done) : done(r);
    },
    feedback: (round, generation) =>
      policy.feedbackFn
        ? policy.feedbackFn(round.state.violations, attemptOf(round, generation, null))
        : (round.state.feedback ?? renderViolations(round.state.violations)),
  };
  const loopPolicy: LoopPolicy<VerifyResult> = {
    request: (rounds) => {
      const exchanges: RevisionExchange[] = rounds.map((r) => ({
        revision: r.index,
        draft: r.draft,
        feedback: r.feedback!,
        key: r.key,
        violations: r.violations,
        measure: r.measure,
      }));
      const planned = planRevisionRequest(initial, exchanges, messageRules);
      const banned = banning ? banStrings(rounds.map((r) => r.draft)) : [];
      const bans = banned.length ? banned : undefined;
      const last = rounds[rounds.length - 1];
      return {
        messages: planned.messages,
        ...(banning === 'complete-repeats' ? { bannedAnswers: bans } : { bannedSequences: bans }),
        maxTokens,
        action: planned.latest && last ? { ...planned.latest, attempt: last.index } : null,
      };
    },
  };

  const announce = (start: GenerationStart) => {
    const { index, request } = start;
    const a = request.action;
    if (a) {
      actions.set(a.attempt, a.action);
      emit({
        type: 'policy',
        attempt: index,
        action: a.action,
        reason:
          a.action === 'reset'
            ? `history restarted at attempt ${a.attempt} (${a.cause})`
            : a.action === 'reset-abstract'
              ? `history restarted at attempt ${a.attempt} (${a.cause}), its draft abstracted: a plain reset would replay an earlier request`
              : `history kept at attempt ${a.attempt} (${a.cause}): a reset would replay an earlier request`,
      });
    }
    const banned = bannedOf(request);
    if (banned.length)
      emit({
        type: 'policy',
        attempt: index,
        action: 'ban',
        reason: `${banned.length} earlier failed drafts banned${request.bannedAnswers ? ' as complete answers' : ''}`,
      });
    emit({
      type: 'attempt-started',
      attempt: index,
      messages: request.messages.map((m) => ({ ...m })),
      bannedSequences: banned,
      projectedTokens: start.projection.promptTokens + start.projection.completionTokens,
    });
  };
  const userSink = o.sink;
  const sink: LoopSink<VerifyResult> = {
    started: async (start) => {
      tracing?.started(start);
      announce(start);
      await userSink?.started?.(start);
      await pace?.();
    },
    attempt: (index, n, record) => {
      emit({ type: 'attempt-finished', attempt: index, record });
      userSink?.attempt?.(index, n, record);
    },
    drafted: async (round, end, generation, next) => {
      const vr = round.state;
      emit({ type: 'verified', attempt: round.index, draft: round.draft, ok: round.ok, violations: vr.violations, score: vr.score });
      if (round.cycle) emit({ type: 'cycle', attempt: round.index, kind: round.cycle.kind, period: round.cycle.period });
      if (end?.status === 'stopped' && end.reason === 'cycle')
        emit({ type: 'policy', attempt: round.index, action: 'stop', reason: end.detail });
      // The report is sent only when another generation follows.
      attempts[round.index] = attemptOf(round, generation, next ? round.feedback : null);
      tracing?.drafted(round, generation);
      if (next) {
        tracing?.started(next);
        announce(next);
      }
      await userSink?.drafted?.(round, end, generation, next);
      if (next) await pace?.();
    },
    ended: async (end, rounds, generation) => {
      if (generation)
        tracing?.failed(generation, end.status === 'incomplete' ? end.message : end.status === 'aborted' ? 'aborted' : end.detail);
      if (generation)
        attempts[generation.index] = {
          index: generation.index,
          messages: generation.request.messages.map((m) => ({ ...m })),
          bannedSequences: bannedOf(generation.request),
          draft: null,
          ok: false,
          violations: [],
          providerAttempts: generation.attempts,
          usage: { ...generation.usage },
          recurrenceOf: null,
          feedback: null,
          latencyMs: generation.latencyMs,
        };
      await userSink?.ended?.(end, rounds, generation);
    },
    note: (n) => {
      if (n.type === 'usage-rejected') emit({ type: 'usage-rejected', attempt: n.index, usage: n.usage });
      else emit({ type: 'late-attempt', attempt: n.index, record: n.record });
      userSink?.note?.(n);
    },
  };

  const outcome = await runLoop<VerifyResult>({
    model,
    call: { temperature: o.temperature, seed: o.seed },
    verifier: loopVerifier,
    policy: loopPolicy,
    stopWhen: conditionsOf(o, policy, revisions),
    identity: policy.identity,
    signal: o.signal,
    sink,
  });
  // A verifier that threw left a draft without verdict: it is reported with the attempt.
  const end = outcome.end;
  const { status, limit, stop, reason } = describeEnd(end, o);
  const rounds = outcome.rounds;
  const cycles: CycleReport[] = rounds
    .filter((r): r is LoopRound<VerifyResult> & { cycle: NonNullable<LoopRound<VerifyResult>['cycle']> } => r.cycle !== null)
    .map((r) => ({ kind: r.cycle.kind, period: r.cycle.period, attempt: r.index, action: cycleAction(r, rounds, end, actions) }));
  const drafts = attempts.filter((a) => a.draft !== null);
  const best = drafts.reduce<Attempt | null>((b, a) => {
    if (!b) return a;
    const sa = a.score ?? a.violations.length;
    const sb = b.score ?? b.violations.length;
    return sa < sb || (sa === sb && a.violations.length < b.violations.length) ? a : b;
  }, null);
  const usage = {
    promptTokens: outcome.usage.promptTokens,
    completionTokens: outcome.usage.completionTokens,
    generations: outcome.generations,
    providerAttempts: outcome.usage.providerAttempts,
    unreportedAttempts: outcome.usage.unreportedAttempts,
    ...(outcome.usage.unreportedAttempts
      ? { estimatedTokens: outcome.usage.estimatedPromptTokens + outcome.usage.estimatedCompletionTokens }
      : {}),
  };
  const result: ReviseResult = {
    status,
    ...(limit ? { limit } : {}),
    ...(stop ? { stop } : {}),
    output: drafts.at(-1)?.draft ?? null,
    best: best
      ? {
          attempt: best.index,
          draft: best.draft as string,
          violations: best.violations,
          ...(best.score !== undefined ? { score: best.score } : {}),
        }
      : null,
    attempts: attempts.filter((a) => a !== undefined),
    usage,
    ...(o.pricing ? { usd: costOf(o.pricing, usage.promptTokens, usage.completionTokens) } : {}),
    cycles,
    reason,
  };
  tracing?.done(result);
  return result;
}

/** The status, limit and reason of how the loop ended. */
function describeEnd(
  end: LoopEnd,
  o: ReviseOptions,
): { status: ReviseStatus; limit?: ReviseResult['limit']; stop?: string; reason: string } {
  if (end.status === 'aborted') return { status: 'aborted', reason: 'aborted by the caller' };
  if (end.status === 'incomplete')
    return end.cause === 'verifier'
      ? { status: 'verifier_error', reason: end.message }
      : { status: 'provider_error', reason: `generation ${end.index}: ${end.message}` };
  if (end.reason === 'success') return { status: 'ok', reason: end.detail };
  if (end.reason === 'cycle') return { status: 'cycle', reason: end.detail };
  if (LIMITS.has(end.reason)) {
    const limit = end.reason as NonNullable<ReviseResult['limit']>;
    const reason =
      end.when === 'during' && limit === 'ms' ? end.detail.replace('the time budget', `the time budget of ${o.budget?.ms} ms`) : end.detail;
    return { status: 'budget', limit, reason };
  }
  return { status: 'stopped', stop: end.reason, reason: end.detail };
}

/** What was done after the cycling round `r` (docs/revise.md §4). */
function cycleAction(
  r: LoopRound<VerifyResult>,
  rounds: readonly LoopRound<VerifyResult>[],
  end: LoopEnd,
  actions: ReadonlyMap<number, CycleOutcome>,
): CycleOutcome {
  const last = r === rounds[rounds.length - 1];
  if (last && end.status === 'stopped' && end.reason === 'cycle') return 'stop';
  const done = actions.get(r.index);
  if (done) return done;
  if (last) return 'ended';
  return 'continue';
}

/** Revises until the verifier passes a draft or a budget, a cycle, an error or the caller stops it. */
export async function revise(options: ReviseOptions): Promise<ReviseResult> {
  const onEvent = options.onEvent;
  const result = await runRevise(options, (e) => onEvent?.(e));
  onEvent?.({ type: 'done', result });
  return result;
}

/** The same loop as an async iterator of its events (the last is `done`); `result` resolves with the result. */
export interface ReviseStream extends AsyncIterableIterator<ReviseEvent> {
  readonly result: Promise<ReviseResult>;
}

/**
 * `revise()` as an async iterator of its events, ending with `done`. It is paced by the reader: no
 * generation starts until the events before it were read, so leaving the loop early (break)
 * starts no further generation.
 */
export function reviseStream(options: ReviseOptions): ReviseStream {
  const queue: ReviseEvent[] = [];
  let wake: (() => void) | null = null;
  let drained: (() => void) | null = null;
  let finished = false;
  let left = false;
  let error: unknown = null;
  const stop = new AbortController();
  const signal = options.signal ? anySignal([options.signal, stop.signal]) : stop.signal;
  const push = (e: ReviseEvent) => {
    options.onEvent?.(e);
    queue.push(e);
    wake?.();
  };
  // The loop waits here before each generation until the reader has taken every event so far.
  const pace = () =>
    left || !queue.length
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          drained = resolve;
        });
  const result = runRevise({ ...options, signal }, push, pace).then(
    (r) => {
      push({ type: 'done', result: r });
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
      while (!queue.length && !finished) {
        if (drained) {
          const d = drained;
          drained = null;
          d();
        }
        await new Promise<void>((r) => (wake = r));
      }
      wake = null;
      if (queue.length) return { value: queue.shift()!, done: false };
      if (error) throw error;
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<ReviseEvent>> {
      left = true;
      stop.abort();
      const d = drained;
      drained = null;
      d?.();
      await result.catch(() => undefined);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) c.abort(s.reason);
    else s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}
