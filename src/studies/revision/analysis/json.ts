// Strict JSON for analysis output: JSON.stringify silently writes NaN and ±Infinity as null, which
// would hide a bug as a "missing" value. Every null we emit is deliberate and carries a reason.

/** Throws if any number in `value` is NaN or infinite (path in the message). */
export function assertStrictJson(value: unknown, path = '$'): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`analysis output has a non-finite number at ${path}: ${value}`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertStrictJson(v, `${path}[${i}]`));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) assertStrictJson(v, `${path}.${k}`);
  }
}

/** The analysis as one strict JSON document (2-space indent, trailing newline). */
export function analysisJson(value: unknown): string {
  assertStrictJson(value);
  return JSON.stringify(value, null, 2) + '\n';
}
