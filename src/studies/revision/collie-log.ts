// Converter from COLLIE's released multi-round generation logs to import lines. A log is one JSON
// object of parallel lists: `prompts`, `1st_round_text`, `1st_round_feedback`, `2nd_round_text`, …
// (later rounds may cover fewer prompts). Each prompt is mapped to its COLLIE instance through the
// exact prompt text in collie_all.jsonl; prompts whose structure has no revloop family (c01, c14, …)
// are skipped and counted, never dropped silently. COLLIE's own feedback is not imported: revloop
// re-verifies every draft with its own verifiers.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadCaseSet } from '../../core/cases/index.ts';
import { UserError } from '../../core/errors.ts';
import { canonicalJson } from '../../core/util/hash.ts';
import { readJsonlLines } from '../../core/util/jsonl.ts';
import type { ImportLine } from './import.ts';

export interface CollieLogConversion {
  lines: ImportLine[];
  prompts: number;
  /** Prompts whose COLLIE structure has no family, by structure. */
  unsupported: Record<string, number>;
  /** Prompts that appear in several COLLIE rows with different structure or targets. */
  ambiguous: number;
  unmatched: number;
  roundKeys: string[];
}

const ROUND_KEY = /^(\d+)(?:st|nd|rd|th)_round_text$/;

/** The controller name from a log file name: `gpt-3.5-turbo-multi-round-generation-1trial.json` → `gpt-3.5-turbo`. */
function controllerFromLogName(path: string): string {
  const name = basename(path).replace(/\.json$/i, '');
  const i = name.indexOf('-multi-round');
  return i > 0 ? name.slice(0, i) : name;
}

export async function convertCollieLog(
  logPath: string,
  colliePath: string,
  controller = controllerFromLogName(logPath),
): Promise<CollieLogConversion> {
  let log: Record<string, unknown>;
  try {
    log = JSON.parse(await readFile(logPath, 'utf8'));
  } catch (e) {
    throw new UserError(`${logPath}: cannot read a COLLIE log (${(e as Error).message})`);
  }
  const prompts = log?.prompts;
  if (!Array.isArray(prompts) || !prompts.every((p) => typeof p === 'string'))
    throw new UserError(`${logPath}: prompts: expected a list of strings (a COLLIE multi-round generation log)`);
  const roundKeys = Object.keys(log)
    .filter((k) => ROUND_KEY.test(k))
    .sort((a, b) => Number(ROUND_KEY.exec(a)![1]) - Number(ROUND_KEY.exec(b)![1]));
  if (!roundKeys.length) throw new UserError(`${logPath}: no <n>th_round_text lists found`);
  for (const k of roundKeys) {
    const v = log[k];
    if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) throw new UserError(`${logPath}: ${k}: expected a list of strings`);
    if (v.length > prompts.length) throw new UserError(`${logPath}: ${k}: ${v.length} texts for ${prompts.length} prompts`);
  }

  // Every COLLIE row by prompt (for structures without a family too, so skips can be counted).
  const rowsByPrompt = new Map<string, Array<{ id: string; structure: string; targets: unknown }>>();
  for await (const item of readJsonlLines(colliePath)) {
    if (item.error || !item.value || typeof item.value !== 'object')
      throw new UserError(`${colliePath}:${item.line}: not a COLLIE row (${item.error ?? 'not an object'})`);
    const r = item.value as { id?: unknown; prompt?: unknown; structure?: unknown; targets?: unknown };
    if (typeof r.prompt !== 'string' || typeof r.id !== 'string' || typeof r.structure !== 'string')
      throw new UserError(`${colliePath}:${item.line}: expected id, structure and prompt (collie_all.jsonl format)`);
    const list = rowsByPrompt.get(r.prompt) ?? [];
    list.push({ id: r.id, structure: r.structure, targets: r.targets });
    rowsByPrompt.set(r.prompt, list);
  }
  const cases = new Map((await loadCaseSet(colliePath, { format: 'collie', skipWitnessChecks: true })).cases.map((c) => [c.id, c]));

  const out: CollieLogConversion = { lines: [], prompts: prompts.length, unsupported: {}, ambiguous: 0, unmatched: 0, roundKeys };
  prompts.forEach((prompt, i) => {
    const rows = rowsByPrompt.get(prompt);
    if (!rows) {
      out.unmatched++;
      return;
    }
    // Duplicated prompts are harmless when every copy has the same structure and targets.
    if (new Set(rows.map((r) => `${r.structure}\u001f${canonicalJson(r.targets)}`)).size > 1) {
      out.ambiguous++;
      return;
    }
    const c = cases.get(rows[0].id);
    if (!c) {
      out.unsupported[rows[0].structure] = (out.unsupported[rows[0].structure] ?? 0) + 1;
      return;
    }
    const drafts = roundKeys.map((k) => (log[k] as string[])[i]).filter((t): t is string => t !== undefined);
    out.lines.push({
      id: `${controller}:${i}`,
      controller,
      family: c.family,
      case_id: c.id,
      source: c.source,
      targets: c.targets,
      task: c.task,
      witness: c.witness,
      drafts,
    });
  });
  return out;
}
