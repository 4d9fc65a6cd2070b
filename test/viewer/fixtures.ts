// A small store for the viewer's tests, built through the real import and the real engine with our
// own sentences: two imported runs over the same cases with every outcome the viewer tells apart
// (a success, a terminal cycle of period 2, a terminal fixed point, a hostile draft, a
// protocol-incomplete trajectory, a case only one run has), and an engine run whose provider fails
// now and then (HTTP 503), so timelines show failed attempts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importRun } from '../../src/app/import.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { openStore } from '../../src/store/store.ts';
import { fakeModel } from '../loop/fakes.ts';

/** Markup and script a model might write; the viewer must show it as text. */
export const HOSTILE = `</script><img src=x onerror=alert(1)> and <script>alert(2)</script> "'><svg onload=alert(3)>`;

const exact = getFamily('exact-length');

/** Words as the exact-length verifier counts them. */
export function wordCount(text: string): number {
  const s = exact.verify(text, { id: 'x', family: 'exact-length', source: 's', instruction: 'i', target: 1, anchors: [] }) as unknown as {
    error: number;
  };
  return s.error + 1;
}

export interface CaseSpec {
  id: string;
  source: string;
  instruction: string;
  target: number;
  anchors: string[];
}

const SUCCESS = 'Green tea is very calm today.';
const CASES: CaseSpec[] = [
  { id: 'tea-01', source: 'own', instruction: 'Write one sentence about tea.', target: wordCount(SUCCESS), anchors: ['green tea'] },
  { id: 'rain-02', source: 'own', instruction: 'Describe rain briefly.', target: 6, anchors: ['umbrella'] },
  { id: 'snow-03', source: 'other', instruction: 'Say something about snow.', target: 5, anchors: ['snow'] },
  { id: 'bread-04', source: 'other', instruction: 'Say something about bread.', target: 40, anchors: ['bread'] },
  { id: 'sun-05', source: 'own', instruction: 'Describe the sun.', target: 4, anchors: ['sun'] },
  { id: 'wind-06', source: 'own', instruction: 'Describe the wind.', target: 3, anchors: ['wind'] },
];

/** Drafts that cycle A B A B (period 2), neither meeting the target. */
export const CYCLE = ['The rain falls on my umbrella slowly now.', 'Rain.'];
/** The hostile trajectory's drafts: all fail (too short for 40 words), all distinct. */
export const HOSTILE_DRAFTS = [`Bread ${HOSTILE}`, `Bread again ${HOSTILE}`, 'Bread <b>bold</b> &amp; more', 'Bread & butter <i>x</i>'];

function line(controller: string, c: CaseSpec, drafts: string[], simulated = false) {
  return {
    id: `${controller}:${c.id}`,
    controller,
    family: 'exact-length',
    case_id: c.id,
    source: c.source,
    instruction: c.instruction,
    target: c.target,
    anchors: c.anchors,
    drafts,
    ...(simulated ? { simulated: true } : {}),
  };
}

const byId = (id: string) => CASES.find((c) => c.id === id)!;

/** alpha: success, cycle, fixed point, hostile failure, incomplete (two drafts of a budget of 3). */
export function alphaLines() {
  return [
    line('alpha-model', byId('tea-01'), ['Tea is nice.', SUCCESS]),
    line('alpha-model', byId('rain-02'), [CYCLE[0], CYCLE[1], CYCLE[0], CYCLE[1]]),
    line('alpha-model', byId('snow-03'), ['Snow is white and cold today.', 'Snow falls.', 'Snow falls.', 'Snow falls.']),
    line('alpha-model', byId('bread-04'), HOSTILE_DRAFTS),
    line('alpha-model', byId('sun-05'), ['The sun.', 'The sun shines.']),
  ];
}

/** beta (simulated): tea fails, rain and snow succeed, bread fails, sun succeeds, plus wind. */
export function betaLines() {
  return [
    line('beta-sim', byId('tea-01'), ['Tea.', 'Tea again.', 'Tea once more.', 'Tea, for the last time.'], true),
    line('beta-sim', byId('rain-02'), ['Rain.', 'Rain taps on my old umbrella.'], true),
    line('beta-sim', byId('snow-03'), ['Snow, snow.', 'White snow falls very softly.'], true),
    line('beta-sim', byId('bread-04'), ['Bread.', 'Bread is good.', 'Bread is very good.', 'Bread is very very good.'], true),
    line('beta-sim', byId('sun-05'), ['The warm sun shines.'], true),
    line('beta-sim', byId('wind-06'), ['The wind blows.'], true),
  ];
}

function caseOf(c: CaseSpec): ConstraintCase {
  return { id: c.id, family: 'exact-length', source: c.source, instruction: c.instruction, target: c.target, anchors: c.anchors };
}

export interface ViewerFixture {
  dir: string;
  store: string;
  cleanup(): void;
}

/** Writes an import file and stores it as one run (budget 3). */
export async function importLines(dir: string, store: string, runId: string, lines: unknown[]): Promise<void> {
  const file = join(dir, `${runId}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await importRun({ file, store, runId, budget: 3 });
}

/** The engine over three cases with a provider that fails the first attempt of every third call. */
export async function faultyRun(store: string, runId = 'faulty'): Promise<void> {
  const s = await openStore(store);
  try {
    const cases = [caseOf(byId('rain-02')), caseOf(byId('snow-03')), caseOf(byId('sun-05'))];
    await executeRun({
      store: s,
      runId,
      cases,
      caseSet: { format: 'test', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
      model: fakeModel({ faults: (_m, call) => (call % 3 === 0 ? 1 : 0), label: 'faulty-model' }),
      protocol: { ...PAPER_PROTOCOL, budget: 3 },
      resolveFamily: getFamily,
      concurrency: 1,
      abandonAfterMs: 50,
    });
  } finally {
    await s.close();
  }
}

/** The viewer's test store: runs alpha, beta and faulty, in a fresh temporary folder. */
export async function viewerFixture(): Promise<ViewerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-viewer-'));
  const store = join(dir, 'runs.db');
  try {
    await importLines(dir, store, 'alpha', alphaLines());
    await importLines(dir, store, 'beta', betaLines());
    await faultyRun(store);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { dir, store, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A native case file (JSON Lines) of exact-length cases for `revloop run`. */
export function writeCaseFile(path: string, n: number): void {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `live-${String(i).padStart(3, '0')}`,
    family: 'exact-length',
    source: 'own',
    instruction: `Describe object number ${i} in a short paragraph.`,
    target: 20 + (i % 7),
    anchors: ['object'],
  }));
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}
