// Rows of COLLIE's data in the format of collie_all.jsonl: id, key, source, structure, index, prompt,
// witness, witness_sha256, targets, metadata, constraint, official_check. Structures without a
// family (c01, c14, …) are reported as unsupported, never dropped silently.
import type { ConstraintCase } from '../../verify/types.ts';
import { checkSha, requireString, type Row, type RowResult } from './common.ts';
import { STRUCTURED_FAMILIES } from './paper-structured.ts';

export function readCollieRow(row: Row): RowResult {
  const problems: Array<[string, string]> = [];
  const id = requireString(row, 'id', problems);
  const structure = requireString(row, 'structure', problems);
  if (id !== undefined && structure !== undefined && !STRUCTURED_FAMILIES.includes(structure)) {
    return { kind: 'unsupported', id, structure };
  }
  const source = requireString(row, 'source', problems);
  const witness = requireString(row, 'witness', problems);
  checkSha(row, 'witness', 'witness_sha256', problems);
  if (row.targets === undefined) problems.push(['targets', 'is required']);
  if (row.prompt === undefined) problems.push(['prompt', 'is required']);
  const c: ConstraintCase = {
    id: id ?? '',
    family: structure ?? '',
    source: source ?? '',
    task: row.prompt as string,
    targets: row.targets,
    row,
  };
  if (witness !== undefined) c.witness = witness;
  return { kind: 'case', case: c, problems, structure: structure ?? '' };
}
