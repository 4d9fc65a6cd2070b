// Importing trajectories produced elsewhere (another harness, a published log): each line names a
// controller, a case and the drafts in order. Every draft is stripped and verified here, the stop
// rule is applied (drafts after the first success are dropped and counted), and the result is
// stored as an ordinary run, so every analysis, the audit and the export work on it. The whole file
// is checked before anything is written, and written in one transaction.
import { checkNewRunId } from '../../store/run-id.ts';
import { jsonTextFault } from '../../core/util/text-boundary.ts';
import { hostname } from 'node:os';
import { REVLOOP_VERSION } from '../../core/version.ts';
import { PAPER_PROTOCOL, protocolSpec } from '../../engine/protocol.ts';
import { InputError, namingOption, UserError } from '../../core/errors.ts';
import { pyStrip } from '../../core/py/format.ts';
import { renderProblems } from '../../core/cases/errors.ts';
import type { ConstraintCase, Family } from '../../core/verify/types.ts';
import type { NewEvent, PerCase, RunPlannedPayload } from '../../store/events.ts';
import { casesSha256, familyFingerprint, planSha256, type RunPlan } from '../../store/plan.ts';
import { planFormat } from '../../store/run-kinds.ts';
import { IMPORT_KIND } from '../../engine/trajectory-kinds.ts';
import type { RunStore } from '../../store/store.ts';

/** One line of an import file (docs/running.md "Importing trajectories"). */
export interface ImportLine {
  id: string;
  controller: string;
  family: string;
  case_id: string;
  source: string;
  drafts: string[];
  /** Structured families. */
  targets?: unknown;
  /** Exact length. */
  target?: number;
  anchors?: string[];
  /** Optional prompt fields (make prompts and max-token rules available to later tools). */
  task?: string;
  instruction?: string;
  witness?: string;
  simulated?: boolean;
}

interface ImportOptions {
  runId: string;
  /** Where the lines came from (messages and the plan). */
  file: string;
  fileSha256: string | null;
  format: string;
  /** Apply a common budget T: drafts beyond T+1 are dropped; shorter unresolved ones are incomplete. */
  budget?: number;
  resolveFamily: (name: string) => Family;
}

export interface ImportSummary {
  runId: string;
  trajectories: number;
  draftsSupplied: number;
  roundsStored: number;
  droppedAfterSuccess: number;
  /** Trajectories that had drafts after their first success. */
  truncatedTrajectories: number;
  droppedBeyondBudget: number;
  successes: number;
  incomplete: number;
  controllers: string[];
}

const LINE_FIELDS = new Set([
  'id',
  'controller',
  'family',
  'case_id',
  'source',
  'drafts',
  'targets',
  'target',
  'anchors',
  'task',
  'instruction',
  'witness',
  'simulated',
]);
/** Fields only needed to render prompts; imported drafts were prompted elsewhere. */
const PROMPT_FIELDS = new Set(['instruction', 'task']);

/** Checks one parsed line; returns its problems as [field, problem]. */
function lineProblems(
  v: unknown,
  resolveFamily: (name: string) => Family,
): { line?: ImportLine; c?: ConstraintCase; problems: Array<[string | null, string]> } {
  const problems: Array<[string | null, string]> = [];
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { problems: [[null, 'expected a JSON object']] };
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!LINE_FIELDS.has(k)) problems.push([k, `unknown field; import fields are ${[...LINE_FIELDS].join(', ')}`]);
  for (const k of ['id', 'controller', 'family', 'case_id', 'source']) {
    if (typeof o[k] !== 'string' || o[k] === '') problems.push([k, 'must be a non-empty string']);
  }
  if (!Array.isArray(o.drafts) || o.drafts.length === 0 || !o.drafts.every((d) => typeof d === 'string'))
    problems.push(['drafts', 'must be a non-empty list of strings']);
  if (o.simulated !== undefined && typeof o.simulated !== 'boolean') problems.push(['simulated', 'must be true or false']);
  if (problems.length) return { problems };
  const line = o as unknown as ImportLine;
  let family: Family;
  try {
    family = resolveFamily(line.family);
  } catch (e) {
    return { problems: [['family', (e as Error).message]] };
  }
  const c: ConstraintCase = { id: line.case_id, family: line.family, source: line.source };
  for (const k of ['targets', 'target', 'anchors', 'task', 'instruction', 'witness'] as const)
    if (line[k] !== undefined) (c as unknown as Record<string, unknown>)[k] = line[k];
  for (const [field, problem] of family.validateCase(c)) {
    if (PROMPT_FIELDS.has(field) && c[field as 'task' | 'instruction'] === undefined) continue;
    problems.push([field, problem]);
  }
  return { line, c, problems };
}

interface ParsedImport {
  lines: Array<{ line: ImportLine; c: ConstraintCase; lineNo: number }>;
}

/** Validates every line (all problems at once, as file:line: field: problem). */
export function parseImportLines(
  items: Array<{ line: number; value?: unknown; error?: string; field?: string }>,
  file: string,
  resolveFamily: (name: string) => Family,
): ParsedImport {
  const errors: InputError[] = [];
  const out: ParsedImport['lines'] = [];
  const ids = new Map<string, number>();
  const pairs = new Map<string, number>();
  for (const item of items) {
    if (item.error) {
      errors.push(new InputError(item.error, { file, line: item.line, field: item.field ?? null }));
      continue;
    }
    // The text boundary for lines that did not come through readJsonlLines (a converted COLLIE log).
    const bad = jsonTextFault(item.value);
    if (bad) {
      errors.push(new InputError(bad.fault.problem, { file, line: item.line, field: bad.field }));
      continue;
    }
    const { line, c, problems } = lineProblems(item.value, resolveFamily);
    for (const [field, problem] of problems) errors.push(new InputError(problem, { file, line: item.line, field }));
    if (!line || !c || problems.length) continue;
    const dupId = ids.get(line.id);
    if (dupId !== undefined)
      errors.push(
        new InputError(`duplicate id ${JSON.stringify(line.id)} (first on line ${dupId})`, { file, line: item.line, field: 'id' }),
      );
    ids.set(line.id, item.line);
    const pair = `${line.controller}\u001f${line.case_id}`;
    const dupPair = pairs.get(pair);
    if (dupPair !== undefined)
      errors.push(
        new InputError(`controller ${JSON.stringify(line.controller)} already has case ${JSON.stringify(line.case_id)} (line ${dupPair})`, {
          file,
          line: item.line,
          field: 'case_id',
        }),
      );
    pairs.set(pair, item.line);
    out.push({ line, c, lineNo: item.line });
  }
  if (!items.length) errors.push(new InputError('the file has no lines', { file }));
  if (errors.length) {
    // Shown as case files' problems are: a few of each kind, at most 20, then counts.
    const shown = renderProblems(file, errors);
    throw new UserError(`${errors.length} problem${errors.length === 1 ? '' : 's'} in ${file}; nothing was imported:\n${shown}`);
  }
  return { lines: out };
}

/** Verifies, truncates by the stop rule and stores the parsed lines as one run. */
export async function importTrajectories(store: RunStore, parsed: ParsedImport, options: ImportOptions): Promise<ImportSummary> {
  if (await store.getPlanned(options.runId))
    throw namingOption(
      'runId',
      (n) => new UserError(`run '${options.runId}' already exists in ${store.location}; imports are written once: choose another ${n}`),
    );
  const cases = parsed.lines.map((l) => l.c);
  const controllers = [...new Set(parsed.lines.map((l) => l.line.controller))];
  const summary: ImportSummary = {
    runId: options.runId,
    trajectories: cases.length,
    draftsSupplied: 0,
    roundsStored: 0,
    droppedAfterSuccess: 0,
    truncatedTrajectories: 0,
    droppedBeyondBudget: 0,
    successes: 0,
    incomplete: 0,
    controllers,
  };
  const events: NewEvent[] = [];
  const perCase: PerCase[] = [];

  parsed.lines.forEach(({ line, c }, i) => {
    const family = options.resolveFamily(c.family);
    summary.draftsSupplied += line.drafts.length;
    let drafts = line.drafts;
    const budget = options.budget ?? line.drafts.length - 1;
    if (drafts.length > budget + 1) {
      summary.droppedBeyondBudget += drafts.length - (budget + 1);
      drafts = drafts.slice(0, budget + 1);
    }
    perCase.push({ controller: line.controller, budget });
    let joint = false;
    let kept = 0;
    for (const raw of drafts) {
      const text = pyStrip(raw);
      const state = family.verify(text, c);
      joint = state.joint_success === true;
      events.push({
        type: 'draft_accepted',
        caseIndex: i,
        revision: kept,
        payload: { text, state, energy: family.energy(state), joint, feedback: null },
      });
      kept++;
      if (joint) break;
    }
    summary.roundsStored += kept;
    const afterSuccess = drafts.length - kept;
    if (afterSuccess > 0) {
      summary.droppedAfterSuccess += afterSuccess;
      summary.truncatedTrajectories++;
    }
    const beyondBudget = line.drafts.length - drafts.length;
    if (afterSuccess > 0 || beyondBudget > 0) {
      events.push({
        type: 'import_truncated',
        caseIndex: i,
        payload: { dropped_after_success: afterSuccess, dropped_beyond_budget: beyondBudget },
      });
    }
    if (joint || kept === budget + 1) {
      events.push({
        type: 'trajectory_completed',
        caseIndex: i,
        revision: kept - 1,
        payload: { stop: joint ? 'success' : 'budget', rounds: kept, final_joint: joint },
      });
      if (joint) summary.successes++;
    } else {
      summary.incomplete++;
      events.push({
        type: 'trajectory_incomplete',
        caseIndex: i,
        revision: kept,
        payload: {
          reason: `import: ${kept} draft${kept === 1 ? '' : 's'} supplied, unresolved, and the budget of ${budget} revisions needs ${budget + 1}`,
        },
      });
    }
  });

  const byFamily = new Map<string, ConstraintCase[]>();
  for (const c of cases) byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
  const families: RunPlan['families'] = {};
  for (const name of [...byFamily.keys()].sort())
    families[name] = familyFingerprint(options.resolveFamily(name), byFamily.get(name)!, 'baseline');
  const simulated = parsed.lines.some((l) => l.line.simulated === true);
  const plan: RunPlan = {
    format: planFormat(IMPORT_KIND.planVersion),
    kind: IMPORT_KIND.kind,
    case_set: {
      format: options.format,
      total: cases.length,
      limit: null,
      count: cases.length,
      file_sha256: options.fileSha256,
      cases_sha256: casesSha256(cases),
      manifest: null,
    },
    controller: {
      label: controllers.length === 1 ? controllers[0] : `${controllers.length} controllers`,
      spec: `import:${options.format}`,
      simulated,
      capabilities: { score: false, ban: false, simulated },
      generation: { temperature: 0, seed: null, extra_body: null },
    },
    // The largest budget (a reduce: spreading 125,000+ values into Math.max overflows the stack).
    protocol: {
      ...protocolSpec({ ...PAPER_PROTOCOL, budget: options.budget ?? perCase.reduce((m, p) => Math.max(m, p.budget), 0) }),
      name: 'imported',
    },
    families,
  };
  const planned: RunPlannedPayload = { plan, cases, per_case: perCase, plan_sha256: planSha256(plan, cases, perCase) };
  const session: NewEvent = {
    type: 'session_started',
    payload: {
      kind: 'import',
      revloop_version: REVLOOP_VERSION,
      pid: process.pid,
      host: hostname(),
      cases_path: options.file,
      options: { budget: options.budget ?? null },
      pending: 0,
    },
  };
  checkNewRunId(options.runId);
  await store.append(options.runId, [{ type: 'run_planned', payload: planned }, session, ...events]);
  return summary;
}
