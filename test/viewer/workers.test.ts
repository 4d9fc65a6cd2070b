// Issue 40: a worker killed on PostgreSQL holds nothing. Its claims end with its database session
// (claims take the trajectories of workers whose session is gone at once, whatever the lease's
// expiry), so `revloop runs` and the viewer show it gone, holding no trajectory, and name the ones
// it freed — not "gone (session closed)" still holding them, as before. The viewer's run list
// shows the workers at 1400 and 900 px. PostgreSQL only (REVLOOP_TEST_PG).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startViewer } from '../../src/app/view.ts';
import { openStore, type WorkerInfo } from '../../src/store/store.ts';
import { PG_SKIP, testStore } from '../store/backends.ts';
import { chromiumMissing, launchChromium } from '../chromium.ts';
import { BIN, revloopAsync, userEnv } from '../cli/cli.ts';
import { longId } from '../long-ids.ts';
import { tempDir } from '../tmp.ts';

const skip = PG_SKIP || chromiumMissing;

async function workers(location: string): Promise<WorkerInfo[]> {
  const s = await openStore(location, { readonly: true });
  try {
    return await s.leases!.workers();
  } finally {
    await s.close();
  }
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

test('a killed worker is shown gone, holding nothing, with the trajectories it freed (runs and the viewer)', { skip }, async () => {
  const dir = tempDir('revloop-killed-worker-');
  const pg = testStore('postgres');
  try {
    const cases = join(dir, 'cases.jsonl');
    const rows = Array.from({ length: 6 }, (_, i) => ({
      id: longId(i),
      family: 'exact-length',
      source: 'dolly_creative_writing',
      instruction: `Describe object number ${i}.`,
      target: 20,
      anchors: ['object'],
    }));
    writeFileSync(cases, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const planned = await revloopAsync([
      'run',
      '--cases',
      cases,
      '--model',
      'sim:steady?latency_ms=5000',
      '--store',
      pg.location,
      '--run-id',
      'w',
      '--workers',
      '0',
    ]);
    assert.equal(planned.code, 0, planned.err);
    const child = spawn(process.execPath, [BIN, 'worker', '--store', pg.location, '--run', 'w', '--concurrency', '2'], {
      stdio: 'ignore',
      env: userEnv(),
    });
    const exited = new Promise((r) => child.on('exit', r));
    const holding = await until('the worker to hold two trajectories', async () => {
      const w = (await workers(pg.location)).find((x) => x.alive && x.leases.length === 2);
      return w;
    });
    child.kill('SIGKILL');
    await exited;
    const gone = await until('the server to see the session end', async () => {
      const w = (await workers(pg.location)).find((x) => x.worker === holding.worker);
      return w && !w.alive ? w : undefined;
    });
    // Gone without stopping: it holds nothing, and what it ran is free to claim now.
    assert.equal(gone.stoppedAt, null);
    assert.deepEqual(gone.leases, []);
    assert.deepEqual(
      gone.released.map((l) => [l.runId, l.caseIndex]),
      holding.leases.map((l) => [l.runId, l.caseIndex]),
    );
    const freed = holding.leases.map((l) => `#${l.caseIndex + 1}`).join(' ');

    const listing = await revloopAsync(['runs', '--store', pg.location, '--wide']);
    assert.equal(listing.code, 0, listing.err);
    assert.match(listing.out, /gone \(killed or disconnected\)/);
    assert.ok(listing.out.includes(`none (freed: w ${freed})`), listing.out);
    assert.doesNotMatch(listing.out, /session closed/);

    const viewer = await startViewer({ store: pg.location, port: 0, bootstrap: 0 });
    const browser = await launchChromium({ width: 1400, height: 1000 });
    try {
      const api = (await (await fetch(`http://127.0.0.1:${viewer.port}/api/runs`)).json()) as { workers: unknown[] };
      assert.deepEqual(api.workers, [
        {
          worker: holding.worker,
          name: holding.name,
          state: 'gone',
          heartbeat_at: gone.heartbeatAt,
          concurrency: 2,
          lease_seconds: 60,
          rejected_writes: 0,
          leases: [],
          released: holding.leases.map((l) => ({ run_id: 'w', case_index: l.caseIndex })),
        },
      ]);
      for (const width of [1400, 900]) {
        const page = await browser.context.newPage();
        await page.setViewportSize({ width, height: 1000 });
        await page.goto(`http://127.0.0.1:${viewer.port}/`);
        const row = page.locator(`#worker-rows tr[data-worker="${holding.worker}"]`);
        await row.waitFor();
        const cells = await row.locator('td').allInnerTexts();
        assert.equal(cells[1], 'gone (killed or disconnected)', `${width} px`);
        assert.equal(cells[4], `none (freed: w ${freed})`, `${width} px`);
        assert.ok(await row.locator('td').nth(4).isVisible());
        // Nobody is running it: not shown as running.
        assert.doesNotMatch(await page.locator('#run-rows tr[data-run="w"]').innerText(), /running/);
        await page.close();
      }
    } finally {
      await browser.close();
      await viewer.close();
    }
  } finally {
    await pg.cleanup();
  }
});
