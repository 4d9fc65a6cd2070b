// Issue 38 #5: below the app layer an error names the option of the call that failed, as the
// library calls it (`plugins`, `runId`, `harness`, `history`), never a command-line flag; the error
// carries how to word it otherwise (namingOption), which the CLI uses for the flag the user typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  messageNaming,
  namedOptions,
  namingOption,
  NotFoundError,
  PlanMismatchError,
  RevloopError,
  UsageError,
  UserError,
} from '../../src/core/errors.ts';
import { loadFamilyPlugins } from '../../src/core/verify/plugins.ts';
import { parseHistoryWindow, policyName } from '@revloop/revise';
import { parseArms } from '../../src/studies/experiments/arms.ts';
import { openStudyRun } from '../../src/store/study-runs.ts';
// The probe and agent studies register their run kinds with the store as they load.
import '../../src/studies/probe/probe-store.ts';
import '../../src/studies/agent/agent-store.ts';
import { openStore } from '../../src/store/store.ts';
import { tempDir } from '../tmp.ts';

const caught = async (f: () => unknown): Promise<Error> => {
  try {
    await f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
};

test('namingOption: the error as built for the option, worded again for any other name of it', () => {
  const e = namingOption(
    ['allowSubset', 'runId'],
    (subset, id) => new UsageError(`pass ${subset}, or use a new ${id}`, { option: subset }),
  );
  assert.ok(e instanceof UsageError && RevloopError.isInstance(e));
  assert.equal(e.code, 'E_USAGE');
  assert.equal(e.option, 'allowSubset');
  assert.equal(e.message, 'pass allowSubset, or use a new runId');
  assert.deepEqual(namedOptions(e), ['allowSubset', 'runId']);
  assert.equal(
    messageNaming(e, (o) => (o === 'runId' ? '--run' : '--allow-subset')),
    'pass --allow-subset, or use a new --run',
  );
  // An error naming no option keeps its message; the mark is not an enumerable field.
  const plain = new UserError('nothing to name');
  assert.deepEqual(namedOptions(plain), []);
  assert.equal(
    messageNaming(plain, () => '--x'),
    'nothing to name',
  );
  assert.deepEqual(Object.keys(e), Object.keys(new UsageError('x', { option: 'allowSubset' })));
});

test('loadFamilyPlugins names the option `plugins`, not --plugin', async () => {
  const e = await caught(() => loadFamilyPlugins(['no-such-plugin.mjs']));
  assert.ok(e instanceof NotFoundError);
  assert.equal(e.message, 'plugins: no such file: no-such-plugin.mjs');
  assert.deepEqual(namedOptions(e), ['plugins']);
  assert.equal(
    messageNaming(e, () => '--plugin'),
    '--plugin: no such file: no-such-plugin.mjs',
  );
});

test('policies, history windows and arms name their options', () => {
  assert.throws(() => policyName('nope'), /^UsageError: policy: unknown policy 'nope'/);
  assert.throws(() => policyName('nope', 'harness'), /^UsageError: harness: unknown policy 'nope'/);
  assert.throws(() => parseHistoryWindow('tail'), /^UserError: history: unknown history policy 'tail'/);
  assert.throws(() => parseArms('full,tail'), /^UsageError: arms: unknown arm 'tail'/);
});

test('a run id taken by another plan or kind: the message names the option `runId`', async () => {
  const store = await openStore(join(tempDir('revloop-option-errors-'), 'runs.db'));
  try {
    const request = {
      runId: 's',
      kind: 'probe',
      controller: { label: 'm', spec: 'sim:steady', simulated: true },
      settings: { env: 'toolshed', n: 1 },
    };
    assert.deepEqual(await openStudyRun(store, request), { created: true });
    const changed = await caught(() => openStudyRun(store, { ...request, settings: { env: 'toolshed', n: 2 } }));
    assert.ok(changed instanceof PlanMismatchError);
    assert.match(changed.message, /\nUse a new runId to run this plan, or repeat the original command to resume 's'\.$/);
    assert.match(
      messageNaming(changed, () => '--run'),
      /\nUse a new --run to run this plan/,
    );
    const other = await caught(() => openStudyRun(store, { ...request, kind: 'agent' }));
    assert.match(other.message, /is a probe run, not a agent run; choose another runId$/);
    assert.deepEqual(namedOptions(other), ['runId']);
  } finally {
    await store.close();
  }
});
