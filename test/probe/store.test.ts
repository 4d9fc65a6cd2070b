// Probe tables in the run store: insert-only scores, one content per item id, sessions.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProbeStore, defaultProbeRunId } from '../../src/studies/probe/store.ts';
import { openStore } from '../../src/store/store.ts';
import { shortItems } from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'revloop-probe-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('scores are insert-only; a key is written once; items cannot change under the same id', () => {
  const path = join(dir, 's.db');
  const s = ProbeStore.open(path);
  s.ensureRun({ run_id: 'p', env: 'toolshed', model_spec: 'm', model_label: 'm', simulated: false });
  const items = shortItems();
  s.addItems('p', items, 'a.jsonl');
  s.addItems('p', items, 'a.jsonl'); // same content: fine
  assert.throws(() => s.addItems('p', [{ ...items[0], goal: 'something else' }], 'b.jsonl'), /differs from the item of the same id/);
  const session = s.startSession('p', { modelSpec: 'm', conditions: ['pre'], itemsSource: 'a', itemsSha256: 'x', nItems: 2, backend: {} });
  const row = {
    item_id: items[0].item_id,
    condition: 'pre' as const,
    candidate: 'failed' as const,
    logprob: -3,
    n_tokens: 4,
    n_argmax_match: 1,
    is_greedy: false,
    ctx_tokens: 9,
  };
  assert.equal(s.insertScores('p', session, [row]), 1);
  assert.equal(s.insertScores('p', session, [{ ...row, logprob: -1 }]), 0);
  assert.equal(s.scores('p')[0].logprob, -3);
  assert.throws(() => s.db.prepare("UPDATE probe_scores SET logprob = 0 WHERE run_id = 'p'").run(), /insert-only/);
  assert.throws(() => s.db.prepare("DELETE FROM probe_scores WHERE run_id = 'p'").run(), /insert-only/);
  s.endSession('p', session, {
    status: 'complete',
    nScored: 1,
    nUnavailable: 0,
    counters: { forwardTokens: 5, forwardCalls: 1, naiveTokens: 13 },
    seconds: 0.1,
  });
  assert.equal(s.sessions('p')[0].status, 'complete');
  assert.throws(
    () => s.ensureRun({ run_id: 'p', env: 'coderepair', model_spec: 'm', model_label: 'm', simulated: false }),
    /holds toolshed items/,
  );
  s.close();
  // The same file still opens as a revision store, and a read-only open of a store without probe tables is empty.
  const rs = openStore(path, { readonly: true });
  assert.deepEqual(rs.runIds(), []);
  rs.close();
  const empty = join(dir, 'e.db');
  openStore(empty).close();
  const ro = ProbeStore.open(empty, { readonly: true });
  assert.deepEqual(ro.listRuns(), []);
  ro.close();
});

test('default run ids are readable and stable', () => {
  assert.equal(defaultProbeRunId('toolshed', 'qwen2.5-0.5b-instruct-f16'), 'probe-toolshed-qwen2.5-0.5b-instruct-f16');
  assert.equal(defaultProbeRunId('toolshed', 'sim:steady [simulated]'), 'probe-toolshed-sim-steady-sim');
});
