// A store with real-length case ids for the report's and the viewer's layout tests (issue 40): the
// demo's cases under ids of the paper's form (`dolly_creative_writing__` and 24 hex digits, our own
// digits) and long source names; three simulated controllers; a history intervention whose arms'
// curves coincide, a crossover and a system identification from them; a probe run; an engine run
// with a real (fake, in-process) provider; and an import whose drafts carry long energies and an
// unclosed U+202E. Everything runs through the library, as the commands do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exactLengthDemoCases, structuredDemoCases } from '../src/app/demo/cases.ts';
import { runCrossoverExperiment, runHistoryExperiment, runSysidExperiment } from '../src/app/experiment.ts';
import { importRun } from '../src/app/import.ts';
import { probeCommand } from '../src/app/probe.ts';
import { runCases } from '../src/app/run.ts';
import { writeCaseSet } from '../src/core/cases/index.ts';
import { sha256Hex } from '../src/core/util/hash.ts';
import type { ConstraintCase } from '../src/core/verify/types.ts';
import { getDefaultPunkt } from '../src/core/text/index.ts';

const SOURCES = ['dolly_creative_writing', 'no_robots_generation', 'oasst1_open_ended', 'writingprompts_stories'];

/** `dolly_creative_writing__0a3f…` (24 hex digits): as long as the paper's ids. */
export function longId(n: number): string {
  return `${SOURCES[n % SOURCES.length]}__${sha256Hex(`revloop layout case ${n}`).slice(0, 24)}`;
}

/** The characters revloop's own ids are made of (issue 40). */
export const ID_CHARS = /^[A-Za-z0-9._:-]+$/;

/** A draft with an unclosed RIGHT-TO-LEFT OVERRIDE, and the next draft, which must still read left to right. */
export const BIDI_DRAFTS = ['One two three \u202e four five.', 'One two three six seven eight.', 'Nine ten eleven twelve.'];

function hasPunkt(): boolean {
  try {
    getDefaultPunkt();
    return true;
  } catch {
    return false;
  }
}

/** The demo's cases (all six families when Punkt is there) under long ids and long source names. */
export function longIdCases(): ConstraintCase[] {
  const cases = [...exactLengthDemoCases(), ...(hasPunkt() ? structuredDemoCases() : [])];
  return cases.map((c, i) => ({ ...c, id: longId(i), source: SOURCES[i % SOURCES.length] }));
}

export interface LongIdStore {
  dir: string;
  store: string;
  /** The case file (JSON Lines) of every case, and of the exact-length ones. */
  cases: string;
  exactCases: string;
  cleanup?: () => void;
}

/**
 * Builds the store in `dir`: revision runs `stubborn`, `steady`, `overshoot` (sim) over every case;
 * `hist` (history: full, reset, last:1, abstract), `cross` (crossover) and `sysid` experiments; a
 * probe run; and the import `imported`.
 */
export async function buildLongIdStore(dir: string, o: { experiments?: boolean; probe?: boolean } = {}): Promise<LongIdStore> {
  const store = join(dir, 'runs.db');
  const cases = join(dir, 'cases.jsonl');
  const exactCases = join(dir, 'exact.jsonl');
  const all = longIdCases();
  await writeCaseSet(cases, all);
  await writeCaseSet(
    exactCases,
    all.filter((c) => c.family === 'exact-length'),
  );
  for (const [runId, model] of [
    ['stubborn', 'sim:stubborn'],
    ['steady', 'sim:steady'],
    ['overshoot', 'sim:overshoot'],
  ])
    await runCases({ cases, model, store, runId });
  if (o.experiments !== false) {
    await runHistoryExperiment({ store, model: 'sim:stubborn', runId: 'hist', fromRun: 'stubborn' });
    await runCrossoverExperiment({ store, model: 'sim:steady', runId: 'cross', plannerRun: 'stubborn' });
    await runSysidExperiment({ store, model: 'sim:steady', runId: 'sysid', cases: exactCases, errors: [-5, 5] });
  }
  if (o.probe !== false) await probeCommand({ model: 'sim:steady', items: { build: 12 }, conditions: ['pre', 'fail'], store });
  const exact = all.filter((c) => c.family === 'exact-length');
  const lines = exact.slice(0, 3).map((c, k) => ({
    id: `imported:${c.id}`,
    controller: 'gpt-4o-mini-2024-07-18',
    family: 'exact-length',
    case_id: c.id,
    source: c.source,
    instruction: c.instruction,
    target: c.target,
    anchors: c.anchors,
    // Three words short, then two, then one: energies such as 1.1666666666666667.
    drafts: k === 0 ? BIDI_DRAFTS : ['Too short a draft.', 'Still a short draft here.', 'A third and still short draft here.'],
  }));
  const file = join(dir, 'imported.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await importRun({ file, store, runId: 'imported', budget: 2 });
  return { dir, store, cases, exactCases };
}
