// V8 tuned for a command that does one batch of work in a fresh process: `revloop verify --jsonl`,
// `revloop run` and `revloop worker`. Turbofan's defaults suit long-running servers: on the messy
// benchmark input, about 40% of a whole `verify --jsonl` run's CPU time went to optimising
// compilations on V8's background threads, many of them repeated after a deoptimisation of a
// function optimised on incomplete type feedback. Optimising later (an interrupt budget 4.4× V8's
// 67,584: more type feedback first, fewer functions optimised at all) and inlining less (a
// cumulative budget of 400 bytecode bytes instead of 920) cut the whole run's CPU time by about a
// fifth; the steady state stays within a few percent (inlining still less, 200, slowed
// exact-length's steady state by a fifth), so a run of 46,000 rows still gains (docs/verify.md
// "Speed"). A `revloop run` of the paper's 480 exact-length cases over HTTP (1,899 generations) needs
// about 9% less CPU with them, its steady state no more (docs/running.md "Client CPU per
// generation"). These flags change only when and how V8 compiles, never what the code computes.
// Process-wide, so worker threads get them too; REVLOOP_V8_TUNING=0 leaves V8's defaults (for
// comparison).
import { setFlagsFromString } from 'node:v8';

export const BATCH_V8_FLAGS = ['--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=400'] as const;

/** Applies BATCH_V8_FLAGS unless REVLOOP_V8_TUNING=0; call before the batch's code first runs. */
export function tuneV8ForBatch(): void {
  if (process.env.REVLOOP_V8_TUNING === '0') return;
  setFlagsFromString(BATCH_V8_FLAGS.join(' '));
}
