// revloop's own case format (docs/cases.md): one JSON object per line with the ConstraintCase
// fields. Unknown fields are refused so that typos ("anchor" for "anchors") are caught.
import { familyNames, hasFamily } from '../../verify/registry.ts';
import type { ConstraintCase } from '../../verify/types.ts';
import { optionalString, requireString, typeName, type Row, type RowResult } from './common.ts';

/** Field order of a native row (also the order writeCaseSet writes). */
const NATIVE_FIELDS = ['id', 'family', 'source', 'instruction', 'target', 'anchors', 'task', 'targets', 'witness', 'meta'] as const;
const KNOWN = new Set<string>(NATIVE_FIELDS);

const DEFAULT_NATIVE_SOURCE = 'unspecified';

export function readNativeRow(row: Row): RowResult {
  const problems: Array<[string, string]> = [];
  const id = requireString(row, 'id', problems);
  const family = requireString(row, 'family', problems);
  if (family !== undefined && !hasFamily(family))
    problems.push(['family', `unknown family '${family}'; known families: ${familyNames().join(', ')}`]);
  const source = optionalString(row, 'source', problems);
  const witness = optionalString(row, 'witness', problems);
  if (row.meta !== undefined && (row.meta === null || typeof row.meta !== 'object' || Array.isArray(row.meta))) {
    problems.push(['meta', `must be an object, got ${typeName(row.meta)}`]);
  }
  for (const k of Object.keys(row))
    if (!KNOWN.has(k)) problems.push([k, `unknown field; native case fields are ${NATIVE_FIELDS.join(', ')}`]);
  const c: ConstraintCase = {
    id: id ?? '',
    family: family && hasFamily(family) ? family : '',
    source: source ?? DEFAULT_NATIVE_SOURCE,
    row,
  };
  if (row.instruction !== undefined) c.instruction = row.instruction as string;
  if (row.target !== undefined) c.target = row.target as number;
  if (row.anchors !== undefined) c.anchors = row.anchors as string[];
  if (row.task !== undefined) c.task = row.task as string;
  if (row.targets !== undefined) c.targets = row.targets;
  if (witness !== undefined) c.witness = witness;
  return { kind: 'case', case: c, problems, structure: c.family };
}

/** The native row for a case (fields in NATIVE_FIELDS order; absent fields omitted). */
export function nativeRow(c: ConstraintCase): Record<string, unknown> {
  const out: Record<string, unknown> = { id: c.id, family: c.family, source: c.source };
  if (c.instruction !== undefined) out.instruction = c.instruction;
  if (c.target !== undefined) out.target = c.target;
  if (c.anchors !== undefined) out.anchors = c.anchors;
  if (c.task !== undefined) out.task = c.task;
  if (c.targets !== undefined) out.targets = c.targets;
  if (c.witness !== undefined) out.witness = c.witness;
  const meta = c.row?.meta;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) out.meta = meta;
  return out;
}
