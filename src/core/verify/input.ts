// Turning a bare verification request ({family, target, anchors} or {family, targets}) into a
// ConstraintCase, with the problems that would make verification meaningless. Prompt-only fields
// (instruction, task) are not needed to verify a text, so their absence is not a problem here.
import { hasFamily, familyNames, getFamily } from './registry.ts';
import type { ConstraintCase, Family, TextRule } from './types.ts';

const PROMPT_ONLY_FIELDS = new Set(['instruction', 'task']);

export interface RequestOptions {
  /** IFEval: the follow list joint success uses, for rows that do not say (`--ifeval-mode`). */
  ifevalMode?: 'strict' | 'loose';
  /** Verify every row's text by this rule instead of its family's (text-rule.ts; `--text-rule`). */
  textRule?: TextRule;
}

/**
 * One line of a `verifyBatch` input (and of `revloop verify --jsonl`): an optional id, the family, the text, and the case fields the
 * family needs.
 */
export interface VerifyRequest {
  id?: unknown;
  family: unknown;
  target?: unknown;
  anchors?: unknown;
  targets?: unknown;
  [field: string]: unknown;
}

export type RequestResult = { ok: true; family: Family; case: ConstraintCase } | { ok: false; problems: Array<[string, string]> };

export function caseFromRequest(req: VerifyRequest, options: RequestOptions = {}): RequestResult {
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
  // IFEval rows: {prompt, instruction_id_list, kwargs} as in IFEval's input_data.jsonl.
  if (typeof req.prompt === 'string' && c.task === undefined) c.task = req.prompt;
  if (req.targets === undefined && (req.instruction_id_list !== undefined || req.kwargs !== undefined)) {
    c.targets = { instruction_id_list: req.instruction_id_list, kwargs: req.kwargs };
  }
  const t = c.targets as Record<string, unknown> | undefined;
  if (family.name === 'ifeval' && options.ifevalMode && t && typeof t === 'object' && t.mode === undefined) {
    c.targets = { ...t, mode: options.ifevalMode };
  }
  const problems = family.validateCase(c).filter(([field]) => !(PROMPT_ONLY_FIELDS.has(field) && req[field] === undefined));
  return problems.length ? { ok: false, problems } : { ok: true, family, case: c };
}
