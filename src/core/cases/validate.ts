// Deep checks of a case read from a file: the family's own field checks, then that the witness (or
// exact-length reference) passes its own verifier, and for the paper's structured files that the
// stored initial_verifier_state and corruption_checks are reproduced exactly.
import { UserError } from '../errors.ts';
import { pyJsonDumps } from '../py/format.ts';
import { getFamily } from '../verify/registry.ts';
import type { ConstraintCase, Family, VerifierState } from '../verify/types.ts';
import type { CaseFormat } from './types.ts';
import { MAX_NEW_TOKENS } from '../verify/limits.ts';

/** Field names of the row that correspond to ConstraintCase fields, per format. */
const FIELD_NAMES: Record<CaseFormat, Record<string, string>> = {
  'paper-exact': { witness: 'reference' },
  'paper-structured': {},
  collie: { task: 'prompt' },
  native: {},
  ifeval: { task: 'prompt', targets: 'kwargs' },
};

function rowField(format: CaseFormat, caseField: string): string {
  return FIELD_NAMES[format][caseField] ?? caseField;
}

function clip(s: string, n = 160): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** Why a witness fails, in a line: the family's baseline feedback report, compacted. */
function explainFailure(family: Family, state: VerifierState, c: ConstraintCase): string {
  if (family.name === 'exact-length') {
    const s = state as VerifierState & { word_count: number; missing: string[] };
    const parts = [`it has ${s.word_count} words, target ${c.target}`];
    if (s.missing.length) parts.push(`missing anchors: ${s.missing.map((a) => JSON.stringify(a)).join(', ')}`);
    return parts.join('; ');
  }
  try {
    const lines = family.feedback(state, c, 'baseline').split('\n');
    return clip(lines.slice(1, -1).join(' | ') || lines.join(' | '), 300);
  } catch {
    return `violation_vector ${pyJsonDumps(state.violation_vector)}`;
  }
}

/** Runs a verifier call, turning its crash into a row problem (but missing Punkt data etc. stays a UserError). */
function attempt<T>(fn: () => T, problems: Array<[string, string]>, field: string): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (e instanceof UserError) throw e;
    problems.push([field, `the verifier failed on it: ${(e as Error).message}`]);
    return undefined;
  }
}

function firstDifference(stored: unknown, computed: Record<string, unknown>): string {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return 'it is not an object';
  const s = stored as Record<string, unknown>;
  const keysS = Object.keys(s);
  const keysC = Object.keys(computed);
  if (keysS.join('\u0000') !== keysC.join('\u0000')) return `fields differ: stored [${keysS.join(', ')}], computed [${keysC.join(', ')}]`;
  for (const k of keysC) {
    const a = pyJsonDumps(s[k], { floatKeys: new Set() });
    const b = pyJsonDumps(computed[k], { floatKeys: new Set() });
    if (a !== b) return `${k}: stored ${clip(a, 120)}, computed ${clip(b, 120)}`;
  }
  return 'the serialised bytes differ (int/float typing)';
}

export function checkCase(c: ConstraintCase, format: CaseFormat): Array<[string, string]> {
  const family = getFamily(c.family);
  const problems: Array<[string, string]> = family.validateCase(c).map(([f, p]) => [rowField(format, f), p]);
  if (problems.length) return problems;
  // Whatever the family's fields allow, no request may ask for an absurd number of tokens.
  const tokens = attempt(() => family.maxNewTokens(c), problems, rowField(format, c.targets !== undefined ? 'targets' : 'target'));
  if (tokens !== undefined && !(Number.isSafeInteger(tokens) && tokens >= 1 && tokens <= MAX_NEW_TOKENS))
    problems.push([
      rowField(format, c.targets !== undefined ? 'targets' : 'target'),
      `asks a model for ${tokens} new tokens; at most ${MAX_NEW_TOKENS} are allowed`,
    ]);
  if (problems.length || c.witness === undefined) return problems;
  const witnessField = rowField(format, 'witness');
  const state = attempt(() => family.verify(c.witness!, c), problems, witnessField);
  if (!state) return problems;
  if (!state.joint_success) problems.push([witnessField, `does not pass its own verifier: ${explainFailure(family, state, c)}`]);
  const row = c.row ?? {};
  if (format === 'paper-structured' && row.initial_verifier_state !== undefined) {
    if (pyJsonDumps(row.initial_verifier_state) !== pyJsonDumps(state)) {
      problems.push([
        'initial_verifier_state',
        `differs from the verifier's state of the witness: ${firstDifference(row.initial_verifier_state, state)}`,
      ]);
    }
  }
  if (format === 'paper-structured' && row.corruption_checks !== undefined && family.corruptionChecks) {
    const computed = attempt(() => family.corruptionChecks!(c), problems, 'corruption_checks');
    if (computed) {
      if (pyJsonDumps(row.corruption_checks) !== pyJsonDumps(computed)) {
        problems.push([
          'corruption_checks',
          `differ from the recomputed checks: stored ${pyJsonDumps(row.corruption_checks)}, computed ${pyJsonDumps(computed)}`,
        ]);
      } else {
        const failed = Object.entries(computed)
          .filter(([, v]) => !v)
          .map(([k]) => k);
        if (failed.length) problems.push(['corruption_checks', `not detected by the verifier: ${failed.join(', ')}`]);
      }
    }
  }
  return problems;
}
