// The agent study's settings of record (docs/harness.md §5.2): one home, read by the study's
// rollouts, `agent()` for the options a caller leaves out, and `revloop agent` for its flags'
// defaults. A light module: the command line reads it at start.
import { REFERENCE_SEED } from '../../core/reference-seed.ts';
import type { RolloutSettings } from './engine.ts';

/** Settings of record of the reference study (docs/harness.md §5.2): tasks, steps, tokens per turn, greedy, the reference's seed. */
export const STUDY_SETTINGS: Readonly<RolloutSettings & { nTasks: number }> = Object.freeze({
  nTasks: 24,
  maxSteps: 6,
  maxNewTokens: 32,
  temperature: 0,
  seed: REFERENCE_SEED,
});
