// A TCP proxy with a fixed one-way delay, in process: a database a network hop away, for the benches
// that measure what round trips cost (bench/append-lock.ts, bench/workers.ts --pg-delay-ms), and the
// store URLs that reach a schema directly or through it.
import { createServer, connect, type Socket } from 'node:net';

/** A TCP proxy that delays every chunk by `delayMs` each way (timers of one duration fire in order). */
export function delayProxy(host: string, port: number, delayMs: number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    // No Nagle: pg sets TCP_NODELAY too, and a pipelined write behind an unacknowledged one would
    // otherwise wait for the peer's delayed ACK (tens of milliseconds).
    for (const s of [client, upstream]) sockets.add(s.setNoDelay(true));
    // (Node's timers wait at least 1 ms, so 0 forwards at once.)
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (d) => (delayMs > 0 ? setTimeout(() => to.destroyed || to.write(d), delayMs) : to.write(d)));
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

/** A PostgreSQL URL naming `schema`, directly or (`proxyPort`) through a proxy on this machine. */
export function schemaUrl(url: string, schema: string, proxyPort?: number): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  if (proxyPort !== undefined) {
    u.hostname = '127.0.0.1';
    u.port = String(proxyPort);
  }
  return u.toString();
}
