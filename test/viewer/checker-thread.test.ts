// The viewer checks each run once, in a thread of its own (app/view-search.ts). That thread ends
// when it has answered every check asked of it, so its heap (grown by reading runs) does not stay
// with the server (docs/viewer.md, "Memory and speed"); the next check starts it again. The search
// thread, asked again and again, stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SearchWorker } from '../../src/app/view-search.ts';
import { toyCases } from '../loop/fakes.ts';
import { toyRun } from '../store/toy-run.ts';
import { tempDir } from '../tmp.ts';

test('the checker thread ends once every check asked of it is answered; the search thread stays', async () => {
  const location = join(tempDir(), 'store.db');
  await toyRun(location, { cases: toyCases(3) });
  await toyRun(location, { cases: toyCases(2), runId: 'toy-2' });
  const checker = new SearchWorker(location, { closeWhenIdle: true });
  const search = new SearchWorker(location);
  try {
    assert.equal(checker.running, false, 'started on first use');
    const checks = Promise.all([checker.check('toy'), checker.check('toy-2')]);
    assert.equal(checker.running, true);
    assert.deepEqual(await checks, [null, null]);
    assert.equal(checker.running, false, 'ended after its last check');
    assert.equal(await checker.check('toy'), null, 'a later check starts it again');
    assert.equal(checker.running, false);

    assert.equal(await search.check('toy'), null);
    assert.equal((await search.search('toy', { text: 'zzzz-none' })).total, 0);
    assert.equal(search.running, true, 'the search thread stays');
  } finally {
    await checker.close();
    await search.close();
  }
});
