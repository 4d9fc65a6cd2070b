// Issue 14 #11, the issue's own scenario: `revloop agent --model 'vllm:<url>#sim:steady'` after an
// in-process `sim:steady` agent run in the same store (same default run id) must not reuse the
// stored rollouts: it is refused as a different plan, naming the parts that differ. Probe too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startSimServer } from '../../src/models/sim/server.ts';
import { revloopAsync as revloop, hasStack } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-backend-');
const sim = await startSimServer({ port: 0 });
after(() => sim.close());

test('agent: in-process sim:steady, then vllm:<url>#sim:steady under the same default run id → refused, naming the differences', async () => {
  const db = join(dir, 'agent.db');
  const agent = (spec: string) =>
    revloop(['agent', '--model', spec, '--harness', 'verbatim', '--tasks', '2', '--max-steps', '2', '--store', db, '--no-progress']);
  const first = await agent('sim:steady');
  assert.equal(first.code, 0, first.err);
  assert.match(first.err, /2 new rollouts/);
  const second = await agent(`vllm:${sim.url}#sim:steady`);
  assert.equal(second.code, 2, second.err);
  assert.match(second.err, /^revloop: run 'agent-toolshed-[^']+' exists with a different plan/m);
  assert.match(
    second.err,
    new RegExp(`controller\\.spec: stored "sim:steady", requested "vllm:${sim.url.replace(/[./:]/g, '\\$&')}#sim:steady"`),
  );
  assert.doesNotMatch(second.err, /new rollouts/, 'nothing was run or reused');
  assert.ok(!hasStack(second.err));
});

test('probe: the same change of backend is refused the same way', async () => {
  const db = join(dir, 'probe.db');
  const probe = (spec: string) => revloop(['probe', '--model', spec, '--build', '2', '--store', db, '--no-progress']);
  const first = await probe('sim:steady');
  assert.equal(first.code, 0, first.err);
  const second = await probe(`vllm:${sim.url}#sim:steady`);
  assert.equal(second.code, 2, second.err);
  assert.match(second.err, /exists with a different plan/);
  assert.match(second.err, /controller\.spec: stored "sim:steady", requested "vllm:/);
  assert.doesNotMatch(second.err, /new scores/);
});
