// `revloop report` end to end: a real store (sim runs through the engine, plus an imported run
// whose reports are not stored), the command spawned as users run it, its output and its errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.ts';
import { importTrajectories, parseImportLines } from '../../src/studies/revision/import.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { createModel } from '../../src/models/index.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { DrilldownPayload } from '../../src/report/payload.ts';
import { CASES, HOSTILE } from './build.ts';
import { requirePunkt } from '../helpers.ts';

const punkt = requirePunkt();

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = new URL(`../.tmp/report/cli-${process.pid}/`, import.meta.url).pathname;
const DB = join(DIR, 'runs.db');

function revloop(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/revloop.mjs'), ...args], {
    cwd: DIR,
    encoding: 'utf8',
    env: { ...process.env, REVLOOP_DEBUG: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function payloadOf(html: string): DrilldownPayload {
  return JSON.parse(/<script type="application\/json" id="revloop-data">([\s\S]*?)<\/script>/.exec(html)![1]) as DrilldownPayload;
}

before(async () => {
  if (punkt.skip) return; // the fixtures include a c07 case
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const store = await openStore(DB);
  try {
    const cases = [CASES.tea, CASES.rain, CASES.bread, CASES.apple];
    for (const profile of ['steady', 'stubborn']) {
      await executeRun({
        store,
        runId: `sim-${profile}`,
        cases,
        model: await createModel(`sim:${profile}`),
        protocol: { ...PAPER_PROTOCOL, budget: 4 },
        resolveFamily: getFamily,
        caseSet: { format: 'native', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
      });
    }
    const lines = [
      {
        id: 'i1',
        controller: 'imported-model',
        family: 'exact-length',
        case_id: 'tea-01',
        source: 'own',
        target: 5,
        anchors: ['green tea'],
        instruction: CASES.tea.instruction,
        drafts: ['Tea.', `Tea ${HOSTILE} tea.`, 'I love green tea daily.'],
      },
      {
        id: 'i2',
        controller: 'imported-model',
        family: 'c07',
        case_id: 'apple-04',
        source: 'own',
        targets: ['apple'],
        task: CASES.apple.task,
        drafts: ['A pear.', 'A pear.', 'A pear.', 'A pear.', 'A pear.'],
      },
    ];
    const parsed = parseImportLines(
      lines.map((value, i) => ({ line: i + 1, value })),
      'own.jsonl',
      getFamily,
    );
    await importTrajectories(store, parsed, {
      runId: 'imported',
      file: 'own.jsonl',
      fileSha256: null,
      format: 'revloop-import',
      budget: 4,
      resolveFamily: getFamily,
    });
  } finally {
    await store.close();
  }
});

after(() => rmSync(DIR, { recursive: true, force: true }));

test('revloop report writes one self-contained file covering every run', { skip: punkt.skip }, async () => {
  const r = revloop('report', '--store', DB, '-o', 'all.html', '--bootstrap', '200', '--no-timestamp');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^wrote all\.html \(0\.\d MB, 10 trajectories\) — includes SIMULATED controllers: /);
  assert.match(r.stderr, /analysing \(200 bootstrap resamples\)/);
  const html = readFileSync(join(DIR, 'all.html'), 'utf8');
  for (const id of ['runs', 'endpoint', 'curves', 'failures', 'budget', 'drilldown']) assert.ok(html.includes(`<section id="${id}"`));
  assert.ok(!html.includes(HOSTILE));
  const payload = payloadOf(html);
  assert.deepEqual(Object.fromEntries(payload.controllers.map((c) => [c.name.replace(/ \[simulated\]$/, ''), c.simulated])), {
    'sim:steady': true,
    'sim:stubborn': true,
    'imported-model': false,
  });
  assert.equal(payload.trajectories.length, 10);

  // Engine runs stored the reports they sent: shown verbatim. Imported runs did not: rendered by the family.
  const store = await openStore(DB, { readonly: true });
  const stored = await store.loadTrajectories();
  await store.close();
  for (const t of payload.trajectories) {
    const src = stored.find((s) => s.runId === t.run && s.caseIndex === t.ix)!;
    t.rounds.forEach((r, i) => {
      const round = src.rounds[i];
      if (round.joint) return assert.equal(r.fb, -1);
      const expected = typeof round.feedback === 'string' ? round.feedback : getFamily(src.family).feedback(round.state, src.case);
      assert.equal(payload.strings[r.fb], expected, `${t.id} r${i}`);
      assert.equal(r.sent, i + 1 < src.rounds.length ? 1 : 0);
    });
  }
  assert.ok(
    stored.some((s) => s.runId === 'sim-steady' && s.rounds.some((x) => typeof x.feedback === 'string')),
    'the engine did store its reports',
  );

  // Byte-reproducible without the timestamp.
  assert.equal(revloop('report', '--store', DB, '-o', 'again.html', '--bootstrap', '200', '--no-timestamp', '--no-progress').status, 0);
  assert.equal(readFileSync(join(DIR, 'again.html'), 'utf8'), html);
});

test('revloop report --run selects runs (positional ids work too)', { skip: punkt.skip }, () => {
  const r = revloop('report', '--store', DB, '--run', 'imported', '-o', 'one.html', '--bootstrap', '0', '--no-progress');
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /SIMULATED/);
  const html = readFileSync(join(DIR, 'one.html'), 'utf8');
  assert.deepEqual(payloadOf(html).controllers, [{ name: 'imported-model', simulated: false }]);
  assert.ok(!html.includes('class="banner"'), 'no simulation banner without simulated controllers');
  assert.match(html, /generated \d{4}-\d\d-\d\dT/);
  const p = revloop('report', 'sim-steady', '--store', DB, '-o', 'pos.html', '--bootstrap', '0', '--no-progress');
  assert.equal(p.status, 0, p.stderr);
  assert.equal(payloadOf(readFileSync(join(DIR, 'pos.html'), 'utf8')).trajectories.length, 4);
});

test('revloop report: user errors say what and where, exit non-zero, write nothing', { skip: punkt.skip }, () => {
  const cases: Array<[string[], RegExp]> = [
    [['report', '-o', 'x.html'], /--store <location> is required/],
    [['report', '--store', DB], /required option '-o, --output <file>' not specified/],
    [['report', '--store', join(DIR, 'missing.db'), '-o', 'x.html'], /missing\.db: no such store/],
    [['report', '--store', DB, '--run', 'nope', '-o', 'x.html'], /no run 'nope' in this store; runs: sim-steady, sim-stubborn, imported/],
    [['report', '--store', DB, '-o', join(DIR, 'no/such/dir/x.html')], /folder .*no\/such\/dir does not exist/],
    [['report', '--store', DB, '-o', 'x.html', '--bootstrap', 'many'], /--bootstrap must be a whole number/],
  ];
  for (const [args, message] of cases) {
    const r = revloop(...args);
    assert.notEqual(r.status, 0, args.join(' '));
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.ok(!existsSync(join(DIR, 'x.html')));
});
