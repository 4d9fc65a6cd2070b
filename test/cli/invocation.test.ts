// Issue 14, first-hour friction: every command revloop prints for the user to paste ("next:" lines,
// resume commands, hints in messages) starts the way revloop was started — `npx revloop …` under npx
// (a checkout, where `revloop` is not on PATH), `npm exec --prefix DIR revloop --` from elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../tmp.ts';
import { revloop } from './cli.ts';

const NPX = { npm_command: 'exec' }; // what npm sets for `npx revloop …`
const COMMAND = /(\S*)revloop (?:run|runs|audit|export|analyze|report|demo|import-trajectories|probe|agent) /g;

/** Every printed revloop command line, with what precedes "revloop" on it. */
function prefixes(text: string): string[] {
  return [...text.matchAll(COMMAND)].map((m) => (text.slice(Math.max(0, m.index - 4), m.index) + m[0]).trim());
}

test('under npx: next lines, resume commands and hints in errors say `npx revloop`', async () => {
  const dir = tempDir('revloop-invocation-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  const imp = join(dir, 'imp.jsonl');
  writeFileSync(
    imp,
    JSON.stringify({ id: 't', controller: 'm', family: 'exact-length', case_id: 'c', source: 's', target: 1, anchors: [], drafts: ['a'] }) +
      '\n',
  );
  const outputs = [
    revloop(['run', '--cases', cases, '--model', 'sim:instant', '--store', db, '--limit', '2'], { env: NPX }),
    revloop(['demo', '--out-dir', join(dir, 'demo')], { env: NPX }),
    revloop(['import-trajectories', imp, '--store', db], { env: NPX }),
    revloop(['audit', '--store', db, '--run', 'no-such-run'], { env: NPX }),
    revloop(['analyze', '--store', join(dir, 'empty.db')], { env: NPX }),
  ];
  const printed = outputs.flatMap((r) => prefixes(r.out + '\n' + r.err));
  assert.ok(printed.length >= 10, `printed commands: ${printed.join(' | ')}`);
  for (const p of printed) assert.match(p, /(^|[\s`])npx revloop /, `not pasteable under npx: ${p}`);
});

test('under `npm exec --prefix DIR` from another folder: printed commands say so (`npx revloop` there would ask the registry)', async () => {
  const { invokedAs, commandLine } = await import('../../src/cli/invocation.ts');
  const checkout = '/home/me/revloop';
  const env = { npm_command: 'exec', npm_config_local_prefix: checkout, PATH: '' };
  assert.equal(invokedAs({ ...env, INIT_CWD: checkout }), 'npx revloop');
  assert.equal(invokedAs({ ...env, INIT_CWD: `${checkout}/sub` }), 'npx revloop');
  assert.equal(invokedAs({ ...env, INIT_CWD: '/tmp/elsewhere' }), `npm exec --prefix ${checkout} revloop --`);
  assert.equal(
    commandLine(['runs', '--store', 'my runs.db'], { ...env, INIT_CWD: '/tmp' }),
    `npm exec --prefix ${checkout} revloop -- runs --store 'my runs.db'`,
  );
});
