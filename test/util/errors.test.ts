// Typed errors of the lower layers (core, models, envs): each carries its stable code and structured
// fields, is recognised by brand, and keeps the exact message people saw before; the CLI still
// prints that message alone and exits 2.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DataMissingError, InputError, NotFoundError, RevloopError, UsageError, UserError, type ErrorCode } from '../../src/core/errors.ts';
import { reportError } from '../../src/cli/errors.ts';
import { validateCaseFile, parseFormat } from '../../src/core/cases/load.ts';
import { parsePunktJson, parsePunktTab } from '../../src/core/text/punkt-params.ts';
import { NO_PUNKT_MESSAGE, resolvePunkt } from '../../src/core/text/punkt-resolve.ts';
import { zipEntries } from '../../src/core/text/zip.ts';
import { requireOutputFolder } from '../../src/core/util/atomic-file.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { createModel } from '../../src/models/index.ts';
import { parseItems, readItemsFile } from '../../src/envs/items/item-file.ts';
import { loadMbpp } from '../../src/envs/coderepair/items.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-errors-');

/** Catches what `fn` throws (sync or async). */
async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
}

function check<T extends RevloopError>(
  e: unknown,
  cls: new (...args: never[]) => T,
  code: ErrorCode,
  message: string,
  fields: Partial<Record<keyof T, unknown>>,
): void {
  assert.ok(e instanceof cls, `${(e as Error)?.name}: ${(e as Error)?.message}`);
  assert.ok(e instanceof UserError && RevloopError.isInstance(e));
  assert.equal(e.code, code);
  assert.equal(e.message, message);
  for (const [k, v] of Object.entries(fields)) assert.deepEqual((e as unknown as Record<string, unknown>)[k], v, k);
}

test('core: missing files, bad rows and unknown names carry their code and fields; the text is unchanged', async () => {
  const missing = join(dir, 'nope.jsonl');
  check(await caught(() => validateCaseFile(missing)), NotFoundError, 'E_NOT_FOUND', `${missing}: no such file`, {
    kind: 'file',
    target: missing,
  });
  check(await caught(() => validateCaseFile(dir)), InputError, 'E_INPUT', `${dir}: not a file`, { file: dir, line: null, field: null });
  check(
    await caught(() => parseFormat('yaml')),
    UsageError,
    'E_USAGE',
    "unknown case format 'yaml'; formats: paper-exact, paper-structured, collie, native, ifeval",
    { option: 'format' },
  );
  check(
    await caught(() => parsePunktJson('{"abbrev_types": 3, "collocations": [], "ortho_context": {}, "sent_starters": []}', 'english.json')),
    InputError,
    'E_INPUT',
    'english.json: abbrev_types: expected a list of strings',
    { file: 'english.json', line: null, field: 'abbrev_types', problem: 'expected a list of strings' },
  );
  const tab = (name: string) => (name === 'ortho_context.tab' ? 'the\t12\nof\tx\n' : '');
  check(
    await caught(() => parsePunktTab(tab, 'punkt_tab/english')),
    InputError,
    'E_INPUT',
    'punkt_tab/english/ortho_context.tab:2: flags: expected an integer, got "x"',
    { line: 2, field: 'flags' },
  );
  check(
    await caught(() => resolvePunkt(null, { env: { REVLOOP_DATA_DIR: dir }, sharedFile: null })),
    DataMissingError,
    'E_DATA_MISSING',
    NO_PUNKT_MESSAGE,
    {
      what: 'punkt',
    },
  );
  check(
    await caught(() => zipEntries(Buffer.from('not a zip'), 'punkt_tab.zip')),
    InputError,
    'E_INPUT',
    'punkt_tab.zip: not a readable ZIP archive (no end-of-central-directory record)',
    {
      file: 'punkt_tab.zip',
    },
  );
  const out = join(dir, 'no-such-folder', 'x.json');
  check(
    await caught(() => requireOutputFolder(out)),
    NotFoundError,
    'E_NOT_FOUND',
    `cannot write ${out}: folder ${join(dir, 'no-such-folder')} does not exist (create it first)`,
    { kind: 'folder', target: join(dir, 'no-such-folder') },
  );
  const family = (await caught(() => getFamily('no-such-family'))) as NotFoundError;
  check(family, NotFoundError, 'E_NOT_FOUND', family.message, { kind: 'family', target: 'no-such-family' });
  assert.match(family.message, /^unknown family 'no-such-family'; known families: exact-length, /);
});

test('models: bad specs are usage errors naming the parameter; unknown profiles and files are not-found errors', async () => {
  const bogus = (await caught(() => createModel('sim:steady?bogus=1'))) as UsageError;
  check(bogus, UsageError, 'E_USAGE', bogus.message, { option: 'bogus' });
  assert.match(bogus.message, /^invalid model spec "sim:steady\?bogus=1": unknown sim parameter "bogus"; known: /);
  const scheme = (await caught(() => createModel('carrier-pigeon:x'))) as UsageError;
  check(scheme, UsageError, 'E_USAGE', scheme.message, { option: null });
  const profile = (await caught(() => createModel('sim:nope'))) as NotFoundError;
  check(profile, NotFoundError, 'E_NOT_FOUND', profile.message, { kind: 'profile', target: 'nope' });
  const range = (await caught(() => createModel('openai-compatible:http://127.0.0.1:9/v1#m', { concurrency: 0 }))) as UsageError;
  check(range, UsageError, 'E_USAGE', 'model option concurrency must be at least 1 (got 0)', { option: 'concurrency' });
  const gguf = join(dir, 'missing.gguf');
  check(await caught(() => createModel(`gguf:${gguf}`)), NotFoundError, 'E_NOT_FOUND', `model spec gguf:${gguf}: file not found: ${gguf}`, {
    kind: 'file',
    target: gguf,
  });
});

test('envs: item files and the MBPP file', async () => {
  const items = join(dir, 'items.jsonl');
  check(await caught(() => readItemsFile(items)), NotFoundError, 'E_NOT_FOUND', `${items}: cannot read the items file (no such file)`, {
    kind: 'file',
    target: items,
  });
  check(await caught(() => parseItems('\n', 'items.jsonl')), InputError, 'E_INPUT', 'items.jsonl: no probe items (the file is empty)', {
    file: 'items.jsonl',
  });
  const mbpp = join(dir, 'sanitized-mbpp.json');
  const e = (await caught(() => loadMbpp(mbpp))) as DataMissingError;
  check(e, DataMissingError, 'E_DATA_MISSING', e.message, { what: 'mbpp' });
  assert.ok(e.message.startsWith(`${mbpp}: cannot read the MBPP file (no such file). CodeRepair needs the sanitized MBPP split`));
});

test('the CLI prints the message alone and exits 2 for every one of them', async () => {
  for (const e of [
    new NotFoundError('x: no such file', { kind: 'file', target: 'x' }),
    new InputError('must not be empty', { file: 'f.jsonl', line: 3, field: 'id' }),
    new UsageError('bad', { option: 'bogus' }),
    new DataMissingError('no Punkt', { what: 'punkt' }),
  ]) {
    let err = '';
    assert.equal(reportError(e, { write: (s: string) => (err += s) }), 2);
    assert.equal(err, `revloop: ${e.message}\n`);
  }
  assert.equal(new InputError('must not be empty', { file: 'f.jsonl', line: 3, field: 'id' }).message, 'f.jsonl:3: id: must not be empty');
});
