// The paper's exact-length schema (PROTOCOL §2.1): anchor_eligible, anchors, id, instruction,
// length_band, reference, reference_sha256, source, source_id, target.
import type { ConstraintCase } from '../../verify/types.ts';
import { checkSha, optionalString, requireString, type Row, type RowResult } from './common.ts';

export function readPaperExactRow(row: Row): RowResult {
  const problems: Array<[string, string]> = [];
  const id = requireString(row, 'id', problems);
  const source = requireString(row, 'source', problems);
  const reference = optionalString(row, 'reference', problems);
  checkSha(row, 'reference', 'reference_sha256', problems);
  const c: ConstraintCase = {
    id: id ?? '',
    family: 'exact-length',
    source: source ?? '',
    instruction: row.instruction as string,
    target: row.target as number,
    anchors: row.anchors as string[],
    row,
  };
  if (reference !== undefined) c.witness = reference;
  return { kind: 'case', case: c, problems, structure: 'exact-length' };
}
