// The run commands as a user runs them: real processes, exit codes, messages, Ctrl-C.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { openStore } from '../../src/store/store.ts';
import { requirePunkt } from '../helpers.ts';
import { tempDir } from '../tmp.ts';
import { userEnv } from '../cli/cli.ts';

const punkt = requirePunkt();

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');

function cli(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: userEnv(env), timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function setup(): Promise<{ dir: string; cases: string; db: string }> {
  const dir = tempDir('revloop-cli-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  return { dir, cases, db: join(dir, 'runs.db') };
}

const noStack = (s: string) => !/^\s+at .+\(.+:\d+:\d+\)$/m.test(s);

test('run, resume, plan refusal, runs, audit (pass and tamper), export: exit codes and messages', async () => {
  const { dir, cases, db } = await setup();
  const run = ['run', '--cases', cases, '--model', 'sim:steady', '--store', db, '--limit', '6', '--concurrency', '2', '--run', 'r1'];
  const first = cli(run);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /^run 'r1' in .*runs\.db: new$/m);
  assert.match(first.out, /SIMULATED controller: every number from this run describes a simulation/);
  assert.match(first.out, /^finished \[SIMULATED\]: 6\/6 trajectories · \d+ joint successes/m);
  assert.match(first.err, /^\[SIMULATED\] 6\/6 done · success [\d.]+% · /m, 'plain progress lines when stderr is not a terminal');

  const again = cli(run);
  assert.equal(again.code, 0);
  assert.match(again.out, /resuming \(6 of 6 trajectories already complete\)/);

  const refused = cli([...run, '--budget', '4']);
  assert.equal(refused.code, 2);
  assert.match(
    refused.err,
    /^revloop: run 'r1' exists with a different plan; a run's plan never changes\.\n {2}protocol\.budget: stored 8, requested 4\n/,
  );
  assert.ok(noStack(refused.err));

  const runs = cli(['runs', '--store', db, '--wide']);
  assert.equal(runs.code, 0);
  assert.match(runs.out, /│ r1 +│ complete │ sim:steady \[SIMULATED\]/);

  const audit = cli(['audit', '--store', db, '--run', 'r1']);
  assert.equal(audit.code, 0, audit.out);
  assert.match(audit.out, /^PASS: /m);

  const out = join(dir, 'r1.jsonl');
  const exp = cli(['export', '--store', db, '--run', 'r1', '--output-format', 'paper', '-o', out]);
  assert.equal(exp.code, 0, exp.err);
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 6);

  const db2 = new Database(db);
  db2.exec('DROP TRIGGER events_append_only_update');
  const row = db2
    .prepare("SELECT id, payload FROM events WHERE run_id = 'r1' AND type = 'draft_accepted' AND case_index = 2 AND revision = 0")
    .get() as { id: number; payload: string };
  const payload = JSON.parse(row.payload);
  payload.state.word_count += 3;
  db2.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(payload), row.id);
  db2.close();
  const tampered = cli(['audit', '--store', db, '--run', 'r1']);
  assert.equal(tampered.code, 1);
  assert.match(tampered.out, /^case demo-exact-library \(#3\) revision 0: state\.word_count: stored \d+, replayed \d+$/m);
  assert.match(tampered.out, /^FAIL: \d+ discrepanc/m);

  const missing = cli(['run', '--cases', join(dir, 'nope.jsonl'), '--model', 'sim:steady', '--store', db]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.err, /nope\.jsonl: no such file/);
  assert.ok(noStack(missing.err));
  const badHistory = cli(['run', '--cases', cases, '--model', 'sim:steady', '--store', db, '--history', 'tail']);
  assert.equal(badHistory.code, 2);
  assert.match(badHistory.err, /--history: unknown history policy 'tail'; use full, last:K/);
});

for (const [signal, code, said] of [
  ['SIGINT', 130, /revloop: stopping: in-flight calls are abandoned/],
  ['SIGTERM', 143, /revloop: stopping \(SIGTERM\): in-flight calls are abandoned/],
] as const)
  test(`${signal === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM (how service managers stop a process)'} stops cleanly: consistent store, resume message, exit ${code}, and the resumed run equals an uninterrupted one`, async () => {
    const { cases, db, dir } = await setup();
    const args = ['run', '--cases', cases, '--model', 'sim:stubborn?latency_ms=40', '--store', db, '--concurrency', '2', '--run', 'slow'];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: userEnv() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(Date.now() < deadline, 'the run started writing');
      if (!existsSync(db)) continue;
      const s = await openStore(db, { readonly: true });
      const rounds = (await s.listRuns())[0]?.rounds ?? 0;
      await s.close();
      if (rounds >= 5) break;
    }
    child.kill(signal);
    assert.equal(await exited, code, out + err);
    assert.match(err, said);
    assert.match(out, /^interrupted: stopped by request; \d+ of 10 trajectories finished \[SIMULATED\]$/m);
    // A long command is continued on indented lines, each ending in ` \`: joined, it is one command.
    assert.match(
      out.replace(/ \\\n +/g, ' '),
      /the store is consistent; resume with the same command:\n {2}revloop run --cases .* --run slow/,
    );
    const mid = cli(['audit', '--store', db, '--run', 'slow']);
    assert.equal(mid.code, 0, mid.out);
    assert.match(mid.out, /trajectories not finished/);

    const resumed = cli(args);
    assert.equal(resumed.code, 0, resumed.err);
    assert.match(resumed.out, /resuming \(\d+ of 10 trajectories already complete\)/);
    const ref = cli([...args.slice(0, 6), join(dir, 'ref.db'), '--concurrency', '2', '--run', 'slow']);
    assert.equal(ref.code, 0, ref.err);
    const a = await openStore(db, { readonly: true });
    const b = await openStore(join(dir, 'ref.db'), { readonly: true });
    assert.deepEqual(await a.loadTrajectories(['slow']), await b.loadTrajectories(['slow']));
    assert.equal(cli(['audit', '--store', db, '--run', 'slow']).code, 0);
  });

test('demo: bundled cases, simulated controllers, a SIMULATED table and the next commands', { skip: punkt.skip }, async () => {
  const dir = tempDir('revloop-demo-');
  const r = cli(['demo', '--out-dir', dir], { COLUMNS: '120' });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /30 cases of revloop's own texts \(all six families\)/);
  assert.match(r.out, /controller \(SIMULATED\).*exact-length.*c05.*c07.*c09.*c10.*c12/);
  assert.match(r.out, /sim:steady \[SIMULATED\]/);
  for (const cmd of ['revloop analyze', 'revloop report', 'revloop audit']) assert.ok(r.out.includes(cmd), cmd);
  const s = await openStore(join(dir, 'demo.db'), { readonly: true });
  assert.deepEqual(
    (await s.listRuns()).map((x) => [x.runId, x.status, x.cases]),
    [
      ['demo-steady', 'complete', 30],
      ['demo-overshoot', 'complete', 30],
      ['demo-stubborn', 'complete', 30],
      // The history intervention: 12 recurrence states × 4 arms.
      ['demo-stubborn-history', 'complete', 48],
    ],
  );
  await s.close();
  assert.match(r.out, /^history intervention 'demo-stubborn-history': 12 recurrence states of demo-stubborn/m);
  assert.match(readFileSync(join(dir, 'demo-report.html'), 'utf8'), /id="experiments-history-demo-stubborn-history"/);
  assert.equal(cli(['audit', '--store', join(dir, 'demo.db'), '--run', 'demo-overshoot']).code, 0);
  const audit = cli(['audit', '--store', join(dir, 'demo.db'), '--run', 'demo-stubborn-history']);
  assert.equal(audit.code, 0, audit.out);
});

test('demo without Punkt data runs the exact-length part and says how to get the rest', () => {
  const dir = tempDir('revloop-demo-');
  const r = cli(['demo', '--out-dir', dir], { REVLOOP_PUNKT: join(dir, 'no-such-punkt'), COLUMNS: '120' });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /10 cases of revloop's own texts \(exact-length only\)/);
  assert.match(r.out, /note: the structured families \(c05, c07, c09, c10, c12\) were skipped: Punkt parameters not found/);
  assert.match(r.out, /revloop data fetch punkt/);
  assert.match(r.out, /sim:steady \[SIMULATED\] +│ \d+\/10/);
});
