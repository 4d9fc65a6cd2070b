// `--json` output of every command: snake_case keys, as the paper's records and `analyze --json`
// have them (docs/running.md, "JSON output"). Outputs that had camelCase keys (`runs`, `audit`,
// `model info`, `model try`, `compare-policies`) keep those keys as well for one release, after the
// snake_case ones, so scripts reading them go on working while they move to the new names.

/** A camelCase key in snake_case (`runId` → `run_id`, `planSha256` → `plan_sha256`); others as they are. */
export function snakeKey(key: string): string {
  if (!/^[a-z][a-zA-Z0-9]*$/.test(key) || !/[A-Z]/.test(key)) return key;
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/**
 * A value with every object key in snake_case, recursively; with `legacy`, each renamed key is also
 * kept under its old name (after the new ones) for one release.
 */
export function snakeCaseKeys(value: unknown, legacy: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => snakeCaseKeys(v, legacy));
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  const renamed: Array<[string, unknown]> = [];
  for (const [key, v] of Object.entries(value)) {
    const converted = snakeCaseKeys(v, legacy);
    const snake = snakeKey(key);
    out[snake] = converted;
    if (legacy && snake !== key) renamed.push([key, converted]);
  }
  for (const [key, v] of renamed) if (!(key in out)) out[key] = v;
  return out;
}

/** The `--json` text of a value: snake_case keys (and, for one release, the old camelCase ones), two-space indent. */
export function jsonOutput(value: unknown, o: { legacyKeys?: boolean; indent?: number } = {}): string {
  return JSON.stringify(snakeCaseKeys(value, o.legacyKeys ?? true), null, o.indent ?? 2) + '\n';
}
