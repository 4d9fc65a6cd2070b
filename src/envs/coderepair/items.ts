// CodeRepair probe items from MBPP (docs/harness.md §7, `build_coderepair_items`): for each of the first
// n problems whose reference passes its own tests, every single-edit mutant that really fails
// becomes an item, with the interpreter's own observations at three verbosities and with echo.
// Balanced per operator (operators sorted, first `maxPerOperator` of each), sorted by item_id.
import { readFileSync } from 'node:fs';
import { UserError, DataMissingError, InputError, namingOption } from '../../core/errors.ts';
import { pyStrip } from '../../core/py/format.ts';
import { pyCompare } from '../../core/py/strings.ts';
import { pySplitlines } from '../../core/py/strings.ts';
import type { ProbeItem } from '../items/probe-item.ts';
import { mutate, type Mutation } from './mutate.ts';
import { CODEREPAIR_SYSTEM_PROMPT, NEUTRAL_SUBMISSION, renderExecObservation, successExecObservation } from './observe.ts';
import { runProgram, type ExecResult } from './runner.ts';

/** One problem of MBPP's sanitized file: the task, its reference solution and its tests. */
export interface MbppProblem {
  task_id: number;
  prompt: string;
  code: string;
  test_list: string[];
}

/** Reads the sanitized MBPP JSON the user supplies (a list of problems; test_imports are ignored, as in the reference); the option `mbpp` names it. */
export function loadMbpp(path: string): MbppProblem[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const message = (option: string) =>
      `${path}: cannot read the MBPP file (${code === 'ENOENT' ? 'no such file' : (e as Error).message}). CodeRepair needs the sanitized MBPP split ` +
      `(sanitized-mbpp.json from google-research/mbpp), which revloop does not bundle; pass its path with ${option}.`;
    throw namingOption('mbpp', (n) => (code === 'ENOENT' ? new DataMissingError(message(n), { what: 'mbpp' }) : new UserError(message(n))));
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message}); expected the sanitized MBPP list`, { file: path });
  }
  if (!Array.isArray(data)) throw new InputError('expected a JSON list of MBPP problems', { file: path });
  return data.map((p, i) => {
    const where = `${path}: problem ${i}`;
    const o = p as Record<string, unknown>;
    if (!o || typeof o !== 'object') throw new UserError(`${where}: not an object`);
    if (!Number.isInteger(o.task_id)) throw new UserError(`${where}: task_id: must be an integer`);
    for (const f of ['prompt', 'code'] as const)
      if (typeof o[f] !== 'string') throw new UserError(`${where} (task ${o.task_id}): ${f}: must be a string`);
    if (!Array.isArray(o.test_list) || !o.test_list.every((t) => typeof t === 'string'))
      throw new UserError(`${where} (task ${o.task_id}): test_list: must be a list of strings`);
    return { task_id: o.task_id as number, prompt: o.prompt as string, code: o.code as string, test_list: [...(o.test_list as string[])] };
  });
}

/** Options of `buildCodeRepairItems`: the Python interpreter (required) and the sampling limits (default: `PAPER_CODEREPAIR_OPTIONS`). */
export interface BuildCodeRepairOptions {
  python: string;
  nProblems?: number;
  maxPerOperator?: number;
  nDistractors?: number;
  timeoutS?: number;
  onProgress?: (done: number, total: number) => void;
}

/** The reference's schedule settings: the first 200 problems, 60 items per operator, 2 distractors. */
export const PAPER_CODEREPAIR_OPTIONS = { nProblems: 200, maxPerOperator: 60, nDistractors: 2 };

const pad4 = (n: number) => String(n).padStart(4, '0');

/**
 * CodeRepair probe items from MBPP problems: mutates each reference solution, runs the mutants' tests with real Python and keeps failing
 * ones as decision points (docs/harness.md §7).
 */
export async function buildCodeRepairItems(problems: readonly MbppProblem[], options: BuildCodeRepairOptions): Promise<ProbeItem[]> {
  const { nProblems, maxPerOperator, nDistractors } = { ...PAPER_CODEREPAIR_OPTIONS, ...options };
  const run = (code: string, tests: readonly string[]) => runProgram(code, tests, { python: options.python, timeoutS: options.timeoutS });
  const byOperator = new Map<string, ProbeItem[]>();
  const chosen = problems.slice(0, nProblems);
  for (const [k, p] of chosen.entries()) {
    options.onProgress?.(k, chosen.length);
    const tests = p.test_list;
    if (!(await run(p.code, tests)).ok) continue; // a few references fail their own tests
    const failing: Array<[Mutation, ExecResult]> = [];
    for (const m of mutate(p.code)) {
      const r = await run(m.code, tests);
      if (!r.ok) failing.push([m, r]);
    }
    if (!failing.length) continue;
    const goal = `${p.prompt}\n\nThe tests are:\n${tests.join('\n')}`;
    failing.forEach(([m, r], index) => {
      const others = failing.filter(([o]) => o.code !== m.code);
      const obsFail = renderExecObservation(r, tests.length, 'standard', false, m.code);
      const quotes = pySplitlines(m.code).some((ln) => pyStrip(ln).length > 8 && obsFail.includes(pyStrip(ln)));
      const item: ProbeItem = {
        item_id: `mbpp-${pad4(p.task_id)}-${m.operator}-${index}`,
        env: 'coderepair',
        task_id: `mbpp-${pad4(p.task_id)}`,
        template: 'mbpp',
        step_index: 0,
        operator: m.operator,
        error_type: r.kind,
        system_prompt: CODEREPAIR_SYSTEM_PROMPT,
        goal,
        prefix_actions: [],
        prefix_observations: [],
        failed_action: m.code,
        gold_action: pyStrip(p.code),
        obs_fail: obsFail,
        obs_fail_terse: renderExecObservation(r, tests.length, 'terse', false, m.code),
        obs_fail_verbose: renderExecObservation(r, tests.length, 'verbose', false, m.code),
        obs_fail_echo: renderExecObservation(r, tests.length, 'standard', true, m.code),
        obs_success: successExecObservation(tests.length),
        obs_neutral: NEUTRAL_SUBMISSION,
        obs_fail_other: others.length ? renderExecObservation(others[0][1], tests.length, 'standard', false, others[0][0].code) : '',
        distractors: others.map(([o]) => o.code).slice(0, nDistractors),
        tool: null,
        meta: { traceback_quotes_source: quotes, tests_passed_before_failure: r.passed, n_tests: tests.length },
      };
      const list = byOperator.get(m.operator);
      if (list) list.push(item);
      else byOperator.set(m.operator, [item]);
    });
  }
  options.onProgress?.(chosen.length, chosen.length);
  const items: ProbeItem[] = [];
  for (const op of [...byOperator.keys()].sort(pyCompare)) items.push(...byOperator.get(op)!.slice(0, maxPerOperator));
  return items.sort((a, b) => pyCompare(a.item_id, b.item_id));
}
