// Node built-ins that most revloop processes never use, loaded on first use instead of at start-up
// (a `revloop run` over plain http: never needs TLS or decompression; docs/performance.md#start-up).
// `require` of a built-in is synchronous and cached.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const zlib = (): typeof import('node:zlib') => require('node:zlib') as typeof import('node:zlib');
export const https = (): typeof import('node:https') => require('node:https') as typeof import('node:https');
