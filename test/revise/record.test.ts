// Recording a revise() call in a store (docs/revise.md §7), a sink of the kernel in revloop: the
// run reads back like any revision run, and the audit replays a family verifier's states and the
// requests the loop sent.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { revise } from '../../src/revise/index.ts';
import { openStore } from '../../src/store/store.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../tmp.ts';

test('revise({ store }) records one run of kind revise that the audit replays (SIMULATED controller)', async () => {
  const dir = tempDir('revloop-revise-record-');
  try {
    const db = join(dir, 'runs.db');
    const [c] = exactLengthDemoCases();
    const r = await revise({ model: 'sim:stubborn', verify: { family: 'exact-length', case: c }, store: db, runId: 'one', temperature: 0 });
    assert.equal(r.runId, 'one');
    // A token budget that stops after a few generations ends the trajectory with a `limit`.
    const limited = await revise({
      model: 'sim:stubborn',
      verify: { family: 'exact-length', case: c },
      store: db,
      runId: 'two',
      budget: { tokens: 400 },
    });
    assert.equal(limited.status, 'budget');
    assert.equal(limited.limit, 'tokens');
    const s = await openStore(db, { readonly: true });
    try {
      const [t] = await s.loadTrajectories(['one']);
      assert.equal(t.rounds.length, r.attempts.length);
      assert.deepEqual(
        t.rounds.map((x) => x.text),
        r.attempts.map((a) => a.draft),
      );
      assert.equal(t.status, 'complete');
      const a = await auditRun(s, 'one', getFamily);
      assert.deepEqual(a.discrepancies.map(formatDiscrepancy), []);
      const [u] = await s.loadTrajectories(['two']);
      assert.equal(u.rounds.length, limited.attempts.length);
      assert.equal(u.status, 'complete');
    } finally {
      await s.close();
    }
    // The same run id twice is refused before anything is sent.
    await assert.rejects(
      revise({ model: 'sim:stubborn', verify: { family: 'exact-length', case: c }, store: db, runId: 'one' }),
      /already exists/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reviseStream with a model spec and a store: the events flow after the set-up, done carries the run id', async () => {
  const dir = tempDir('revloop-revise-stream-');
  try {
    const [c] = exactLengthDemoCases();
    const { reviseStream } = await import('../../src/revise/index.ts');
    const stream = reviseStream({
      model: 'sim:ideal',
      verify: { family: 'exact-length', case: c },
      store: join(dir, 'runs.db'),
      runId: 's',
    });
    const types: string[] = [];
    let doneRunId: string | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'done') doneRunId = e.result.runId;
    }
    assert.equal(types[0], 'attempt-started');
    assert.equal(types.at(-1), 'done');
    assert.equal(doneRunId, 's');
    assert.equal((await stream.result).runId, 's');
    // A bad spec fails the first next() with its error.
    const bad = reviseStream({ model: 'nope:x', verify: { family: 'exact-length', case: c } });
    await assert.rejects(bad.next(), /nope/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
