// Issue 12 #1: every command that takes a store takes the same one — `--store` a SQLite file or a
// postgres:// URL, else $REVLOOP_STORE, else runs.db — and works on both backends. Each command runs
// as a user runs it, with the store named only by REVLOOP_STORE and from a folder where a stray
// runs.db would show that a command ignored it; none prints a PostgreSQL password; and every kind of
// run moves to another store with `store copy` and audits there. The demo alone ignores
// $REVLOOP_STORE: it writes the store --store names, else its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../../src/cli/main.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import { redactLocation } from '../../src/store/store.ts';
import { BACKENDS, testStore } from '../store/backends.ts';
import { tempDir } from '../tmp.ts';
import { allCommands, BIN, revloop, userEnv } from './cli.ts';

test('every command with --store documents one rule (a SQLite file or postgres://…, $REVLOOP_STORE) and bakes in no default', async () => {
  const withStore = allCommands(await buildProgram())
    .map(({ path, cmd }) => ({ path, option: cmd.options.find((o) => o.long === '--store') }))
    .filter((c) => c.option);
  assert.deepEqual(withStore.map((c) => c.path).sort(), [
    'agent',
    'analyze',
    'audit',
    'compare-policies',
    'demo',
    'experiment crossover',
    'experiment history',
    'experiment persist',
    'experiment states',
    'experiment sysid',
    'export',
    'import-trajectories',
    'probe',
    'report',
    'run',
    'runs',
    'view',
    'worker',
  ]);
  // The demo writes its own store into its output folder (its job is a fresh, self-contained example).
  for (const { path, option } of withStore.filter((c) => c.path !== 'demo')) {
    assert.equal(option!.flags, '--store <location>', path);
    assert.match(option!.description, /postgres:\/\/user@host:port\/db/, path);
    // One option built in one place (cli/options.ts): $REVLOOP_STORE through commander (which puts
    // it before the default), runs.db where a command may do without naming a store.
    assert.equal(option!.envVar, 'REVLOOP_STORE', path);
    assert.equal(option!.defaultValue, ['analyze', 'report', 'worker'].includes(path) ? undefined : 'runs.db', path);
  }
});

/** `revloop view` until it prints its address: the run list its API serves, then Ctrl-C. */
async function viewRuns(env: NodeJS.ProcessEnv, cwd: string): Promise<{ store: string; runs: string[]; out: string }> {
  const child = spawn(process.execPath, [BIN, 'view', '--port', '0', '--bootstrap', '0'], { cwd, env: userEnv(env) });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (!(url = /at (http:\/\/\S+\/)/.exec(out)?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) assert.fail(`revloop view did not start (exit ${child.exitCode}): ${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const body = (await (await fetch(`${url}api/runs`)).json()) as { store: string; runs: Array<{ run_id: string }> };
    return { store: body.store, runs: body.runs.map((r) => r.run_id).sort(), out };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

for (const b of BACKENDS) {
  test(
    `[${b.name}] every command that takes a store reads it from REVLOOP_STORE: run, runs, audit, export, analyze, report, view, experiments, compare-policies, probe, agent`,
    { skip: b.skip, timeout: 300_000 },
    async () => {
      const s = testStore(b.name);
      const cwd = tempDir('revloop-store-env-');
      try {
        const cases = join(cwd, 'cases.jsonl');
        await writeCaseSet(cases, exactLengthDemoCases().slice(0, 6));
        // A password in the URL (the test server trusts local connections and ignores it).
        const location = b.name === 'postgres' ? Object.assign(new URL(s.location), { password: 'hunter2' }).toString() : s.location;
        const env = { REVLOOP_STORE: location };
        const printed: string[] = [];
        const ok = (args: string[]) => {
          const r = revloop(args, { env, cwd });
          assert.equal(r.code, 0, `revloop ${args.join(' ')}: ${r.err}`);
          printed.push(r.out, r.err);
          return r;
        };
        ok(['run', '--cases', cases, '--model', 'sim:stubborn', '--run', 'src']);
        ok(['experiment', 'states', '--from-run', 'src', '--for', 'crossover', '-o', join(cwd, 'states.jsonl')]);
        const cross = ok(['experiment', 'crossover', '--planner-run', 'src', '--model', 'sim:steady', '--run', 'cross', '--budget', '2']);
        assert.match(cross.out, /^experiment crossover 'cross' in .+: new$/m);
        ok([
          'compare-policies',
          '--cases',
          cases,
          '--model',
          'sim:steady',
          '--policies',
          'verbatim-full,abstract',
          '--budget',
          '2',
          '--limit',
          '2',
          '--run-prefix',
          'cmp',
        ]);
        ok(['probe', '--model', 'sim:steady', '--build', '1', '--run', 'p', '--no-progress']);
        ok(['agent', '--model', 'sim:steady', '--harness', 'drop', '--tasks', '1', '--max-steps', '1', '--run', 'a', '--no-progress']);
        for (const run of ['src', 'cross']) assert.match(ok(['audit', '--run', run]).out, /^PASS: /m);
        ok(['export', '--run', 'src', '--output-format', 'paper', '-o', join(cwd, 'src.jsonl')]);
        assert.equal(readFileSync(join(cwd, 'src.jsonl'), 'utf8').trim().split('\n').length, 6);
        assert.match(ok(['analyze', '--run', 'src', '--run', 'cross', '--bootstrap', '0']).out, /Final joint success/);
        ok(['report', '--run', 'src', '-o', join(cwd, 'report.html'), '--bootstrap', '0']);
        assert.match(readFileSync(join(cwd, 'report.html'), 'utf8'), /^<!doctype html>/i);
        const listed = JSON.parse(ok(['runs', '--json']).out) as Array<{ runId: string }>;
        const expected = ['a', 'cmp__abstract__T2__n2', 'cmp__verbatim-full__T2__n2', 'cross', 'p', 'src'];
        assert.deepEqual(listed.map((r) => r.runId).sort(), expected);
        const viewed = await viewRuns(env, cwd);
        assert.equal(viewed.store, redactLocation(location));
        for (const text of [...printed, viewed.out]) assert.doesNotMatch(text, /hunter2/);
        assert.deepEqual(viewed.runs, expected);
        // Every kind of run (revision, experiment, policy comparison, probe, agent) moves to a SQLite
        // file with its chain, and audits there; the revision run exports the same bytes.
        const copy = join(cwd, 'copy.db');
        assert.match(ok(['store', 'copy', '--to', copy, '--from', location]).out, /^copied 6 runs \(\d+ events\) .*; chains verified$/m);
        const copied = JSON.parse(ok(['runs', '--json', '--store', copy]).out) as Array<{ runId: string }>;
        assert.deepEqual(copied.map((r) => r.runId).sort(), expected);
        for (const run of expected) assert.match(ok(['audit', '--store', copy, '--run', run]).out, /^PASS: /m, run);
        ok(['export', '--store', copy, '--run', 'src', '--output-format', 'paper', '-o', join(cwd, 'copied.jsonl')]);
        assert.equal(readFileSync(join(cwd, 'copied.jsonl'), 'utf8'), readFileSync(join(cwd, 'src.jsonl'), 'utf8'));
        // Nothing fell back to the default store in the working folder.
        assert.equal(existsSync(join(cwd, 'runs.db')), false);
      } finally {
        await s.cleanup();
      }
    },
  );
}

for (const b of BACKENDS) {
  test(
    `[${b.name}] revloop demo writes the store --store names (never $REVLOOP_STORE's) and prints no password`,
    { skip: b.skip },
    async () => {
      const s = testStore(b.name);
      const cwd = tempDir('revloop-demo-store-');
      try {
        const location = b.name === 'postgres' ? Object.assign(new URL(s.location), { password: 'hunter2' }).toString() : s.location;
        const elsewhere = join(cwd, 'yours.db');
        const r = revloop(['demo', '--store', location, '--out-dir', join(cwd, 'out')], { env: { REVLOOP_STORE: elsewhere }, cwd });
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, new RegExp(`^store: ${redactLocation(location).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
        assert.doesNotMatch(r.out + r.err, /hunter2/);
        const listed = JSON.parse(revloop(['runs', '--json', '--store', location], { cwd }).out) as Array<{ runId: string }>;
        assert.ok(listed.some((run) => run.runId === 'demo-steady'));
        // Without --store: its own folder's demo.db, and the store $REVLOOP_STORE names is left alone.
        const own = revloop(['demo', '--out-dir', join(cwd, 'own')], { env: { REVLOOP_STORE: elsewhere }, cwd });
        assert.equal(own.code, 0, own.err);
        assert.ok(existsSync(join(cwd, 'own', 'demo.db')));
        assert.equal(existsSync(elsewhere), false);
      } finally {
        await s.cleanup();
      }
    },
  );
}
