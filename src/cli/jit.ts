// V8 tuned for a command that does one batch of work in a fresh process: `revloop verify --jsonl`,
// `revloop run` and `revloop worker` optimise later and inline less (why and the figures:
// docs/performance.md#jit-flags). These flags change only when and how V8 compiles, never what the
// code computes. Process-wide, so worker threads get them too; REVLOOP_V8_TUNING=0 leaves V8's
// defaults (for comparison).
import { setFlagsFromString } from 'node:v8';

export const BATCH_V8_FLAGS = ['--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=400'] as const;

/** Applies BATCH_V8_FLAGS unless REVLOOP_V8_TUNING=0; call before the batch's code first runs. */
export function tuneV8ForBatch(): void {
  if (process.env.REVLOOP_V8_TUNING === '0') return;
  setFlagsFromString(BATCH_V8_FLAGS.join(' '));
}
