// A scripted, fault-injecting OpenAI-compatible server for tests of code that calls a model over
// HTTP (`revloop/test`; node:http on 127.0.0.1:0, point `openai-compatible:<url>#<model>` at it).
// Each request takes the next step of the script (then the fallback step): a status with headers and
// a body, a delay, a hang (never answers), headers-then-hang, or a connection reset. It records
// every request and the largest number of requests in flight at once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * One scripted reply: a status with headers and a body (`json` or raw `body`) after an optional delay,
 * a stream of `chunk` repeated, a hang, headers then a hang, or a connection reset.
 */
export type FaultStep =
  | { status?: number; headers?: Record<string, string>; json?: unknown; body?: string | Buffer; delayMs?: number }
  /** Streams `chunk` again and again (chunked) until the client goes away or `total` bytes were sent; `sent` counts them. */
  | { stream: { status?: number; chunk: Buffer; total?: number; sent?: { bytes: number } } }
  | { hang: true }
  | { headersThenHang: true }
  | { reset: true };

/** A request the server received: method, path, headers, the parsed JSON body (or the raw text), when. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The body as sent, byte for byte (UTF-8). */
  raw: string;
  at: number;
}

/** A running fault server: its base URL (`…/v1`), every request so far, the most in flight at once, and `close()`. */
export interface FaultServer {
  url: string;
  requests: SeenRequest[];
  maxInFlight: number;
  close(): Promise<void>;
}

/** A successful chat completion body with `content` as the assistant message (`extra`: top-level fields, `message`: message fields). */
export function chatOk(
  content: unknown,
  extra: Record<string, unknown> = {},
  message: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1,
    model: 'test-model',
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, message: { role: 'assistant', content, ...message }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    ...extra,
  };
}

/** The step for a request past the script: a fixed one, or one computed from the request (its parsed body and 0-based index). */
export type FaultFallback = FaultStep | ((body: any, index: number) => FaultStep);

/**
 * Starts a fault server on 127.0.0.1 (a free port): request i gets `script[i]`, every later one the
 * fallback (default: a completion with the text `fallback text`).
 */
export async function startFaultServer(
  script: FaultStep[],
  fallback: FaultFallback = { json: chatOk('fallback text') },
): Promise<FaultServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        /* keep the raw text */
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw, at: Date.now() });
      const step = next < script.length ? script[next] : typeof fallback === 'function' ? fallback(body, next) : fallback;
      next++;
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      const done = () => {
        inFlight--;
      };
      if ('hang' in step) {
        res.on('close', done);
        return;
      }
      if ('reset' in step) {
        req.socket.destroy();
        done();
        return;
      }
      if ('headersThenHang' in step) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "partial"');
        res.on('close', done);
        return;
      }
      if ('stream' in step) {
        const o = step.stream;
        res.writeHead(o.status ?? 200, { 'content-type': 'application/json' });
        let sent = 0;
        const pump = () => {
          while (!res.destroyed && (o.total === undefined || sent < o.total)) {
            sent += o.chunk.length;
            if (o.sent) o.sent.bytes = sent;
            if (!res.write(o.chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        res.on('close', done);
        res.on('error', () => undefined);
        pump();
        return;
      }
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
      const text = step.body ?? JSON.stringify(step.json ?? {});
      res.writeHead(step.status ?? 200, { 'content-type': 'application/json', ...(step.headers ?? {}) });
      res.end(text);
      done();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
