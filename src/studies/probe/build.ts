// `--build N`: the ToolShed probe item pool built with the paper's settings (60 tasks, 45 items
// per operator, 2 distractors; 275 items over 58 tasks), thinned to N items by the reference's
// stratified subsample (round-robin over operators, at most 3 items per task, the reference's seed) —
// the selection of the reference's phase A for N = 100.
import { buildToolshedItems, stratifiedSubsample, PAPER_TOOLSHED_OPTIONS } from '../../envs/toolshed/index.ts';
import { sha256Hex } from '../../core/util/hash.ts';
import { itemsJsonl } from './items.ts';
import type { ProbeItem } from './probe-types.ts';

export const BUILD_MAX_PER_TASK = 3;

/**
 * The probe's ToolShed items: a stratified subsample of n items from the paper's pool (at most 3 per task by default), with a description
 * of the source and its SHA-256.
 */
export function buildToolShedProbeItems(
  n: number,
  options: { maxPerTask?: number; seed?: number } = {},
): { items: ProbeItem[]; source: string; sha256: string } {
  const pool = buildToolshedItems(PAPER_TOOLSHED_OPTIONS);
  const items = stratifiedSubsample(pool, n, options.seed ?? PAPER_TOOLSHED_OPTIONS.seed, options.maxPerTask ?? BUILD_MAX_PER_TASK);
  return {
    items,
    source: `toolshed:build(n=${n}, pool=${pool.length}, max_per_task=${options.maxPerTask ?? BUILD_MAX_PER_TASK})`,
    sha256: sha256Hex(itemsJsonl(items)),
  };
}

/**
 * CodeRepair items from a user-supplied sanitized MBPP file: the reference's builder settings (the
 * first 200 problems, 60 items per operator, 2 distractors), thinned to N items with at most one
 * item per problem (the reference's phase B). Needs Python 3 to execute the programs.
 */
export async function buildCodeRepairProbeItems(
  n: number,
  options: {
    mbpp: string;
    python?: string;
    maxPerTask?: number;
    /** Problems executed so far (the Python version says which interpreter runs them). */
    onProgress?: (done: number, total: number, python: string) => void;
  },
): Promise<{ items: ProbeItem[]; source: string; sha256: string }> {
  const { loadMbpp, findPython, buildCodeRepairItems } = await import('../../envs/coderepair/index.ts');
  const problems = loadMbpp(options.mbpp);
  const py = findPython(options.python);
  const pool = await buildCodeRepairItems(problems, {
    python: py.executable,
    onProgress: (d, t) => options.onProgress?.(d, t, py.version),
  });
  const maxPerTask = options.maxPerTask ?? 1;
  const items = stratifiedSubsample(pool, n, PAPER_TOOLSHED_OPTIONS.seed, maxPerTask);
  return {
    items,
    source: `coderepair:build(n=${n}, pool=${pool.length}, max_per_task=${maxPerTask}, mbpp=${options.mbpp}, python ${py.version})`,
    sha256: sha256Hex(itemsJsonl(items)),
  };
}
