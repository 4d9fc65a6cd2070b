import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import { resolveToy, toyCases } from '../loop/fakes.ts';
import { tempDir, toyRun } from './toy-run.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kill -9 of a writing process mid-run: readers kept working, the store opens, audits and resumes to the same result', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'child-run.ts'), path], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));

  // A concurrent reader polls the store while the child writes; counts only ever grow.
  let reads = 0;
  let lastRounds = 0;
  let killed = false;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await sleep(15);
    if (!existsSync(path)) continue;
    const reader = await openStore(path, { readonly: true });
    try {
      const runs = await reader.listRuns();
      if (!runs.length) continue;
      const ts = await reader.loadTrajectories(['toy']);
      const rounds = ts.reduce((n, t) => n + t.rounds.length, 0);
      assert.ok(rounds >= lastRounds, 'a reader never sees the store go backwards');
      assert.equal(runs[0].status, 'running');
      lastRounds = rounds;
      reads++;
      // At least two reads while the child writes, and enough written to be mid-run.
      if (rounds >= 25 && reads >= 2) {
        child.kill('SIGKILL');
        killed = true;
        break;
      }
    } finally {
      await reader.close();
    }
  }
  assert.ok(killed, `the child wrote enough to be killed mid-run (stderr: ${stderr})`);
  assert.equal(await exited, 'SIGKILL');
  assert.ok(reads >= 2, `reads while writing: ${reads}`);

  let store = await openStore(path, { readonly: true });
  const [summary] = await store.listRuns();
  assert.equal(summary.status, 'interrupted', 'the dead writer no longer holds the run');
  assert.ok(summary.pending > 0);
  const midAudit = await auditRun(store, 'toy', resolveToy);
  assert.deepEqual(midAudit.discrepancies.map(formatDiscrepancy), []);
  await store.close();

  await toyRun(path, { cases: toyCases(30, 'kill'), concurrency: 4 });
  const ref = join(dir, 'ref.db');
  await toyRun(ref, { cases: toyCases(30, 'kill'), concurrency: 4 });
  store = await openStore(path, { readonly: true });
  const refStore = await openStore(ref, { readonly: true });
  assert.deepEqual(await store.loadTrajectories(['toy']), await refStore.loadTrajectories(['toy']));
  assert.equal((await store.listRuns())[0].status, (await refStore.listRuns())[0].status);
  assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
});
