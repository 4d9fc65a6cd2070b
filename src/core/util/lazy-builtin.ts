// Node built-ins that most revloop processes never use, loaded on first use instead of at start-up.
// A `revloop run` over plain http: never needs TLS or decompression, yet a static import of
// node:https and node:zlib costs every process about 6.5 ms of CPU to load them (docs/running.md,
// "Client CPU per generation", round 10). `require` of a built-in is synchronous and cached.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const zlib = (): typeof import('node:zlib') => require('node:zlib') as typeof import('node:zlib');
export const https = (): typeof import('node:https') => require('node:https') as typeof import('node:https');
