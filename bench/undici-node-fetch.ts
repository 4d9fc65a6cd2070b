// Stands in for models/http/node-fetch (src/ or dist/, the URL in REVLOOP_BENCH_NODE_FETCH) when
// bench/run-http.ts --client runs (bench/undici-hook.mjs redirects the transport's import here):
// createExchange gives an exchange over undici (bench/undici-exchange.ts), or with --client http1
// the real one; everything else is the real module's.
import type * as NodeFetch from '../src/models/http/node-fetch.ts';
import { createUndiciExchange, type UndiciFlavour } from './undici-exchange.ts';

const real = (await import(process.env.REVLOOP_BENCH_NODE_FETCH!)) as typeof NodeFetch;
const flavour = process.env.REVLOOP_BENCH_CLIENT as UndiciFlavour;

export const BodyTooLarge = real.BodyTooLarge;
export const DeadlineExceeded = real.DeadlineExceeded;
export const createKeepAliveFetch = real.createKeepAliveFetch;
export type { ExchangeInit, ExchangeResult, HttpExchange } from '../src/models/http/node-fetch.ts';

export function createExchange(options: { idleSocketMs?: number } = {}): NodeFetch.HttpExchange {
  if ((flavour as string) === 'http1') return real.createExchange(options);
  return createUndiciExchange(flavour, { ...options, errors: real });
}
