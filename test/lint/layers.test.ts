// `npm run lint` refuses layering violations (eslint-rules/layers.mjs): a copy of the tree with a
// planted upward import (type-only), a planted folder cycle (closed by a dynamic import), a planted
// import between sibling study modules, an import of src/test and a stale known-violation entry fails with messages that
// name both files of each import; the real tree passes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { tempDir } from '../tmp.ts';

const root = resolve(import.meta.dirname, '../..');
const eslint = join(root, 'node_modules/eslint/bin/eslint.js');
const tmp = tempDir('revloop-layers-');

interface LintMessage {
  ruleId: string | null;
  message: string;
  line: number;
}

function lint(cwd: string, ...paths: string[]): { status: number | null; results: Map<string, LintMessage[]>; stderr: string } {
  const r = spawnSync(process.execPath, [eslint, '--format', 'json', ...paths], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  const results = new Map<string, LintMessage[]>();
  for (const f of JSON.parse(r.stdout || '[]') as Array<{ filePath: string; messages: LintMessage[] }>) {
    results.set(f.filePath.slice(cwd.length + 1), f.messages);
  }
  return { status: r.status, results, stderr: r.stderr };
}

const layerMessages = (messages: LintMessage[] | undefined) => (messages ?? []).filter((m) => m.ruleId === 'revloop/layers');

test('planted violations fail the lint, each message naming both files', () => {
  for (const p of ['src', 'eslint-rules', 'eslint.config.js', 'package.json']) cpSync(join(root, p), join(tmp, p), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir');
  const plant = (rel: string, text: string) => writeFileSync(join(tmp, rel), text);
  // core → models, type-only: still an upward import (from core/cases, which src/models never reaches,
  // so the plant adds no folder cycle through the real imports of src/models).
  plant('src/core/cases/planted-upward.ts', "import type { Model } from '../../models/types.ts';\nexport type Planted = Model;\n");
  // core/stats → core/text statically, core/text → core/stats through a dynamic import: a folder cycle.
  plant('src/core/stats/planted-a.ts', "import { b } from '../text/planted-b.ts';\nexport const a = (): number => b;\n");
  plant('src/core/text/planted-b.ts', "export const b = 1;\nexport const load = () => import('../stats/planted-a.ts');\n");
  // One study importing another.
  plant('src/studies/probe/planted-sibling.ts', "export { turnGeneratorFor } from '../agent/generator.ts';\n");
  // Same level (viewer | report), a folder outside the table, an import of the package root.
  mkdirSync(join(tmp, 'src/viewer'), { recursive: true });
  mkdirSync(join(tmp, 'src/misc'));
  plant('src/viewer/planted-level.ts', "export { renderReportPage } from '../report/render.ts';\n");
  plant('src/misc/planted-nolayer.ts', 'export const x = 1;\n');
  plant('src/core/util/planted-root.ts', "export type { Model } from '../../index.ts';\n");
  // remedy may import only models and core, though store is below it.
  plant('src/remedy/planted-store.ts', "import type { TrajectoryRecord } from '../store/types.ts';\nexport type R = TrajectoryRecord;\n");
  // revloop/test's doubles: for users' tests, never imported inside src (not even by cli, its level).
  plant('src/engine/planted-test.ts', "export { openCrashingStore } from '../test/crash.ts';\n");
  mkdirSync(join(tmp, 'src/cli'), { recursive: true });
  plant('src/cli/planted-test.ts', "export type { FaultServer } from '../test/index.ts';\n");
  // A known-violation entry that matches nothing.
  const config = readFileSync(join(tmp, 'eslint.config.js'), 'utf8');
  assert.match(config, /known: \[/);
  writeFileSync(
    join(tmp, 'eslint.config.js'),
    config.replace('known: [', "known: [\n'src/core/cases/planted-upward.ts -> src/engine/trajectory-run.ts',"),
  );

  const { status, results, stderr } = lint(tmp, 'src');
  assert.equal(status, 1, stderr);

  const upward = layerMessages(results.get('src/core/cases/planted-upward.ts'));
  assert.ok(
    upward.some(
      (m) =>
        m.line === 1 &&
        m.message.startsWith(
          'src/core/cases/planted-upward.ts (layer core) imports src/models/types.ts (layer models): layers import downward only',
        ),
    ),
    JSON.stringify(upward),
  );
  assert.ok(
    upward.some((m) => m.message.includes('"src/core/cases/planted-upward.ts -> src/engine/trajectory-run.ts" no longer occurs')),
    'stale entry',
  );

  const a = layerMessages(results.get('src/core/stats/planted-a.ts'));
  const b = layerMessages(results.get('src/core/text/planted-b.ts'));
  assert.deepEqual(
    a.map((m) => m.message),
    [
      'folder cycle: src/core/stats/planted-a.ts imports src/core/text/planted-b.ts, and src/core/text/planted-b.ts imports src/core/stats/planted-a.ts (src/core/stats → src/core/text → src/core/stats); no two folders may import each other.',
    ],
  );
  assert.deepEqual(
    b.map((m) => [m.line, m.message]),
    [
      [
        2,
        'folder cycle: src/core/text/planted-b.ts imports src/core/stats/planted-a.ts, and src/core/stats/planted-a.ts imports src/core/text/planted-b.ts (src/core/text → src/core/stats → src/core/text); no two folders may import each other.',
      ],
    ],
  );

  const sibling = layerMessages(results.get('src/studies/probe/planted-sibling.ts'));
  assert.deepEqual(
    sibling.map((m) => m.message),
    [
      'src/studies/probe/planted-sibling.ts imports src/studies/agent/generator.ts: studies/probe and studies/agent are separate modules; they may share only studies/kit.',
    ],
  );

  const one = (file: string) => layerMessages(results.get(file)).map((m) => m.message);
  assert.deepEqual(one('src/viewer/planted-level.ts'), [
    'src/viewer/planted-level.ts (layer viewer) imports src/report/render.ts (layer report): these layers share a level and stay apart (cli | test > app > viewer | report > html > studies > revise > engine > envs > remedy > store > models > core).',
  ]);
  assert.match(one('src/misc/planted-nolayer.ts')[0], /^src\/misc\/planted-nolayer.ts is in src\/misc, which is not a layer/);
  assert.deepEqual(one('src/core/util/planted-root.ts'), [
    'src/core/util/planted-root.ts imports src/index.ts: nothing inside src imports the package root.',
  ]);

  assert.deepEqual(one('src/remedy/planted-store.ts'), [
    'src/remedy/planted-store.ts (layer remedy) imports src/store/types.ts (layer store): remedy may import only models, core.',
  ]);

  assert.deepEqual(one('src/engine/planted-test.ts'), [
    'src/engine/planted-test.ts imports src/test/crash.ts: nothing else inside src imports test (test doubles and hooks, for tests only).',
  ]);
  assert.deepEqual(one('src/cli/planted-test.ts'), [
    'src/cli/planted-test.ts imports src/test/index.ts: nothing else inside src imports test (test doubles and hooks, for tests only).',
  ]);

  // Nothing else in the copy is reported: the planted files are the only violations.
  const others = [...results].filter(([f, ms]) => !f.includes('planted') && layerMessages(ms).length);
  assert.deepEqual(others, []);
});

test('the revise package: a node: built-in, a dependency, a Node global and an upward import are refused', () => {
  const pkg = tempDir('revloop-layers-pkg-');
  for (const p of ['eslint-rules', 'eslint.config.js', 'package.json', 'packages/revise/src', 'packages/revise/package.json'])
    cpSync(join(root, p), join(pkg, p), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  const plant = (rel: string, text: string) => writeFileSync(join(pkg, 'packages/revise/src', rel), text);
  plant('policy/planted-node.ts', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n");
  plant('kernel/planted-dependency.ts', "import { z } from 'zod';\nexport const s = z.string();\n");
  plant('revise/planted-global.ts', 'export const env = () => process.env;\n');
  plant('policy/planted-upward.ts', "export { runLoop } from '../kernel/loop.ts';\n");
  const { status, results } = lint(pkg, 'packages/revise/src');
  assert.equal(status, 1);
  const rules = (f: string) => (results.get(`packages/revise/src/${f}`) ?? []).map((m) => m.ruleId);
  assert.ok(rules('policy/planted-node.ts').includes('no-restricted-imports'));
  assert.ok(rules('kernel/planted-dependency.ts').includes('no-restricted-imports'));
  assert.ok(rules('revise/planted-global.ts').includes('no-restricted-globals'));
  assert.ok(
    layerMessages(results.get('packages/revise/src/policy/planted-upward.ts')).some((m) =>
      m.message.startsWith(
        'packages/revise/src/policy/planted-upward.ts (layer policy) imports packages/revise/src/kernel/loop.ts (layer kernel): layers import downward only (revise > kernel > policy)',
      ),
    ),
  );
  // Elsewhere only the other end of the planted cycle is reported.
  const others = [...results].filter(([f, ms]) => !f.includes('planted') && ms.some((m) => !m.message.includes('planted')));
  assert.deepEqual(others, []);
});

test('the real tree passes (no layering violation, no folder cycle)', () => {
  const { status, results, stderr } = lint(root, 'src', 'packages/revise/src', 'eslint-rules', 'eslint.config.js');
  const problems = [...results].flatMap(([f, ms]) => ms.map((m) => `${f}:${m.line}: ${m.message}`));
  assert.deepEqual(problems, []);
  assert.equal(status, 0, stderr);
});
