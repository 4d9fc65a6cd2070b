// The ToolShed probe item builder (docs/harness.md §3.1–3.2): walk each task's gold trajectory, and at
// every step record each perturbation that really fails, rendered four ways (standard, terse,
// verbose, standard+echo), with its counterfactual observations and distractors. Items are
// balanced per operator and written as JSONL exactly as the reference's json.dumps writes them.
import { writeFileAtomicSync } from '../../core/util/atomic-file.ts';
import { pyStrip } from '../../core/py/format.ts';
import { pyCompare } from '../../core/py/strings.ts';
import { PyRandom } from '../../core/py/random.ts';
import { successObservation, neutralObservation } from './counterfactual.ts';
import type { RenderOptions } from './errors.ts';
import { actionToolName } from './parse.ts';
import { perturbations } from './perturb.ts';
import { itemJsonLine, itemsJsonl, readItemsFile } from '../items/item-file.ts';
import { systemPrompt } from './prompt.ts';
import { DEFAULT_SEED } from './seeding.ts';
import { step } from './step.ts';
import { generateTasks, taskWorld, type Task } from './tasks.ts';
import type { World } from './world.ts';
import type { ProbeItem } from '../items/probe-item.ts';

export type { ProbeItem } from '../items/probe-item.ts';

/** Options of `buildToolshedItems` (default: `PAPER_TOOLSHED_OPTIONS`, the paper's 275 items). */
export interface BuildToolshedOptions {
  /** Number of probe tasks (the paper: 60). */
  nTasks?: number;
  seed?: number;
  /** Items kept per operator, in generation order (the paper: 45). */
  maxPerOperator?: number;
  /** Distractors recorded per item (the paper: 2). */
  nDistractors?: number;
}

/** The settings the published item set was built with (the builder function's own defaults were 90/80). */
export const PAPER_TOOLSHED_OPTIONS: Required<BuildToolshedOptions> = {
  nTasks: 60,
  seed: DEFAULT_SEED,
  maxPerOperator: 45,
  nDistractors: 2,
};

const RENDERERS: Record<'std' | 'terse' | 'verbose' | 'echo', RenderOptions> = {
  std: { verbosity: 'standard', echoAction: false },
  terse: { verbosity: 'terse', echoAction: false },
  verbose: { verbosity: 'verbose', echoAction: false },
  echo: { verbosity: 'standard', echoAction: true },
};

/** The four renderings' worlds: the reference keeps one environment (and world) per rendering. */
interface RenderWorlds {
  std: World;
  terse: World;
  verbose: World;
  echo: World;
}

function renderWorlds(task: Task): RenderWorlds {
  return { std: taskWorld(task), terse: taskWorld(task), verbose: taskWorld(task), echo: taskWorld(task) };
}

interface StepContext {
  task: Task;
  stepIndex: number;
  gold: string;
  worlds: RenderWorlds;
  prefixActions: readonly string[];
  prefixObservations: readonly string[];
  systemPrompt: string;
  nDistractors: number;
}

/**
 * The items of one decision point: every perturbation of `gold` that really fails, in perturbation
 * order. Executes the distractor and the perturbation exactly as the reference does (a call that
 * unexpectedly succeeds mutates the world it ran in and is then discarded).
 */
export function itemsAtStep(ctx: StepContext): ProbeItem[] {
  const { task, stepIndex, gold, worlds } = ctx;
  const perts = perturbations(gold, worlds.std);
  const items: ProbeItem[] = [];
  perts.forEach((pert, pertIndex) => {
    const distractors = perts
      .map((p) => p.action)
      .filter((a) => a !== pert.action)
      .slice(0, ctx.nDistractors);
    const outOther = distractors.length ? step(worlds.std, distractors[0], RENDERERS.std) : null;
    const outStd = step(worlds.std, pert.action, RENDERERS.std);
    const outTerse = step(worlds.terse, pert.action, RENDERERS.terse);
    const outVerbose = step(worlds.verbose, pert.action, RENDERERS.verbose);
    const outEcho = step(worlds.echo, pert.action, RENDERERS.echo);
    // A perturbation that unexpectedly succeeds is not usable.
    if (outStd.ok) return;
    items.push({
      item_id: `${task.task_id}-s${stepIndex}-${pert.operator}-${pertIndex}`,
      env: 'toolshed',
      task_id: task.task_id,
      template: task.payload.template,
      step_index: stepIndex,
      operator: pert.operator,
      error_type: outStd.errorType ?? 'unknown',
      system_prompt: ctx.systemPrompt,
      goal: task.goal,
      prefix_actions: [...ctx.prefixActions],
      prefix_observations: [...ctx.prefixObservations],
      failed_action: pert.action,
      gold_action: gold,
      obs_fail: outStd.observation,
      obs_fail_terse: outTerse.observation,
      obs_fail_verbose: outVerbose.observation,
      obs_fail_echo: outEcho.observation,
      obs_success: successObservation(pert.action),
      obs_neutral: neutralObservation(pert.action),
      obs_fail_other: outOther !== null && !outOther.ok ? outOther.observation : '',
      distractors,
      tool: actionToolName(pert.action),
      meta: {},
    });
  });
  return items;
}

/** `build_toolshed_items`: all items, balanced per operator, sorted by item_id. */
export function buildToolshedItems(options: BuildToolshedOptions = {}): ProbeItem[] {
  const { nTasks, seed, maxPerOperator, nDistractors } = { ...PAPER_TOOLSHED_OPTIONS, ...options };
  const system = systemPrompt({ demo: false });
  const byOperator = new Map<string, ProbeItem[]>();

  for (const task of generateTasks(nTasks, seed)) {
    const worlds = renderWorlds(task);
    const prefixActions: string[] = [];
    const prefixObservations: string[] = [];
    for (const [stepIndex, gold] of task.gold_actions.entries()) {
      if (pyStrip(gold) === 'finish()') break;
      const ctx = { task, stepIndex, gold, worlds, prefixActions, prefixObservations, systemPrompt: system, nDistractors };
      for (const item of itemsAtStep(ctx)) {
        const list = byOperator.get(item.operator);
        if (list) list.push(item);
        else byOperator.set(item.operator, [item]);
      }
      // Advance the real trajectory with the reference action.
      const obs = step(worlds.std, gold, RENDERERS.std);
      if (!obs.ok) throw new Error(`reference action failed in ${task.task_id}: ${gold} -> ${obs.observation}`);
      step(worlds.terse, gold, RENDERERS.terse);
      step(worlds.verbose, gold, RENDERERS.verbose);
      step(worlds.echo, gold, RENDERERS.echo);
      prefixActions.push(gold);
      prefixObservations.push(obs.observation);
    }
  }

  const items: ProbeItem[] = [];
  for (const op of [...byOperator.keys()].sort(pyCompare)) items.push(...byOperator.get(op)!.slice(0, maxPerOperator));
  return items.sort((a, b) => pyCompare(a.item_id, b.item_id));
}

/** One JSONL line, as `json.dumps(asdict(item), ensure_ascii=False)` writes it (no newline); item-file.ts writes it. */
export const itemToJson: (item: ProbeItem) => string = itemJsonLine;

/** The whole file: one line per item, each ending in "\n". */
export const itemsToJsonl: (items: readonly ProbeItem[]) => string = itemsJsonl;

/** Write items atomically (a temporary file renamed into place, so no partial file is left). */
export function writeItemsJsonl(path: string, items: readonly ProbeItem[]): void {
  writeFileAtomicSync(path, itemsToJsonl(items));
}

/** Read a probe item file (every field checked; a bad line is reported as file:line: field: problem). */
export function readItemsJsonl(path: string): ProbeItem[] {
  return readItemsFile(path).items;
}

interface ItemSummary {
  n_items: number;
  n_tasks: number;
  operators: string[];
  error_types: string[];
}

/** The per-environment block of the items summary the reference implementation writes (items_summary.json, not distributed). */
export function summarizeItems(items: readonly ProbeItem[]): ItemSummary {
  return {
    n_items: items.length,
    n_tasks: new Set(items.map((i) => i.task_id)).size,
    operators: [...new Set(items.map((i) => i.operator))].sort(pyCompare),
    error_types: [...new Set(items.map((i) => i.error_type))].sort(pyCompare),
  };
}

/**
 * `stratified_subsample(items, n, seed, max_per_task)`: per operator, sort by item_id and shuffle
 * with one random.Random(seed); round-robin over operators in sorted order, skipping items whose
 * task already has `maxPerTask` picks; the result is sorted by item_id. A smaller n selects a
 * prefix of a larger n's picks. (The recorded runs' item_ids lists remain the ground truth.)
 */
export function stratifiedSubsample<T extends { item_id: string; operator: string; task_id: string }>(
  items: readonly T[],
  n: number,
  seed = DEFAULT_SEED,
  maxPerTask?: number,
): T[] {
  const rng = new PyRandom(seed);
  const byOp = new Map<string, T[]>();
  for (const it of items) {
    const list = byOp.get(it.operator);
    if (list) list.push(it);
    else byOp.set(it.operator, [it]);
  }
  // Shuffle in first-appearance order of the operators, as the reference iterates its dict.
  for (const [op, list] of byOp) {
    const sorted = [...list].sort((a, b) => pyCompare(a.item_id, b.item_id));
    rng.shuffle(sorted);
    byOp.set(op, sorted);
  }
  const ops = [...byOp.keys()].sort(pyCompare);
  const cursor = new Map(ops.map((op) => [op, 0]));
  const perTask = new Map<string, number>();
  const chosen: T[] = [];
  const remaining = (): boolean => ops.some((op) => cursor.get(op)! < byOp.get(op)!.length);
  while (chosen.length < n && remaining()) {
    for (const op of ops) {
      if (chosen.length >= n) break;
      const list = byOp.get(op)!;
      while (cursor.get(op)! < list.length) {
        const cand = list[cursor.get(op)!];
        cursor.set(op, cursor.get(op)! + 1);
        if (maxPerTask && (perTask.get(cand.task_id) ?? 0) >= maxPerTask) continue;
        perTask.set(cand.task_id, (perTask.get(cand.task_id) ?? 0) + 1);
        chosen.push(cand);
        break;
      }
    }
  }
  return chosen.sort((a, b) => pyCompare(a.item_id, b.item_id));
}
