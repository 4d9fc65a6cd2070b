// Named random streams (docs/harness.md §9): seed = BLAKE2b-64("{base}:{name}") mod (2^31 − 1), fed to
// CPython's random.Random. Worlds use `toolshed-world-{i}`, probe tasks `toolshed-task-{i}`, agent
// tasks `agent-task-{i}`.
import { blake2b } from '../../core/py/blake2b.ts';
import { PyRandom } from '../../core/py/random.ts';
import { REFERENCE_SEED } from '../../core/reference-seed.ts';

export const DEFAULT_SEED = REFERENCE_SEED;

/** `derive_seed(base, name)`: big-endian BLAKE2b (digest_size=8) of "{base}:{name}", mod 2^31−1. */
export function deriveSeed(base: number, name: string): number {
  const digest = blake2b(`${base}:${name}`, { digestSize: 8 });
  const n = BigInt('0x' + Buffer.from(digest).toString('hex'));
  return Number(n % 2147483647n);
}

/** `rng_for(base, name)`: a random.Random bound to the named stream. */
export function rngFor(base: number, name: string): PyRandom {
  return new PyRandom(deriveSeed(base, name));
}
