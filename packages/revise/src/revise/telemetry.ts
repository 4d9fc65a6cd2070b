// OpenTelemetry for revise() (docs/revise.md §6): with the optional peer `@opentelemetry/api`
// installed, one span per revise() call (`revloop.revise`) and one child span per generation
// (`chat <model>`), with the GenAI semantic-convention attributes (`gen_ai.operation.name`,
// `gen_ai.request.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`,
// `gen_ai.response.finish_reasons` …) and revloop's own (`revloop.status`, `revloop.attempt`,
// `revloop.cycle.kind`, `revloop.policy.action` …). Spans go to whatever tracer provider the app
// registered (none registered: the API's no-op tracer). Without the package, nothing happens.
import type { GenerationStart, LoopRound, Generation } from '../kernel/loop-types.ts';
import type { ReviseResult, VerifyResult } from './revise-types.ts';

/** The parts of `@opentelemetry/api` used here (structural: the package is an optional peer). */
interface SpanLike {
  setAttribute(key: string, value: unknown): unknown;
  setAttributes(attributes: Record<string, unknown>): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}
interface TracerLike {
  startSpan(name: string, options?: { attributes?: Record<string, unknown> }, context?: unknown): SpanLike;
}
interface OtelApi {
  trace: { getTracer(name: string, version?: string): TracerLike; setSpan(context: unknown, span: SpanLike): unknown };
  context: { active(): unknown };
}

/** Telemetry of a revise() call: off, or on with the global tracer (default when `@opentelemetry/api` is installed) or your own. */
export interface ReviseTelemetry {
  /** Default true: trace when `@opentelemetry/api` is installed. */
  enabled?: boolean;
  /** A tracer of your own (`trace.getTracer(...)`); default `trace.getTracer('revloop')`. */
  tracer?: unknown;
}

// A specifier bundlers leave alone: the peer is optional, and resolving it at build time would fail without it.
const OTEL_API = '@opentelemetry/api';
let api: Promise<OtelApi | null> | null = null;

/** `@opentelemetry/api` when it is installed, else null (looked up once). */
function loadApi(): Promise<OtelApi | null> {
  api ??= import(/* webpackIgnore: true */ /* @vite-ignore */ OTEL_API).then(
    (m) => ((m as { trace?: unknown }).trace ? (m as OtelApi) : ((m as { default?: OtelApi }).default ?? null)),
    () => null,
  );
  return api;
}

const ERROR = 2;

/** What revise() tells the telemetry, step by step. */
export interface Tracing {
  started(start: GenerationStart): void;
  drafted(round: LoopRound<VerifyResult>, generation: Generation): void;
  failed(generation: Generation, message: string): void;
  done(result: ReviseResult): void;
}

/** Starts the spans of one revise() call, or null when telemetry is off or `@opentelemetry/api` is absent. */
export async function withTelemetry(
  options: ReviseTelemetry | false | undefined,
  call: { model: string; system: string; policy: string },
): Promise<Tracing | null> {
  if (options === false || options?.enabled === false) return null;
  const otel = await loadApi();
  if (!otel) return null;
  const tracer = (options?.tracer as TracerLike | undefined) ?? otel.trace.getTracer('revloop');
  const root = tracer.startSpan('revloop.revise', {
    attributes: {
      'gen_ai.operation.name': 'revise',
      'gen_ai.request.model': call.model,
      'gen_ai.system': call.system,
      'revloop.policy': call.policy,
    },
  });
  const parent = otel.trace.setSpan(otel.context.active(), root);
  const spans = new Map<number, SpanLike>();
  const usage = (s: SpanLike, g: Generation) =>
    s.setAttributes({
      'gen_ai.usage.input_tokens': g.usage.promptTokens,
      'gen_ai.usage.output_tokens': g.usage.completionTokens,
      'revloop.provider_attempts': g.attempts.length,
    });
  return {
    started(start) {
      const r = start.request;
      const attributes: Record<string, unknown> = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': call.model,
        'gen_ai.system': call.system,
        'revloop.attempt': start.index,
        'revloop.messages': r.messages.length,
        'revloop.projected_tokens': start.projection.promptTokens + start.projection.completionTokens,
      };
      if (r.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = r.maxTokens;
      if (r.bannedSequences?.length) attributes['revloop.banned_sequences'] = r.bannedSequences.length;
      if (r.bannedAnswers?.length) attributes['revloop.banned_answers'] = r.bannedAnswers.length;
      if (r.action) {
        attributes['revloop.policy.action'] = r.action.action;
        attributes['revloop.policy.cause'] = r.action.cause;
      }
      spans.set(start.index, tracer.startSpan(`chat ${call.model}`, { attributes }, parent));
    },
    drafted(round, generation) {
      const s = spans.get(round.index);
      if (!s) return;
      usage(s, generation);
      const reasons = generation.attempts.map((a) => a.finishReason).filter((f): f is string => typeof f === 'string');
      if (reasons.length) s.setAttribute('gen_ai.response.finish_reasons', reasons);
      s.setAttributes({ 'revloop.ok': round.ok, 'revloop.violations': round.state.violations.length });
      if (round.state.score !== undefined && Number.isFinite(round.state.score)) s.setAttribute('revloop.score', round.state.score);
      if (round.recurrenceOf !== null) s.setAttribute('revloop.recurrence_of', round.recurrenceOf);
      if (round.cycle) s.setAttributes({ 'revloop.cycle.kind': round.cycle.kind, 'revloop.cycle.period': round.cycle.period });
      s.end();
      spans.delete(round.index);
    },
    failed(generation, message) {
      const s = spans.get(generation.index);
      if (!s) return;
      usage(s, generation);
      s.setStatus({ code: ERROR, message });
      s.end();
      spans.delete(generation.index);
    },
    done(result) {
      for (const s of spans.values()) s.end();
      root.setAttributes({
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.completionTokens,
        'revloop.status': result.status,
        'revloop.reason': result.reason,
        'revloop.generations': result.usage.generations,
        'revloop.provider_attempts': result.usage.providerAttempts,
        'revloop.cycles': result.cycles.length,
      });
      if (result.limit) root.setAttribute('revloop.limit', result.limit);
      if (result.cycles.length)
        root.setAttribute(
          'revloop.cycle.actions',
          result.cycles.map((c) => c.action),
        );
      if (result.status === 'provider_error' || result.status === 'verifier_error') root.setStatus({ code: ERROR, message: result.reason });
      root.end();
    },
  };
}
