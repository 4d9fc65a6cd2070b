// node-postgres, loaded without Node 20's fetch implementation. When pg loads, its stream.js rules
// out Cloudflare Workers by reading `navigator.userAgent` and, where there is no `navigator` (Node 20;
// Node 21 and later have one), by constructing a `Response`, which makes Node 20 load undici for
// nothing pg uses (docs/performance.md#postgresql). So on Node 20 a stand-in `navigator` (Node's own
// user agent, as Node 21 reports it) answers the first question during pg's synchronous load, and is
// removed before anything else runs.
import { createRequire } from 'node:module';
import type * as Pg from 'pg';

function loadPg(): typeof Pg {
  const require = createRequire(import.meta.url);
  if ('navigator' in globalThis) return require('pg') as typeof Pg;
  Object.defineProperty(globalThis, 'navigator', {
    value: { userAgent: `Node.js/${process.versions.node.split('.')[0]}` },
    configurable: true,
    writable: true,
  });
  try {
    return require('pg') as typeof Pg;
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

/** The `pg` module (what `import pg from 'pg'` gives). */
export const pgDriver = loadPg();

/**
 * node-postgres's client, closing its socket when it fails to connect. pg-pool drops such a client
 * without ending it, so a login that failed on the client's side (the server asks for a password and
 * none is configured) kept its socket, and the process, alive until the server gave up on the login
 * (60 s by default) before the error could end the command.
 */
export class ClosingClient extends pgDriver.Client {
  // @ts-expect-error -- one implementation for both of pg's signatures (callback, or a promise).
  override connect(callback?: (err: Error | undefined) => void): Promise<unknown> | void {
    const close = () => (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    if (!callback)
      return super.connect().catch((e: unknown) => {
        close();
        throw e;
      });
    super.connect((err: Error | undefined) => {
      if (err) close();
      callback(err);
    });
  }
}
