// Small fakes for engine and store tests: a word-count family ("toy") and a deterministic model
// whose output is a pure function of the messages (like the sim controllers), with optional
// latency and provider faults.
import { createHash } from 'node:crypto';
import type { AttemptRecord, ChatMessage, GenerateOptions, GenerateResult, Model } from '../../src/models/types.ts';
import type { ConstraintCase, Family, PromptVariant, VerifierState } from '../../src/core/verify/types.ts';

export interface ToyState extends VerifierState {
  word_count: number;
  target: number;
  error: number;
}

export const toyFamily: Family<ToyState> = {
  name: 'toy',
  version: 'toy-1',
  verify(text, c) {
    const count = text.split(/\s+/).filter(Boolean).length;
    const target = c.target ?? 0;
    return {
      joint_success: count === target,
      word_count: count,
      target,
      error: count - target,
      violation_vector: [Math.abs(count - target) / Math.max(target, 1)],
    };
  },
  energy: (s) => s.violation_vector.reduce((a, b) => a + b, 0),
  feedback(s, _c, variant: PromptVariant = 'baseline') {
    const d = s.target - s.word_count;
    const action = d > 0 ? `add exactly ${d} words` : `remove exactly ${-d} words`;
    return variant === 'concise'
      ? `${s.word_count}/${s.target}. ${action}.`
      : `VERIFIER: ${s.word_count} words; target ${s.target}; ${action}.`;
  },
  initialPrompt: (c, variant = 'baseline') =>
    variant === 'concise' ? `${c.instruction} (${c.target} words)` : `${c.instruction}\n\nWrite exactly ${c.target} words.`,
  maxNewTokens: (c) => Math.max(16, 3 * (c.target ?? 0)),
  validateCase: (c) => (Number.isInteger(c.target) && (c.target ?? 0) > 0 ? [] : [['target', 'must be a positive whole number']]),
};

export function toyCases(n: number, seed = 'toy'): ConstraintCase[] {
  return Array.from({ length: n }, (_, i) => {
    const h = createHash('sha256').update(`${seed}:${i}`).digest();
    return {
      id: `toy-${String(i).padStart(3, '0')}`,
      family: 'toy',
      source: ['alpha', 'beta'][i % 2],
      instruction: `Describe item ${i}.`,
      target: 3 + (h[0] % 9),
    };
  });
}

function hashInt(messages: ChatMessage[]): number {
  return createHash('sha256').update(JSON.stringify(messages)).digest().readUInt32BE(0);
}

/** A controller with a per-messages deterministic "gain": sometimes exact, sometimes stuck. */
export function toyOutput(messages: ChatMessage[]): string {
  const h = hashInt(messages);
  const first = messages[0].content;
  const target = Number(/(\d+) words/.exec(first)?.[1] ?? /\((\d+) words\)/.exec(first)?.[1] ?? 5);
  const last = messages[messages.length - 1];
  let count: number;
  // Some cases are "stubborn": the controller repeats its first draft's length for ever.
  const stubborn = createHash('sha256').update(first).digest()[0] % 4 === 0;
  if (messages.length === 1 || stubborn) {
    count = Math.max(1, target + (stubborn ? 2 : [0, 3, -2, 5, -1, 7][h % 6]));
  } else {
    const prev = messages[messages.length - 2].content.split(/\s+/).filter(Boolean).length;
    const m = /add exactly (\d+)|remove exactly (\d+)/.exec(last.content);
    const delta = m ? (m[1] ? Number(m[1]) : -Number(m[2])) : 0;
    const gain = [1, 0.5, 0, 2, 1][h % 5];
    count = Math.max(1, prev + Math.round(delta * gain));
  }
  const words = Array.from({ length: count }, (_, i) => `w${(h >> (i % 16)) & 7}`);
  return `  ${words.join(' ')}\n`;
}

export interface FakeModelOptions {
  delayMs?: number;
  /** Returns how many attempts fail before success for a call (≥ attempts: the call fails). */
  faults?: (messages: ChatMessage[], call: number) => number;
  attempts?: number;
  label?: string;
  ban?: boolean;
}

export interface FakeModel extends Model {
  calls: Array<{ messages: ChatMessage[]; options: GenerateOptions }>;
}

export function fakeModel(opts: FakeModelOptions = {}): FakeModel {
  const calls: FakeModel['calls'] = [];
  const maxAttempts = opts.attempts ?? 3;
  return {
    spec: 'fake:toy',
    label: opts.label ?? 'fake-toy',
    capabilities: { score: false, ban: opts.ban ?? false, simulated: true },
    calls,
    async generate(messages, options): Promise<GenerateResult> {
      const call = calls.length;
      calls.push({ messages: structuredClone(messages), options });
      const failing = opts.faults?.(messages, call) ?? 0;
      const attempts: AttemptRecord[] = [];
      for (let a = 0; a < maxAttempts; a++) {
        if (opts.delayMs) {
          await new Promise<void>((resolve, reject) => {
            const onAbort = () => {
              clearTimeout(timer);
              reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
            };
            const timer = setTimeout(() => {
              options.signal?.removeEventListener('abort', onAbort);
              resolve();
            }, opts.delayMs);
            options.signal?.addEventListener('abort', onAbort, { once: true });
          });
        }
        const startedAt = '2026-01-01T00:00:00.000Z';
        if (a < failing) {
          const rec: AttemptRecord = {
            ok: false,
            startedAt,
            latencyMs: 1,
            status: 503,
            error: { kind: 'http', message: 'HTTP 503 from fake', raw: { error: 'overloaded' } },
          };
          attempts.push(rec);
          options.onAttempt?.(rec);
          continue;
        }
        const text = toyOutput(messages);
        const rec: AttemptRecord = { ok: true, text, startedAt, latencyMs: 1, status: 200, finishReason: 'stop' };
        attempts.push(rec);
        options.onAttempt?.(rec);
        return { text, attempts };
      }
      return { text: null, attempts };
    },
  };
}

export const resolveToy = (name: string): Family => {
  if (name === 'toy') return toyFamily as unknown as Family;
  throw new Error(`unknown family '${name}'`);
};

export interface ScriptedModel extends Model {
  seen: ChatMessage[][];
  options: GenerateOptions[];
}

/** A model that plays back raw outputs in order (null = a failed attempt) and records every message list. */
export function scriptedModel(outputs: Array<string | null>, label = 'script'): ScriptedModel {
  const seen: ChatMessage[][] = [];
  const options: GenerateOptions[] = [];
  return {
    spec: 'script:test',
    label,
    capabilities: { score: false, ban: true, simulated: true },
    seen,
    options,
    async generate(messages, opts): Promise<GenerateResult> {
      seen.push(structuredClone(messages));
      options.push(opts);
      const text = outputs[seen.length - 1];
      if (text === undefined) throw new Error('script exhausted');
      const rec: AttemptRecord =
        text === null
          ? { ok: false, startedAt: 't', latencyMs: 0, error: { kind: 'http', message: '500' } }
          : { ok: true, text, startedAt: 't', latencyMs: 0 };
      opts.onAttempt?.(rec);
      return { text, attempts: [rec] };
    },
  };
}
