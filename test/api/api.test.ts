// The public API report (scripts/api-report.mjs, docs/library.md): the committed api/*.api.md must
// equal what the sources export, so every change to the surface is deliberate and shows in a diff;
// every public export has a JSDoc comment. The generator itself is checked on a planted project.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error -- a plain .mjs script without declarations
import { apiReports, committedReports, publicEntries, reportDifferences, reportFileName } from '../../scripts/api-report.mjs';

interface Reports {
  reports: Map<string, string>;
  exports: Map<string, string[]>;
  undocumented: string[];
  duplicates: string[];
}
const generate = apiReports as (root?: string, allow?: Record<string, string[]>) => Reports;
const entries = publicEntries as (root?: string) => Array<{ subpath: string; source: string }>;
const committed = committedReports as (root?: string) => Map<string, string>;
const differences = reportDifferences as (a: Map<string, string>, b: Map<string, string>) => Promise<string[]>;

const tmp = mkdtempSync(join(tmpdir(), 'revloop-api-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The build configuration of every planted project: the project's own settings, sources in src/. */
const PLANTED_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    declaration: true,
    rewriteRelativeImportExtensions: true,
    rootDir: 'src',
    outDir: 'dist',
    types: [],
  },
  include: ['src'],
});

test('api/*.api.md is what the sources export (run `npm run api` after a deliberate change), and every export has JSDoc', async () => {
  const { reports, exports, undocumented, duplicates } = generate();
  assert.deepEqual(
    [...reports.keys()].sort(),
    (publicEntries() as Array<{ subpath: string }>).map((e) => reportFileName(e.subpath)).sort(),
    'one report per package.json subpath',
  );
  const diffs = await differences(reports, committed());
  assert.equal(
    diffs.length,
    0,
    `the public API differs from api/ — if that is meant, run \`npm run api\` and commit api/:\n${diffs.join('\n')}`,
  );
  assert.deepEqual(undocumented, [], `public exports without a JSDoc comment:\n${undocumented.join('\n')}`);
  // Each name has one home (docs/library.md): no name twice, no re-export of @revloop/revise's.
  assert.deepEqual(duplicates, [], `names exported more than once:\n${duplicates.join('\n')}`);
  // Internals named by issue 8, and by issue 38 (prompt constants, test hooks outside revloop/test), stay out of the package's API.
  const all = [...exports.values()].flat();
  for (const internal of [
    'FIRST_NAMES',
    'TEAMS',
    'addModelOptions',
    'escapeHtml',
    'SimModel',
    'parseSpec',
    'NEGATIVE_INSTRUCTION',
    'ABSTRACT_MIN_NOTE',
  ]) {
    assert.ok(!all.includes(internal), `${internal} is not public`);
  }
  const lab = (subpath: string) => exports.get(subpath) ?? [];
  for (const hook of ['SimulatedCrash', 'ensureTinyModel', 'writeTinyLlamaGguf', 'openCrashingStore']) {
    assert.deepEqual(
      [...exports].filter(([, names]) => names.includes(hook)).map(([s]) => s),
      ['revloop/test'],
      `${hook} is revloop/test's only`,
    );
  }
  assert.ok(!reports.get('revloop-store.api.md')!.includes('crashAfterAppends'), 'StoreOptions has no fault injection');
  // The root exports the lab's errors (src/core/errors.ts), not the app's base classes nor module entry points;
  // every subpath is its folder (src/<p>/index.ts).
  assert.ok(lab('revloop').includes('InputError'), lab('revloop').join(' '));
  for (const other of ['RevloopError', 'UserError', 'getFamily', 'createModel', 'executeRun', 'revise'])
    assert.ok(!lab('revloop').includes(other), other);
  for (const e of entries()) {
    if (e.subpath.startsWith('revloop'))
      assert.equal(e.source, `src/${e.subpath.replace(/^revloop\/?/, '').replace(/(.)$/, '$1/')}index.ts`);
  }
});

test('a subpath that does not match its folder is refused, naming the folder', () => {
  const root = join(tmp, 'mismatch');
  plant(root, {
    'package.json': JSON.stringify({
      name: 'lab',
      exports: {
        './analysis': { types: './dist/studies/revision/analysis/index.d.ts', default: './dist/studies/revision/analysis/index.js' },
      },
    }),
  });
  assert.throws(
    () => entries(root),
    /exports\["\.\/analysis"\] points at src\/studies\/revision\/analysis\/index\.ts, but a subpath must match its folder: name it "\.\/studies\/revision\/analysis"/,
  );
});

test('a name exported twice fails the report, naming both subpaths; only declared extensions of the app package share its names', () => {
  const root = join(tmp, 'dupes');
  const pkg = (name: string, exports: Record<string, unknown>, extra = {}) => JSON.stringify({ name, type: 'module', exports, ...extra });
  const entry = (p: string) => ({ types: `./dist/${p}index.d.ts`, default: `./dist/${p}index.js` });
  plant(root, {
    'package.json': pkg('lab', { '.': entry(''), './one': entry('one/'), './two': entry('two/') }, { workspaces: ['packages/app'] }),
    'packages/app/package.json': pkg('@lab/app', { '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } } }),
    'packages/app/src/index.ts': '',
    'packages/app/dist/index.js': 'export function run() {}\nexport function help() {}\n',
    'packages/app/dist/index.d.ts':
      '/** Runs. */\nexport declare function run(): void;\n/** Helps. */\nexport declare function help(): void;\n',
    'tsconfig.build.json': PLANTED_TSCONFIG,
    'src/lib.ts':
      "/** A. */\nexport const shared = 1;\n/** B. */\nexport const solo = 2;\n/** The lab's help. */\nexport function help(): void {}\n",
    'src/index.ts': "export { solo } from './lib.ts';\n",
    'src/one/index.ts': "export { shared } from '../lib.ts';\nexport { run } from '@lab/app';\n",
    'src/two/index.ts': "export { shared, solo as other, help } from '../lib.ts';\n",
  });
  mkdirSync(join(root, 'node_modules/@lab'), { recursive: true });
  symlinkSync('../../packages/app', join(root, 'node_modules/@lab/app'), 'dir');
  assert.deepEqual(generate(root, {}).duplicates, [
    'shared is exported by lab/one and lab/two: each name has one home, the subpath of the folder that defines it',
    'lab/one re-exports run, a binding of @lab/app: users import it from @lab/app',
    "lab/two exports help, a name @lab/app exports too: rename or unexport it (a function that extends @lab/app's is declared in SHARED_WITH_APP, scripts/api-report.mjs)",
    'one binding is exported by lab (as solo) and lab/two (as other): give it one home',
  ]);
  // A declared extension passes; a declaration that no longer matches is reported, so the list stays exact.
  const declared = generate(root, { 'lab/two': ['help', 'gone'] }).duplicates;
  assert.ok(!declared.some((d) => d.includes('exports help')), declared.join('\n'));
  assert.ok(declared.includes('SHARED_WITH_APP lists lab/two: gone, which no longer shares a name with the app package: remove it'));
});

function plant(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

test('the generator lists names, kinds and declarations per subpath, finds a missing JSDoc, and a new export shows as a diff', async () => {
  const root = join(tmp, 'pkg');
  plant(root, {
    'package.json': JSON.stringify({
      name: 'demo',
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', import: './dist/index.js' },
        './extra': { types: './dist/extra/index.d.ts', import: './dist/extra/index.js' },
        './package.json': './package.json',
      },
    }),
    'tsconfig.build.json': PLANTED_TSCONFIG,
    'src/lib.ts': [
      '/** Adds two numbers. */',
      'export function add(a: number, b: number): number {',
      '  return a + b;',
      '}',
      'interface Hidden { x: number }',
      '/** A shape. */',
      'export interface Shape { hidden: Hidden; area(): number }',
      'export const UNDOCUMENTED = 3;',
      '/** Internal. */',
      'export const internal = 1;',
      '',
    ].join('\n'),
    'src/index.ts': "export { add, type Shape, UNDOCUMENTED } from './lib.ts';\n",
    'src/extra/index.ts': "export { add as plus } from '../lib.ts';\n",
  });
  const first = generate(root);
  assert.deepEqual([...first.reports.keys()], ['demo.api.md', 'demo-extra.api.md']);
  const main = first.reports.get('demo.api.md')!;
  assert.match(main, /^# demo$/m);
  assert.match(main, /3 exports, from `src\/index\.ts`/);
  assert.match(main, /### add\n\nfunction\n\n```ts\nfunction add\(a: number, b: number\): number;\n```/);
  assert.match(main, /### Shape\n\ninterface\n/);
  assert.match(main, /### UNDOCUMENTED\n\nconst\n\n```ts\nconst UNDOCUMENTED = 3;\n```/);
  assert.ok(!main.includes('internal'), 'what the entry does not export is not in its report');
  assert.match(main, /## Referenced, not exported[\s\S]*- Hidden/);
  assert.match(first.reports.get('demo-extra.api.md')!, /### plus\n\nfunction \(declared as `add`\)/);
  assert.deepEqual(first.undocumented, ['demo: UNDOCUMENTED (src/lib.ts)']);

  // A new export is a one-line change in the entry; the report then differs, as a readable diff.
  writeFileSync(join(root, 'src/index.ts'), "export { add, type Shape, UNDOCUMENTED, internal } from './lib.ts';\n");
  const diffs = await differences(generate(root).reports, first.reports);
  assert.equal(diffs.length, 1);
  assert.match(diffs[0], /^-3 exports, from/m);
  assert.match(diffs[0], /^\+4 exports, from/m);
  assert.match(diffs[0], /^\+### internal$/m);
  assert.match(diffs[0], /^\+const internal = 1;$/m);
});
