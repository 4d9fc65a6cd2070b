// The paper's lexical/compositional schema (PROTOCOL §2.2): id, family, structure, split, source,
// upstream_key, upstream_index, task, targets, witness, witness_sha256, initial_verifier_state,
// corruption_checks, domain, benchmark_partition. The runnable family is the `structure`.
import { hasFamily } from '../../verify/registry.ts';
import type { ConstraintCase } from '../../verify/types.ts';
import { checkSha, requireString, type Row, type RowResult } from './common.ts';

export const STRUCTURED_FAMILIES = ['c05', 'c07', 'c09', 'c10', 'c12'];

export function readPaperStructuredRow(row: Row): RowResult {
  const problems: Array<[string, string]> = [];
  const id = requireString(row, 'id', problems);
  const source = requireString(row, 'source', problems);
  const structure = requireString(row, 'structure', problems);
  const witness = requireString(row, 'witness', problems);
  checkSha(row, 'witness', 'witness_sha256', problems);
  if (structure !== undefined && !STRUCTURED_FAMILIES.includes(structure)) {
    problems.push(['structure', `must be one of ${STRUCTURED_FAMILIES.join(', ')}, got ${JSON.stringify(structure)}`]);
  }
  if (row.targets === undefined) problems.push(['targets', 'is required']);
  const family = structure && hasFamily(structure) ? structure : '';
  const c: ConstraintCase = { id: id ?? '', family, source: source ?? '', task: row.task as string, targets: row.targets, row };
  if (witness !== undefined) c.witness = witness;
  return { kind: 'case', case: c, problems, structure: structure ?? '' };
}
