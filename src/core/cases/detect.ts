// Which format a case file is in, decided from its first row.
import type { CaseFormat } from './types.ts';

const has = (row: Record<string, unknown>, ...keys: string[]) => keys.every((k) => k in row);

/** The format a row looks like, or null when it matches none. */
export function detectRowFormat(row: Record<string, unknown>): CaseFormat | null {
  if (has(row, 'prompt', 'structure', 'witness', 'targets')) return 'collie';
  if (has(row, 'structure', 'task', 'targets')) return 'paper-structured';
  if (has(row, 'instruction', 'anchors', 'target') && !('family' in row)) return 'paper-exact';
  if (typeof row.family === 'string' && !('structure' in row)) return 'native';
  return null;
}

export const FORMAT_HINTS: Record<CaseFormat, string> = {
  'paper-exact': 'rows with id, instruction, target, anchors, reference, source (generation_combined480.jsonl)',
  'paper-structured': 'rows with id, structure, task, targets, witness, source (*_constraints_combined480.jsonl)',
  collie: 'rows with id, structure, prompt, targets, witness, source (collie_all.jsonl)',
  native: "rows with id, family and the family's fields (docs/cases.md)",
};
