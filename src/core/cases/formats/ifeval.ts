// Rows of IFEval's input_data.jsonl: {key, prompt, instruction_id_list, kwargs}. Each becomes an
// `ifeval` case with id `ifeval__<key>`, the prompt as its task and the instructions as targets.
import type { ConstraintCase } from '../../verify/types.ts';
import { typeName, type Row, type RowResult } from './common.ts';

export function readIfevalRow(row: Row): RowResult {
  const problems: Array<[string, string]> = [];
  const key = row.key;
  if (key === undefined) problems.push(['key', 'is required']);
  else if (!(typeof key === 'number' && Number.isInteger(key)) && typeof key !== 'string')
    problems.push(['key', `must be an integer or a string, got ${typeName(key)}`]);
  if (row.prompt === undefined) problems.push(['prompt', 'is required']);
  if (row.instruction_id_list === undefined) problems.push(['instruction_id_list', 'is required']);
  if (row.kwargs === undefined) problems.push(['kwargs', 'is required']);
  const c: ConstraintCase = {
    id: key === undefined ? '' : `ifeval__${String(key)}`,
    family: 'ifeval',
    source: 'ifeval',
    task: row.prompt as string,
    targets: { instruction_id_list: row.instruction_id_list, kwargs: row.kwargs },
    row,
  };
  return { kind: 'case', case: c, problems, structure: 'ifeval' };
}
