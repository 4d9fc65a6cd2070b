// The probe study's defaults for the options a caller leaves out: one home, read by the study and by
// `revloop probe` for its flags' defaults. A light module: the command line reads it at start.
import { VERIFY_TOLERANCE } from '../../models/scoring.ts';

/** Defaults of `verifyProbeScoring` (`revloop probe verify`): the sample, its seed and the tolerance in nats. */
export const PROBE_VERIFY_DEFAULTS = Object.freeze({
  /** Items re-scored without the prefix cache (Python random.Random(seed).sample). */
  n: 12,
  /** The sample's seed. */
  seed: 0 as number,
  /** Largest allowed |cached - fresh| in nats: the scoring backends' own. */
  tolerance: VERIFY_TOLERANCE,
});
