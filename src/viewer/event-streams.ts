// GET /api/events: server-sent events over the store's event log. Each stream starts at a cursor
// (the client's Last-Event-ID, `?after=`, or the log's head now) and is sent what happens after it,
// a batch at a time, as long as its socket keeps up; one timer polls the store for every stream.
// Their number is bounded: each replays the log from its cursor.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveEvent, ViewerBackend } from './api.ts';
import { SECURITY_HEADERS, send, wholeParam } from './http.ts';

interface Stream {
  res: ServerResponse;
  cursor: number;
  busy: boolean;
  blocked: boolean;
}

/** The event streams a viewer server has open. */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  private poller: ReturnType<typeof setInterval> | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly backend: ViewerBackend,
    /** How often the store is polled, in ms. */
    private readonly pollMs: number,
    /** Most events read per poll and stream. */
    private readonly batch: number,
    private readonly maxStreams: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Open streams. */
  get size(): number {
    return this.streams.size;
  }

  /** Opens a stream on `res` (or answers 429 when the most are open). */
  async open(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const streams = this.streams;
    // Each stream replays the log from its cursor: beyond the limit a client is asked to come back.
    if (streams.size >= this.maxStreams)
      return send(
        res,
        429,
        'application/json; charset=utf-8',
        JSON.stringify({
          error: `${streams.size} event streams are open, the most this viewer serves at once (maxStreams); retry later`,
        }),
        { 'retry-after': '5' },
      );
    // A reconnecting EventSource sends the last id it received; that wins over the URL's cursor.
    const last = req.headers['last-event-id'];
    let cursor: number | undefined;
    if (typeof last === 'string' && /^\d+$/.test(last.trim())) cursor = Number(last.trim());
    else cursor = wholeParam(url, 'after', 0);
    cursor ??= await this.backend.head();
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ cursor })}\n\n`);
    const s: Stream = { res, cursor, busy: false, blocked: false };
    streams.add(s);
    this.startTimers();
    const done = () => {
      streams.delete(s);
      if (!streams.size) this.stopTimers();
    };
    req.on('close', done);
    res.on('close', done);
    void this.pump(s);
  }

  /** Ends every stream and stops polling. */
  closeAll(): void {
    this.stopTimers();
    for (const s of this.streams) s.res.end();
    this.streams.clear();
  }

  /** Sends a stream what happened after its cursor, a batch at a time, as long as the socket keeps up. */
  private async pump(s: Stream): Promise<void> {
    if (s.busy || s.blocked || s.res.writableEnded) return;
    s.busy = true;
    try {
      for (;;) {
        const events: LiveEvent[] = await this.backend.eventsAfter(s.cursor, this.batch);
        if (s.res.writableEnded) return;
        let ok = true;
        for (const e of events) ok = s.res.write(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`) && ok;
        if (events.length) s.cursor = events[events.length - 1].id;
        if (!ok) {
          s.blocked = true;
          s.res.once('drain', () => {
            s.blocked = false;
            void this.pump(s);
          });
          return;
        }
        if (events.length < this.batch) return;
      }
    } catch (e) {
      this.log(`view: reading the event log failed: ${(e as Error).message}`);
      if (!s.res.writableEnded) s.res.write(`event: problem\ndata: ${JSON.stringify({ message: (e as Error).message })}\n\n`);
    } finally {
      s.busy = false;
    }
  }

  private startTimers(): void {
    if (this.poller) return;
    this.poller = setInterval(() => {
      for (const s of this.streams) void this.pump(s);
    }, this.pollMs);
    this.heartbeat = setInterval(() => {
      for (const s of this.streams) if (!s.blocked) s.res.write(': keep-alive\n\n');
    }, 15_000);
  }

  private stopTimers(): void {
    if (this.poller) clearInterval(this.poller);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.poller = this.heartbeat = null;
  }
}
