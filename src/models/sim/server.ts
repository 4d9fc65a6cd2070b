// serve-sim: an OpenAI-compatible HTTP server (node:http) backed by the simulated controllers, so
// the HTTP path can be tested end to end on loopback. The request's `model` names the profile
// (`sim:steady?gain=0.7`, or just `steady`). Every response says it is simulated
// (`revloop_simulated: true`, model ids keep `sim:`).
//
// Endpoints: GET /v1/models, GET /health, POST /v1/chat/completions, and vLLM's extensions emulated
// with the toy LM (toy-lm.ts): POST /v1/completions (token-id prompts, echo, prompt_logprobs),
// `prompt_logprobs` / `continue_final_message` / `bad_words` on chat completions, POST /tokenize and
// POST /detokenize (also under /v1/).
import { MAX_NEW_TOKENS_LIMIT } from '../limits.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256Hex } from '../../core/util/hash.ts';
import { UsageError } from '../../core/errors.ts';
import type { ChatMessage } from '../types.ts';
import { parseSpec } from '../spec.ts';
import { SIM_VERSION } from './controller.ts';
import { SIM_SERVER_DEFAULTS } from './defaults.ts';
import { resolveSim, SIM_PROFILES, type ResolvedSim } from './profiles.ts';
import { simReply } from './model.ts';
import { toyDecodeToken, toyDetokenize, toyPromptLogprobs, toyRenderChat, toyTokenize } from './toy-lm.ts';

/** Options of `startSimServer`: port, host, default latency and body limit (defaults: SIM_SERVER_DEFAULTS, any free port on loopback). */
export interface SimServerOptions {
  port?: number;
  host?: string;
  /** Latency applied to every generation unless the model spec sets latency_ms (instant: never). */
  latencyMs?: number;
  /** Largest accepted request body in bytes (default 64 MiB). */
  maxBodyBytes?: number;
}

/** A running simulator server: its address, request counters, and `close()`. */
export interface SimServer {
  server: Server;
  host: string;
  port: number;
  /** Base URL for clients, ending in /v1. */
  url: string;
  /** Requests answered so far, by path. */
  stats: { requests: number; byPath: Record<string, number> };
  close(): Promise<void>;
}

const MAX_MODEL_LEN = 32768;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, `request body larger than ${limit} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) =>
        p && typeof p === 'object' && (p as { type?: string }).type === 'text' ? String((p as { text?: unknown }).text ?? '') : '',
      )
      .join('');
  if (content == null) return '';
  throw new HttpError(400, 'message content must be a string or a list of parts');
}

function messagesOf(body: Record<string, unknown>): ChatMessage[] {
  if (!Array.isArray(body.messages) || !body.messages.length) throw new HttpError(400, '"messages" must be a non-empty list');
  return body.messages.map((m, i) => {
    const role = (m as { role?: unknown })?.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system')
      throw new HttpError(400, `messages[${i}].role must be user, assistant or system`);
    return { role, content: contentText((m as { content?: unknown }).content) };
  });
}

/** An integer field from `min` to MAX_NEW_TOKENS_LIMIT (a request for 3·10^15 tokens is a 400, not an allocation). */
function intField(body: Record<string, unknown>, key: string, fallback: number, min = 0): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > MAX_NEW_TOKENS_LIMIT)
    throw new HttpError(400, `"${key}" must be an integer from ${min} to ${MAX_NEW_TOKENS_LIMIT}`);
  return v;
}

function stringList(body: Record<string, unknown>, key: string): string[] {
  const v = body[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new HttpError(400, `"${key}" must be a list of strings`);
  return v as string[];
}

/** vLLM's prompt_logprobs layout: null for the first token, then {id: {logprob, rank, decoded_token}}. */
function promptLogprobs(
  ids: number[],
  topK: number,
): Array<Record<string, { logprob: number; rank: number; decoded_token: string }> | null> {
  const out: Array<Record<string, { logprob: number; rank: number; decoded_token: string }> | null> = ids.length ? [null] : [];
  for (const p of toyPromptLogprobs(ids, 1)) {
    const entry: Record<string, { logprob: number; rank: number; decoded_token: string }> = {};
    entry[String(p.token)] = { logprob: p.logprob, rank: p.rank, decoded_token: toyDecodeToken(p.token) };
    if (topK >= 1 && p.greedy !== p.token)
      entry[String(p.greedy)] = { logprob: p.greedyLogprob, rank: 1, decoded_token: toyDecodeToken(p.greedy) };
    out.push(entry);
  }
  return out;
}

/**
 * Starts an OpenAI-compatible (and vLLM-like) HTTP server over the simulated controllers, for testing HTTP clients and harnesses without
 * a model (docs/models.md). Model names are `sim:` specs; every reply is a simulation.
 */
export async function startSimServer(options: SimServerOptions = {}): Promise<SimServer> {
  const host = options.host ?? SIM_SERVER_DEFAULTS.host;
  const defaultLatency = options.latencyMs ?? SIM_SERVER_DEFAULTS.latencyMs;
  const limit = options.maxBodyBytes ?? SIM_SERVER_DEFAULTS.maxBodyBytes;
  const resolvedCache = new Map<string, ResolvedSim & { modelId: string }>();
  const stats = { requests: 0, byPath: {} as Record<string, number> };

  function resolveModel(name: unknown): ResolvedSim & { modelId: string } {
    if (typeof name !== 'string' || !name) throw new HttpError(400, '"model" must name a sim profile, e.g. "sim:steady"');
    const hit = resolvedCache.get(name);
    if (hit) return hit;
    const spec = name.startsWith('sim:') ? name : `sim:${name}`;
    try {
      const parsed = parseSpec(spec);
      if (parsed.scheme !== 'sim') throw new UsageError(`not a sim spec: ${name}`);
      const resolved = { ...resolveSim(spec, parsed.target, parsed.params), modelId: spec };
      if (resolved.overrides.latency_ms === undefined && !resolved.profile.fixedLatency) resolved.params.latency_ms = defaultLatency;
      resolvedCache.set(name, resolved);
      return resolved;
    } catch (e) {
      const msg = (e as Error).message;
      throw /unknown simulated profile/.test(msg)
        ? new HttpError(404, msg, 'invalid_request_error', 'model_not_found')
        : new HttpError(400, msg);
    }
  }

  const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());
  const created = () => Math.floor(Date.now() / 1000);
  // Response ids only need to be unique per server; hashing every body would cost more than the sim.
  const serverTag = sha256Hex(`${process.pid}\u001f${Date.now()}`).slice(0, 8);
  let served = 0;
  const idFor = (prefix: string) => `${prefix}-sim-${serverTag}-${++served}`;

  async function chat(body: Record<string, unknown>): Promise<unknown> {
    const sim = resolveModel(body.model);
    const messages = messagesOf(body);
    const maxTokens = intField(body, 'max_tokens', intField(body, 'max_completion_tokens', 16_384, 0), 0);
    if (body.stream === true) throw new HttpError(400, 'serve-sim does not stream; send "stream": false');
    const continueFinal = body.continue_final_message === true;
    if (continueFinal && body.add_generation_prompt === true)
      throw new HttpError(400, 'continue_final_message cannot be combined with add_generation_prompt');
    const reply = simReply(messages, sim.params, maxTokens, stringList(body, 'bad_words'));
    await sleep(sim.params.latency_ms);
    const response: Record<string, unknown> = {
      id: idFor('chatcmpl'),
      object: 'chat.completion',
      created: created(),
      model: sim.modelId,
      choices: [
        { index: 0, message: { role: 'assistant', content: reply.text, refusal: null }, logprobs: null, finish_reason: reply.finishReason },
      ],
      usage: {
        prompt_tokens: reply.promptTokens,
        completion_tokens: reply.completionTokens,
        total_tokens: reply.promptTokens + reply.completionTokens,
      },
      system_fingerprint: SIM_VERSION,
      revloop_simulated: true,
      revloop_sim: { profile: sim.profile.name, decision: reply.decision.kind, banned_masked: reply.bannedMasked },
    };
    if (body.prompt_logprobs !== undefined && body.prompt_logprobs !== null) {
      const k = intField(body, 'prompt_logprobs', 0, -1);
      const rendered = toyRenderChat(messages, {
        addGenerationPrompt: !continueFinal && body.add_generation_prompt !== false,
        continueFinalMessage: continueFinal,
      });
      const ids = toyTokenize(rendered, { special: true, addBos: body.add_special_tokens === true });
      response.prompt_logprobs = promptLogprobs(ids, k);
      response.prompt_token_ids = ids;
    }
    return response;
  }

  function promptIds(body: Record<string, unknown>): { ids: number[]; text: string } {
    const p = body.prompt;
    if (typeof p === 'string') {
      const ids = toyTokenize(p, { special: true, addBos: body.add_special_tokens !== false });
      return { ids, text: p };
    }
    if (Array.isArray(p) && p.length && p.every((t) => Number.isInteger(t) && t >= 0))
      return { ids: p as number[], text: toyDetokenize(p as number[]) };
    throw new HttpError(400, '"prompt" must be a string or a non-empty list of token ids (one prompt per request in serve-sim)');
  }

  async function completion(body: Record<string, unknown>): Promise<unknown> {
    const sim = resolveModel(body.model);
    const { ids, text: promptText } = promptIds(body);
    if (ids.length > MAX_MODEL_LEN) throw new HttpError(400, `prompt of ${ids.length} tokens exceeds max_model_len ${MAX_MODEL_LEN}`);
    const maxTokens = intField(body, 'max_tokens', 16, 0);
    // A plain prompt is read as one user message; max_tokens 0 (echo only) generates nothing.
    const reply = simReply(
      [{ role: 'user', content: toyDetokenize(ids, { skipSpecial: true }) }],
      sim.params,
      Math.max(1, maxTokens),
      stringList(body, 'bad_words'),
    );
    await sleep(sim.params.latency_ms);
    const generated = maxTokens === 0 ? '' : reply.text;
    const choice: Record<string, unknown> = {
      index: 0,
      text: (body.echo === true ? promptText : '') + generated,
      logprobs: null,
      finish_reason: maxTokens === 0 ? 'length' : reply.finishReason,
    };
    const k = body.prompt_logprobs ?? (body.echo === true ? body.logprobs : undefined);
    if (k !== undefined && k !== null) {
      if (typeof k !== 'number' || !Number.isInteger(k) || k < -1) throw new HttpError(400, '"prompt_logprobs" must be an integer ≥ -1');
      choice.prompt_logprobs = promptLogprobs(ids, k);
    }
    const completionTokens = maxTokens === 0 ? 0 : reply.completionTokens;
    return {
      id: idFor('cmpl'),
      object: 'text_completion',
      created: created(),
      model: sim.modelId,
      choices: [choice],
      usage: { prompt_tokens: ids.length, completion_tokens: completionTokens, total_tokens: ids.length + completionTokens },
      system_fingerprint: SIM_VERSION,
      revloop_simulated: true,
    };
  }

  function tokenize(body: Record<string, unknown>): unknown {
    resolveModel(body.model);
    let ids: number[];
    if (body.messages !== undefined) {
      const continueFinal = body.continue_final_message === true;
      const rendered = toyRenderChat(messagesOf(body), {
        addGenerationPrompt: !continueFinal && body.add_generation_prompt !== false,
        continueFinalMessage: continueFinal,
      });
      ids = toyTokenize(rendered, { special: true, addBos: body.add_special_tokens === true });
    } else if (typeof body.prompt === 'string') {
      ids = toyTokenize(body.prompt, { special: true, addBos: body.add_special_tokens !== false });
    } else throw new HttpError(400, '/tokenize needs "prompt" (a string) or "messages"');
    return {
      count: ids.length,
      max_model_len: MAX_MODEL_LEN,
      tokens: ids,
      token_strs: body.return_token_strs === true ? ids.map(toyDecodeToken) : null,
      revloop_simulated: true,
    };
  }

  function detokenize(body: Record<string, unknown>): unknown {
    resolveModel(body.model);
    if (!Array.isArray(body.tokens) || !body.tokens.every((t) => Number.isInteger(t)))
      throw new HttpError(400, '"tokens" must be a list of token ids');
    return { prompt: toyDetokenize(body.tokens as number[]), revloop_simulated: true };
  }

  const routes: Record<string, (body: Record<string, unknown>) => unknown> = {
    '/v1/chat/completions': chat,
    '/v1/completions': completion,
    '/tokenize': tokenize,
    '/v1/tokenize': tokenize,
    '/detokenize': detokenize,
    '/v1/detokenize': detokenize,
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    stats.requests++;
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    try {
      if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
        return send(res, 200, {
          object: 'list',
          data: Object.values(SIM_PROFILES).map((p) => ({
            id: `sim:${p.name}`,
            object: 'model',
            created: 0,
            owned_by: 'revloop-sim',
            description: p.description,
            revloop_simulated: true,
          })),
          revloop_simulated: true,
        });
      }
      if (req.method === 'GET' && path === '/health') return send(res, 200, { ok: true, revloop_simulated: true });
      const route = routes[path];
      if (!route) throw new HttpError(404, `no route ${req.method} ${path}`, 'not_found_error');
      if (req.method !== 'POST') throw new HttpError(405, `${path} accepts POST`);
      const raw = await readBody(req, limit);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        throw new HttpError(400, 'request body is not valid JSON');
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'request body must be a JSON object');
      send(res, 200, await route(body as Record<string, unknown>));
    } catch (e) {
      const err = e instanceof HttpError ? e : new HttpError(500, `serve-sim internal error: ${(e as Error).message}`, 'server_error');
      if (!res.headersSent)
        send(res, err.status, { error: { message: err.message, type: err.type, code: err.code, param: null }, revloop_simulated: true });
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? SIM_SERVER_DEFAULTS.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    host,
    port,
    url: `http://${urlHost}:${port}/v1`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
