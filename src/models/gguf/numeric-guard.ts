// Numeric guards for teacher-forced scores (docs/harness.md §3.7): a log-probability must be finite and
// <= 0, otherwise the numerical path is broken and nothing may be recorded. node-llama-cpp returns
// float32 probabilities, so a very unlikely token can underflow to exactly 0; that is clamped to
// the log of the smallest positive float32 and counted, never silently turned into -Infinity.

import { markErrorClass, RevloopError } from '../../core/errors.ts';

/**
 * Thrown when the model produced a value no scorer may record (NaN, ±Infinity, log-prob > 0): a
 * fault of the model's numerics (code `E_NUMERIC`), not of the request.
 */
export class NumericGuardError extends RevloopError {
  /** Whether `e` is a NumericGuardError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<NumericGuardError>(this, 'revloop.error.NumericGuardError');

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, code: 'E_NUMERIC' });
    this.name = 'NumericGuardError';
  }
}

/** log of the smallest positive (subnormal) float32, 2^-149: the floor an underflowed probability is clamped to. */
export const LOGPROB_UNDERFLOW_FLOOR = Math.log(2 ** -149);

/** Throws unless `value` is a finite number <= 0. `where` names the position for the message. */
export function checkLogprob(value: number, where: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new NumericGuardError(`non-finite log-probability (NaN) at ${where}; refusing to record scores`);
  }
  if (!Number.isFinite(value)) {
    throw new NumericGuardError(`non-finite log-probability (${value}) at ${where}; refusing to record scores`);
  }
  if (value > 0) {
    throw new NumericGuardError(`positive log-probability (${value}) at ${where}; refusing to record scores`);
  }
  return value;
}

/**
 * Converts a probability from the model to a guarded log-probability. A probability of exactly 0
 * (float32 underflow) becomes LOGPROB_UNDERFLOW_FLOOR and `clamped` is true; NaN, negative values
 * and values above 1 are rejected.
 */
export function probabilityToLogprob(p: number | undefined, where: string): { logprob: number; clamped: boolean } {
  if (p === undefined) throw new NumericGuardError(`no probability returned for the token at ${where}; refusing to record scores`);
  if (typeof p !== 'number' || Number.isNaN(p) || !Number.isFinite(p)) {
    throw new NumericGuardError(`non-finite probability (${p}) at ${where}; refusing to record scores`);
  }
  if (p < 0) throw new NumericGuardError(`negative probability (${p}) at ${where}; refusing to record scores`);
  if (p === 0) return { logprob: LOGPROB_UNDERFLOW_FLOOR, clamped: true };
  return { logprob: checkLogprob(Math.log(p), where), clamped: false };
}

/**
 * Tripwire on a returned next-token distribution (the analogue of the reference's check of the
 * first logits of the last row): its leading entries must be finite probabilities in [0, 1].
 */
export function checkDistribution(probabilities: Map<number, number>, where: string, entries = 8): void {
  let i = 0;
  for (const [token, p] of probabilities) {
    if (i++ >= entries) break;
    if (!Number.isFinite(p) || p < 0 || p > 1 + 1e-6) {
      throw new NumericGuardError(
        `non-finite or invalid probability ${p} for token ${token} at ${where}: non-finite logits from the model; refusing to record scores`,
      );
    }
  }
  if (i === 0) throw new NumericGuardError(`empty next-token distribution at ${where}; refusing to record scores`);
}
