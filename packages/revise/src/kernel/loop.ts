// The kernel: one revision loop, for the lab and for apps. It runs one trajectory — a model call, a
// verifier, a policy that builds the next request from the rounds so far, stop conditions, a guard
// — and tells a sink every step in order. It does no I/O of its own and keeps no state beyond the
// trajectory, so a resumed trajectory is a call with the restored rounds as `prior`. The lab's
// engine (revloop's src/engine/loop.ts: runs, harness runs, the four experiments), `revise()` and
// the agent rollouts are adapters over it (docs/revise.md §1).
//
// Guards that hold against any model (docs/revise.md §1):
// - a generation or a verification that ignores its abort signal is abandoned when the caller's
//   signal fires or a deadline passes (a `ms` stop condition); its late attempts are noted, never
//   counted or used;
// - usage that is not a finite non-negative number is treated as unreported (a note says so);
// - text that is not a string is a provider fault, never a draft.
import { UserError } from '../errors.ts';
import type { AttemptRecord, ReviseModel } from '../model.ts';
import { cycleAt, draftKey, recurrenceOf } from '../policy/recurrence.ts';
import { pyStrip } from '../py-strip.ts';
import { stopConditions, type StopCondition, type StopPredicate } from './stop.ts';
import type {
  Generation,
  GenerationStart,
  Identity,
  LoopEnd,
  LoopOutcome,
  LoopRequest,
  LoopRound,
  LoopSink,
  LoopState,
  LoopUsage,
  NumberedAttempt,
  PriorRound,
  Projection,
  Verification,
} from './loop-types.ts';

/** Checks a draft, and renders the report sent back when the loop goes on. */
export interface LoopVerifier<S> {
  verify(draft: string, index: number): Verification<S> | Promise<Verification<S>>;
  /** Called only for a failed round the loop continues from, with the generation that produced it. */
  feedback(round: LoopRound<S>, generation: Generation): string;
}

/** Builds the request of generation `index` from the rounds so far (all failed: the loop stops at a success it is told to). */
export interface LoopPolicy<S> {
  request(rounds: readonly LoopRound<S>[], index: number): LoopRequest;
}

/**
 * Checked before every generation with its request: null lets it go ahead; a verdict ends the loop
 * there (reported as `reason`). A check that throws makes the loop incomplete (a UserError is
 * rethrown: it concerns the whole run).
 */
export type LoopGuard = (
  request: LoopRequest,
  index: number,
) => { reason: string; detail: string } | null | Promise<{ reason: string; detail: string } | null>;

/** Everything one loop needs. */
export interface LoopOptions<S> {
  model: ReviseModel;
  /** Sampling and extra body keys sent with every generation. */
  call?: { temperature?: number; seed?: number; extraBody?: Record<string, unknown> };
  verifier: LoopVerifier<S>;
  policy: LoopPolicy<S>;
  /** The first that holds ends the loop (kernel/stop.ts); give at least a revision budget. */
  stopWhen: StopCondition<S> | StopPredicate<S> | ReadonlyArray<StopCondition<S> | StopPredicate<S>>;
  guard?: LoopGuard;
  /** Draft identity for recurrences and cycles (default `exact`, the paper's). */
  identity?: Identity;
  /** Rounds already verified (a resumed trajectory), oldest first. */
  prior?: readonly PriorRound<S>[];
  signal?: AbortSignal;
  sink?: LoopSink<S>;
  /** The clock (ms; default Date.now). */
  now?: () => number;
}

/** Tokens per character assumed before the provider has reported any prompt (conservative: 2 characters a token). */
export const INITIAL_TOKENS_PER_CHAR = 0.5;

const chars = (request: LoopRequest): number => {
  let n = 0;
  for (const m of request.messages) n += m.content.length + m.role.length;
  return n;
};

const usable = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

/** The record with its usage dropped when any count is not a finite non-negative number (kept in `meta.rejectedUsage`). */
function checkedUsage(record: AttemptRecord): AttemptRecord | null {
  const u = record.usage;
  if (u === undefined) return record;
  if (u !== null && typeof u === 'object' && usable(u.promptTokens) && usable(u.completionTokens) && usable(u.totalTokens)) return record;
  return null;
}

type Settled<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'aborted' } | { kind: 'deadline' };
type Interrupt = { kind: 'aborted' } | { kind: 'deadline' };

// Module-level, so that waiting allocates no closure per generation.
const asValue = <T>(value: T): Settled<T> => ({ kind: 'value', value });
const asError = (error: unknown): Settled<never> => ({ kind: 'error', error });

/**
 * Waits for `work`, but no longer than `interrupt` (the caller's abort or the deadline, one promise
 * per loop): a model or verifier that ignores its signal cannot hold the loop. Without one, it is a
 * plain await.
 */
function settle<T>(work: Promise<T>, interrupt: Promise<Interrupt> | null): Promise<Settled<T>> {
  const done = work.then(asValue, asError);
  return interrupt ? Promise.race([done, interrupt]) : done;
}

/** A signal that fires with `signal` or at the deadline (AbortSignal.any where there is one). */
function withDeadline(signal: AbortSignal | undefined, deadline: AbortSignal): AbortSignal {
  if (!signal) return deadline;
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([signal, deadline]);
  const c = new AbortController();
  const fire = (s: AbortSignal) => () => c.abort(s.reason);
  if (signal.aborted || deadline.aborted) c.abort((signal.aborted ? signal : deadline).reason);
  signal.addEventListener('abort', fire(signal), { once: true });
  deadline.addEventListener('abort', fire(deadline), { once: true });
  return c.signal;
}

/** A provider fault that makes the loop incomplete at generation `index`. */
const providerFault = (index: number, message: string, attempts: number, lastError: string | null): LoopEnd => ({
  status: 'incomplete',
  cause: 'provider',
  index,
  message,
  attempts,
  lastError,
});

/**
 * What a sink returned, awaited only when it is a promise: awaiting nothing would still cost a turn
 * of the microtask queue, and on the lab's hot path that turn lets an earlier trajectory's failed
 * commit stop the run before the next trajectory's first write (test/store/group-commit.test.ts).
 */
function wait(v: unknown): unknown {
  return v !== null && typeof v === 'object' && typeof (v as PromiseLike<unknown>).then === 'function' ? v : undefined;
}

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Runs one trajectory to its end (kernel/loop-types.ts `LoopEnd`), reporting every step to the sink.
 * One async function, its clean-up included: the lab's engine runs it on its hot path, where each
 * extra layer of promises delays the next trajectory's first write past the round it follows.
 */
export async function runLoop<S>(o: LoopOptions<S>): Promise<LoopOutcome<S>> {
  // Listeners and timers to remove when the loop ends.
  const cleanup: Array<() => void> = [];
  try {
    const now = o.now ?? Date.now;
    const { model, verifier, policy, signal, sink } = o;
    const identity: Identity = o.identity ?? 'exact';
    const conditions = stopConditions(o.stopWhen);
    const afterDraft = conditions.filter((c) => c.afterDraft);
    const beforeGeneration = conditions.filter((c) => c.beforeGeneration);
    const rounds: LoopRound<S>[] = [];
    const keys: string[] = [];
    const usage: LoopUsage = {
      promptTokens: 0,
      completionTokens: 0,
      providerAttempts: 0,
      unreportedAttempts: 0,
      estimatedPromptTokens: 0,
      estimatedCompletionTokens: 0,
    };
    let generations = 0;
    const state: LoopState<S> = {
      rounds,
      usage,
      get generations() {
        return generations;
      },
      startedAt: now(),
      now,
    };
    let deadline: number | undefined;
    for (const c of conditions) {
      const d = c.deadline?.(state);
      if (d !== undefined && (deadline === undefined || d < deadline)) deadline = d;
    }
    // The model is told about the deadline through its signal; the kernel does not rely on it
    // listening: it waits no longer than `interrupt`, which the caller's abort or the deadline settles.
    let modelSignal = signal;
    let interrupt: Promise<Interrupt> | null = null;
    if (signal || deadline !== undefined) {
      interrupt = new Promise<Interrupt>((resolve) => {
        if (signal) {
          const onAbort = () => resolve({ kind: 'aborted' });
          if (signal.aborted) onAbort();
          signal.addEventListener('abort', onAbort, { once: true });
          cleanup.push(() => signal.removeEventListener('abort', onAbort));
        }
        if (deadline !== undefined) {
          const timeout = new AbortController();
          const timer = setTimeout(
            () => {
              resolve({ kind: 'deadline' });
              timeout.abort(new DOMException('the time budget ran out', 'TimeoutError'));
            },
            Math.max(0, deadline - now()),
          );
          cleanup.push(() => clearTimeout(timer));
          modelSignal = withDeadline(signal, timeout.signal);
        }
      });
    }
    let tokensPerChar = INITIAL_TOKENS_PER_CHAR;
    let lastCompletion = 0;
    const out = (end: LoopEnd): LoopOutcome<S> => ({ end, rounds, usage: { ...usage }, generations });
    /** The loop ends during a generation: the sink learns what it did so far. */
    const endWith = async (generation: Generation, t0: number, end: LoopEnd): Promise<LoopOutcome<S>> => {
      generation.latencyMs = performance.now() - t0;
      {
        const w = wait(sink?.ended?.(end, rounds, generation));
        if (w) await w;
      }
      return out(end);
    };

    /** A verified draft as a round: its identity, what it repeats, the cycle it completes. */
    const addRound = (v: Verification<S>, index: number, draft: string, feedback: string | null): LoopRound<S> => {
      const key = draftKey(draft, identity);
      keys.push(key);
      const round: LoopRound<S> = {
        index,
        draft,
        ok: v.ok,
        state: v.state,
        violations: v.violations,
        measure: v.measure,
        key,
        recurrenceOf: recurrenceOf(keys, keys.length - 1),
        cycle: null,
        feedback,
      };
      rounds.push(round);
      if (!v.ok) (round as { cycle: LoopRound<S>['cycle'] }).cycle = cycleAt(rounds, rounds.length - 1);
      return round;
    };
    const stopAfter = (round: LoopRound<S>): LoopEnd | null => {
      for (const c of afterDraft) {
        const detail = c.afterDraft!(state, round);
        if (detail !== null) return { status: 'stopped', reason: c.name, detail, when: 'draft' };
      }
      return null;
    };
    const project = (index: number, request: LoopRequest): Projection => ({
      index,
      request,
      promptTokens: Math.ceil(chars(request) * tokensPerChar),
      completionTokens: request.maxTokens ?? lastCompletion,
    });
    /** The guard's verdict on a request: a stop, its failure (incomplete), or null. */
    const guarded = async (start: GenerationStart): Promise<GenerationStart | LoopEnd> => {
      try {
        const halt = await o.guard!(start.request, start.index);
        if (halt) return { status: 'stopped', reason: halt.reason, detail: halt.detail, when: 'generation' };
      } catch (e) {
        if (e instanceof UserError) throw e;
        return {
          status: 'incomplete',
          cause: 'guard',
          index: start.index,
          message: (e as Error)?.message ?? String(e),
          attempts: 0,
          lastError: null,
        };
      }
      return start;
    };
    /**
     * The next generation, or what ends the loop before it (a limit, the guard, or the guard's
     * failure). Synchronous without a guard: no promise per round on the lab's hot path.
     */
    const prepare = (index: number): GenerationStart | LoopEnd | Promise<GenerationStart | LoopEnd> => {
      const request = policy.request(rounds, index);
      const projection = project(index, request);
      for (const c of beforeGeneration) {
        const detail = c.beforeGeneration!(state, projection);
        if (detail !== null) return { status: 'stopped', reason: c.name, detail, when: 'generation' };
      }
      const start: GenerationStart = { index, request, projection };
      return o.guard ? guarded(start) : start;
    };
    const isStart = (p: GenerationStart | LoopEnd): p is GenerationStart => !('status' in p);

    for (const p of o.prior ?? []) addRound(p, p.index, p.draft, p.feedback);
    const last = rounds[rounds.length - 1];
    if (last) {
      const end = stopAfter(last);
      if (end) return out(end);
    }

    let pending: GenerationStart | null = null;
    for (;;) {
      if (signal?.aborted) {
        const end: LoopEnd = { status: 'aborted' };
        {
          const w = wait(sink?.ended?.(end, rounds, null));
          if (w) await w;
        }
        return out(end);
      }
      let start = pending;
      if (!start) {
        let prepared = prepare(rounds.length);
        if (prepared instanceof Promise) prepared = await prepared;
        if (!isStart(prepared)) {
          {
            const w = wait(sink?.ended?.(prepared, rounds, null));
            if (w) await w;
          }
          return out(prepared);
        }
        start = prepared;
        {
          const w = wait(sink?.started?.(start));
          if (w) await w;
        }
        // The sink may have held the generation back (a paced reader) while the caller aborted.
        if (signal?.aborted) {
          const end: LoopEnd = { status: 'aborted' };
          {
            const w = wait(sink?.ended?.(end, rounds, null));
            if (w) await w;
          }
          return out(end);
        }
      }
      const { index, request } = start;

      generations++;
      const attempts: AttemptRecord[] = [];
      const own = { promptTokens: 0, completionTokens: 0 };
      let succeeded: NumberedAttempt | null = null;
      let lastError: string | null = null;
      let firstPrompt: number | undefined;
      let inFlight = true;
      const t0 = performance.now();
      const onAttempt = (reported: AttemptRecord) => {
        if (!inFlight) {
          sink?.note?.({ type: 'late-attempt', index, record: reported });
          return;
        }
        let record = reported;
        if (checkedUsage(record) === null) {
          sink?.note?.({ type: 'usage-rejected', index, attempt: attempts.length + 1, usage: record.usage });
          record = { ...record, usage: undefined, meta: { ...(record.meta ?? {}), rejectedUsage: String(JSON.stringify(record.usage)) } };
        }
        attempts.push(record);
        usage.providerAttempts++;
        const u = record.usage;
        if (!u || (u.promptTokens === undefined && u.completionTokens === undefined)) {
          usage.unreportedAttempts++;
          usage.estimatedPromptTokens += Math.ceil(chars(request) * tokensPerChar);
          usage.estimatedCompletionTokens += Math.ceil(
            (typeof record.text === 'string' ? record.text.length : 0) * INITIAL_TOKENS_PER_CHAR,
          );
        }
        own.promptTokens += u?.promptTokens ?? 0;
        own.completionTokens += u?.completionTokens ?? 0;
        usage.promptTokens += u?.promptTokens ?? 0;
        usage.completionTokens += u?.completionTokens ?? 0;
        if (firstPrompt === undefined && u?.promptTokens !== undefined) firstPrompt = u.promptTokens;
        if (record.ok) succeeded = { attempt: attempts.length, record };
        else lastError = record.error ? `${record.error.kind}: ${record.error.message}` : 'failed';
        sink?.attempt?.(index, attempts.length, record);
      };
      // This generation as the sink sees it (its latency set when it ends).
      const generation: Generation & { used?: NumberedAttempt } = { index, request, attempts, usage: own, latencyMs: 0 };
      const call = o.call ?? {};
      let work: Promise<unknown>;
      try {
        work = Promise.resolve(
          model.generate(request.messages, {
            maxTokens: request.maxTokens,
            temperature: call.temperature,
            seed: call.seed,
            bannedSequences: request.bannedSequences,
            bannedAnswers: request.bannedAnswers,
            extraBody: call.extraBody,
            signal: modelSignal,
            onAttempt,
          }),
        );
      } catch (e) {
        work = Promise.reject(e);
      }
      const settled = await settle(work, interrupt);
      inFlight = false;
      if (settled.kind !== 'value') work.catch(() => undefined);
      if (firstPrompt !== undefined) tokensPerChar = firstPrompt / Math.max(1, chars(request));
      const pastDeadline = deadline !== undefined && now() >= deadline;
      const errorName = settled.kind === 'error' ? (settled.error as Error)?.name : undefined;
      const abortError = errorName === 'AbortError' || (errorName === 'TimeoutError' && pastDeadline);
      const aborted = settled.kind === 'aborted' || (settled.kind === 'error' && (signal?.aborted || abortError));
      if (aborted && (signal?.aborted || !pastDeadline)) return endWith(generation, t0, { status: 'aborted' });
      if (settled.kind === 'deadline' || aborted)
        return endWith(generation, t0, {
          status: 'stopped',
          reason: conditions.find((c) => c.deadline)?.name ?? 'ms',
          detail: `the time budget ran out during generation ${index}`,
          when: 'during',
        });
      if (settled.kind === 'error') {
        // Mistakes in the configuration (a missing key, a capability) concern the whole run.
        if (settled.error instanceof UserError) throw settled.error;
        return endWith(
          generation,
          t0,
          providerFault(
            index,
            `generation failed: ${(settled.error as Error)?.message ?? String(settled.error)}`,
            attempts.length,
            lastError,
          ),
        );
      }
      if (signal?.aborted) return endWith(generation, t0, { status: 'aborted' });
      const text = (settled.value as { text?: unknown } | null | undefined)?.text;
      if (text === null || text === undefined) {
        const tries = `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`;
        return endWith(
          generation,
          t0,
          providerFault(
            index,
            `provider attempts exhausted (${tries})${lastError ? `; last error: ${lastError}` : ''}`,
            attempts.length,
            lastError,
          ),
        );
      }
      if (typeof text !== 'string')
        return endWith(
          generation,
          t0,
          providerFault(index, `the model returned ${describe(text)} where text was expected`, attempts.length, lastError),
        );
      // A backend that returned text without reporting its attempt still gets one on record.
      const used: NumberedAttempt = succeeded ?? {
        attempt: attempts.length + 1,
        record: { ok: true, text, startedAt: new Date().toISOString(), latencyMs: 0, meta: { unreported: true } },
      };
      const draft = pyStrip(text);
      {
        const u = (used.record.usage ?? {}) as { completionTokens?: number };
        lastCompletion = u.completionTokens ?? Math.ceil(draft.length * INITIAL_TOKENS_PER_CHAR);
      }

      let verification: Verification<S>;
      try {
        const v = verifier.verify(draft, index);
        if (v && typeof (v as Promise<unknown>).then === 'function') {
          const s = await settle(Promise.resolve(v), interrupt);
          if (s.kind === 'aborted') return endWith(generation, t0, { status: 'aborted' });
          if (s.kind === 'deadline')
            return endWith(generation, t0, {
              status: 'stopped',
              reason: conditions.find((c) => c.deadline)?.name ?? 'ms',
              detail: `the time budget ran out while attempt ${index} was verified`,
              when: 'during',
            });
          if (s.kind === 'error') throw s.error;
          verification = s.value;
        } else verification = v as Verification<S>;
      } catch (e) {
        if (e instanceof UserError) throw e;
        return endWith(generation, t0, {
          status: 'incomplete',
          cause: 'verifier',
          index,
          message: `verify threw on attempt ${index}: ${(e as Error)?.message ?? String(e)}`,
          attempts: attempts.length,
          lastError: null,
        });
      }
      const round = addRound(verification, index, draft, null);
      generation.latencyMs = performance.now() - t0;
      generation.used = used;
      const done = generation as Generation & { used: NumberedAttempt };
      let end = stopAfter(round);
      let next: GenerationStart | null = null;
      if (!end) {
        round.feedback = verifier.feedback(round, done);
        let prepared = prepare(index + 1);
        if (prepared instanceof Promise) prepared = await prepared;
        if (isStart(prepared)) next = prepared;
        else if (prepared.status === 'incomplete') {
          {
            const w = wait(sink?.drafted?.(round, null, done, null));
            if (w) await w;
          }
          {
            const w = wait(sink?.ended?.(prepared, rounds, null));
            if (w) await w;
          }
          return out(prepared);
        } else end = prepared;
      }
      {
        const w = wait(sink?.drafted?.(round, end, done, next));
        if (w) await w;
      }
      if (end) return out(end);
      pending = next;
    }
  } finally {
    for (const undo of cleanup) undo();
  }
}
