// The registry loads the built-in families other than exact-length on demand (core/verify/registry.ts):
// a module that imports only the registry sees exact-length, every built-in's name, and a clear error
// for a built-in it has not loaded; `revloop run` of exact-length cases loads none of the other
// families' modules, and a run of other families loads theirs while it reads the case file. (This
// file imports the registry alone, so nothing has loaded the other built-ins before the first test.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { familyNames, getFamily, hasFamily, listFamilies, loadFamilies, registerFamily } from '../../src/core/verify/registry.ts';
import { BUILTIN_FAMILIES, type Family } from '../../src/core/verify/types.ts';
import { BIN, ROOT, userEnv } from '../cli/cli.ts';
import { nativeRows } from '../cases/fixtures.ts';
import { tempDir } from '../tmp.ts';

test('built-ins other than exact-length load on demand, and keep the built-ins order', async () => {
  assert.equal(getFamily('exact-length').name, 'exact-length');
  assert.throws(() => getFamily('c10'), /built-in family 'c10' is not loaded: await loadFamilies\(\['c10'\]\)/);
  assert.ok(hasFamily('c10') && hasFamily('ifeval'));
  assert.deepEqual(familyNames(), [...BUILTIN_FAMILIES], 'every built-in is named, loaded or not');
  assert.throws(() => listFamilies(), /built-in families not loaded \(c05, /);
  assert.throws(() => registerFamily({ ...getFamily('exact-length'), name: 'c10' } as Family), /'c10': it is a built-in family/);

  await loadFamilies(['ifeval']);
  assert.equal(getFamily('ifeval').name, 'ifeval');
  assert.throws(() => getFamily('c07'), /not loaded/);
  await loadFamilies(['c10', 'no-such-family']); // names that are not built-ins are left to the caller
  assert.equal(getFamily('c05').name, 'c05', 'one module holds the five structured families');
  assert.throws(() => getFamily('no-such-family'), /unknown family 'no-such-family'; known families: exact-length, c05/);
  await Promise.all([loadFamilies(), loadFamilies()]);
  assert.deepEqual(
    listFamilies().map((f) => f.name),
    [...BUILTIN_FAMILIES],
  );
});

/** `revloop run … --workers 0` (plan only) with a hook that lists every module the process loads. */
function planOnly(rows: Record<string, unknown>[]): { code: number | null; err: string; modules: string[] } {
  const dir = tempDir();
  const cases = join(dir, 'cases.jsonl');
  writeFileSync(cases, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const log = join(dir, 'modules.txt');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'resolve.mjs')).href)});\n`,
  );
  writeFileSync(
    join(dir, 'resolve.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`,
  );
  writeFileSync(log, '');
  const args = ['run', '--cases', cases, '--model', 'sim:steady', '--store', join(dir, 'runs.db'), '--workers', '0'];
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: userEnv(),
    timeout: 120_000,
  });
  return { code: r.status, err: r.stderr, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

// The other families' modules and NLTK's tokenisers (COLLIE's small list of structure codes is no family).
const OTHER_FAMILIES = /\/core\/verify\/(collie|structured|ifeval)\/(?!types\.)|\/core\/text\/(punkt|treebank|index)\./;

test('a run of exact-length cases loads no other family; a run of other families loads them as it reads the cases', () => {
  const [exact, c07, c10] = nativeRows();
  const lean = planOnly([exact]);
  assert.equal(lean.code, 0, lean.err);
  assert.ok(
    lean.modules.some((m) => m.endsWith('/core/verify/registry.js') || m.endsWith('/core/verify/registry.ts')),
    'the hook saw the registry',
  );
  assert.deepEqual(
    lean.modules.filter((m) => OTHER_FAMILIES.test(m)),
    [],
  );
  const mixed = planOnly([exact, c07, c10]);
  assert.equal(mixed.code, 0, mixed.err);
  assert.ok(mixed.modules.some((m) => /\/core\/verify\/structured\/families\./.test(m)));
});
