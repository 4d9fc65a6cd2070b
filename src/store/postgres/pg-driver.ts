// node-postgres, loaded without Node 20's fetch implementation. When pg loads, its stream.js rules
// out Cloudflare Workers by reading `navigator.userAgent` and, where there is no `navigator` (Node 20;
// Node 21 and later have one), by constructing a `Response`. That first touch of `Response` makes
// Node 20 load undici, about 25 ms of CPU in every process that opens a PostgreSQL store, for nothing
// pg uses. So on Node 20 a stand-in `navigator` (Node's own user agent, as Node 21 reports it) answers
// the first question during pg's synchronous load, and is removed before anything else runs.
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
