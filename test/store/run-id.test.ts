// Run ids are validated when a run is created (issue 36): non-empty, printable, at most 200
// characters; the ids revloop makes ([A-Za-z0-9._:-]) pass; runs stored before the rule keep their
// ids and still open, list, audit and copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runIdProblem } from '../../src/store/run-id.ts';
import { openStore } from '../../src/store/store.ts';
import { UsageError } from '../../src/core/errors.ts';
import { auditRun } from '../../src/engine/audit.ts';
import { copyStore } from '../../src/app/store-copy.ts';
import { resolveToy, toyCases } from '../loop/fakes.ts';
import { toyRun } from './toy-run.ts';
import { eachBackend } from './backends.ts';
import { revloop } from '../cli/cli.ts';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './toy-run.ts';

test('what a run id may be', () => {
  for (const ok of ['toy', 'qwen3-8b-lexical', 'run:2026-01-01T00:00:00.000Z', 'a.b_c-d:e', 'ünïcode-läuft', 'x'.repeat(200)])
    assert.equal(runIdProblem(ok), null, ok);
  assert.equal(runIdProblem(''), 'is empty');
  assert.match(runIdProblem('x'.repeat(201))!, /201 characters long; at most 200/);
  assert.match(runIdProblem('a\nb')!, /unprintable character \(U\+000A\) at character 2/);
  assert.match(runIdProblem('a\u001b[31m')!, /U\+001B/);
  assert.match(runIdProblem('ab\u202ecd')!, /U\+202E/);
  assert.match(runIdProblem('a\u0000')!, /U\+0000/);
  assert.match(runIdProblem('a\ud83d')!, /U\+D83D/);
  assert.match(runIdProblem(' padded')!, /starts or ends with a space/);
});

eachBackend('a new run with a bad id is refused; a run stored before the rule still opens, lists, audits and copies', async (s) => {
  for (const bad of ['', 'a\nb\u001b[2J'])
    await assert.rejects(
      toyRun(s.location, { runId: bad, cases: toyCases(1) }),
      (e) => e instanceof UsageError && /run id .* (is empty|unprintable)/.test(e.message),
    );
  // A store written before the rule: the plan appended directly, as older revloop versions did.
  await toyRun(s.location, { runId: 'template', cases: toyCases(2) });
  const store = await openStore(s.location);
  const legacy = 'old\u001bid';
  await store.append(legacy, [{ type: 'run_planned', payload: (await store.getPlanned('template'))! }]);
  await store.close();
  const r = await openStore(s.location, { readonly: true });
  try {
    assert.deepEqual(await r.runIds(), ['template', legacy]);
    assert.equal((await r.listRuns([legacy]))[0].runId, legacy);
    assert.ok((await auditRun(r, legacy, resolveToy)).passed);
  } finally {
    await r.close();
  }
  const copied = await copyStore({ from: s.location, to: s.another() });
  assert.deepEqual(
    copied.map((c) => c.runId),
    ['template', legacy],
  );
});

test('the CLI refuses --run-id "" and an id with control characters, exit 2, before any store is created', () => {
  const dir = tempDir();
  const file = join(dir, 'in.jsonl');
  writeFileSync(
    file,
    JSON.stringify({
      id: 'a',
      controller: 'm',
      case_id: 'k',
      family: 'exact-length',
      source: 'own',
      target: 2,
      anchors: [],
      drafts: ['Two words.'],
    }) + '\n',
  );
  for (const id of ['', 'x\ny']) {
    const r = revloop(['import-trajectories', file, '--run-id', id, '--store', join(dir, 'runs.db')]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /run id .* (is empty|holds an unprintable character)/);
    assert.ok(!existsSync(join(dir, 'runs.db')));
  }
});
