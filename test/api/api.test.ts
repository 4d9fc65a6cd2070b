// The public API report (scripts/api-report.mjs, docs/library.md): the committed api/*.api.md must
// equal what the sources export, so every change to the surface is deliberate and shows in a diff;
// every public export has a JSDoc comment. The generator itself is checked on a planted project.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error -- a plain .mjs script without declarations
import { apiReports, committedReports, publicEntries, reportDifferences, reportFileName } from '../../scripts/api-report.mjs';

interface Reports {
  reports: Map<string, string>;
  exports: Map<string, string[]>;
  undocumented: string[];
}
const generate = apiReports as (root?: string) => Reports;
const committed = committedReports as (root?: string) => Map<string, string>;
const differences = reportDifferences as (a: Map<string, string>, b: Map<string, string>) => Promise<string[]>;

const tmp = mkdtempSync(join(tmpdir(), 'revloop-api-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('api/*.api.md is what the sources export (run `npm run api` after a deliberate change), and every export has JSDoc', async () => {
  const { reports, exports, undocumented } = generate();
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
  // Internals named by issue 8 stay out of the package's API.
  const all = [...exports.values()].flat();
  for (const internal of ['FIRST_NAMES', 'TEAMS', 'addModelOptions', 'escapeHtml', 'SimModel', 'parseSpec']) {
    assert.ok(!all.includes(internal), `${internal} is not public`);
  }
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
    'tsconfig.build.json': JSON.stringify({
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
    }),
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
