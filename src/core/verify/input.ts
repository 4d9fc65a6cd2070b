// Turning a bare verification request ({family, target, anchors} or {family, targets}) into a
// ConstraintCase, with the problems that would make verification meaningless. Prompt-only fields
// (instruction, task) are not needed to verify a text, so their absence is not a problem here.
import { hasFamily, familyNames, getFamily } from './registry.ts';
import type { ConstraintCase, Family } from './types.ts';

const PROMPT_ONLY_FIELDS = new Set(['instruction', 'task']);

export interface VerifyRequest {
  id?: unknown;
  family: unknown;
  target?: unknown;
  anchors?: unknown;
  targets?: unknown;
  [field: string]: unknown;
}

export type RequestResult = { ok: true; family: Family; case: ConstraintCase } | { ok: false; problems: Array<[string, string]> };

export function caseFromRequest(req: VerifyRequest): RequestResult {
  if (typeof req.family !== 'string' || req.family === '') {
    return { ok: false, problems: [['family', `must name a family (${familyNames().join(', ')})`]] };
  }
  if (!hasFamily(req.family))
    return { ok: false, problems: [['family', `unknown family '${req.family}'; known families: ${familyNames().join(', ')}`]] };
  const family = getFamily(req.family);
  const c: ConstraintCase = {
    id: req.id === undefined || req.id === null ? '' : String(req.id),
    family: family.name,
    source: typeof req.source === 'string' ? req.source : 'input',
  };
  if (req.target !== undefined) c.target = req.target as number;
  if (req.anchors !== undefined) c.anchors = req.anchors as string[];
  if (req.targets !== undefined) c.targets = req.targets;
  for (const k of ['instruction', 'task', 'witness'] as const) if (typeof req[k] === 'string') c[k] = req[k] as string;
  const problems = family.validateCase(c).filter(([field]) => !(PROMPT_ONLY_FIELDS.has(field) && req[field] === undefined));
  return problems.length ? { ok: false, problems } : { ok: true, family, case: c };
}
