// V8 tuned for a command that does one batch of work in a fresh process: `revloop verify --jsonl`,
// `revloop run` and `revloop worker` optimise later and inline less (why and the figures:
// docs/performance.md#jit-flags). These flags change only when and how V8 compiles, never what the
// code computes. Process-wide, so worker threads get them too; REVLOOP_V8_TUNING=0 leaves V8's
// defaults (for comparison).
import { setFlagsFromString } from 'node:v8';

export const BATCH_V8_FLAGS = ['--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=400'] as const;

/**
 * The flags for the V8 of `v8Version` (process.versions.v8): they were measured on Node 20's V8 11,
 * and V8 12 (Node 22) has no `--interrupt-budget` any more, where setting it prints an error on
 * standard error at every start. Other versions keep V8's defaults.
 */
export function batchV8Flags(v8Version: string): readonly string[] {
  return Number(v8Version.split('.')[0]) === 11 ? BATCH_V8_FLAGS : [];
}

/** Applies the batch flags for this V8 unless REVLOOP_V8_TUNING=0; call before the batch's code first runs. */
export function tuneV8ForBatch(): void {
  if (process.env.REVLOOP_V8_TUNING === '0') return;
  const flags = batchV8Flags(process.versions.v8);
  if (flags.length > 0) setFlagsFromString(flags.join(' '));
}
