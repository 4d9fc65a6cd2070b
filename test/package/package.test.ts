// revloop as an installed library: build dist/ (only when it is missing or stale), `npm pack` the
// project, unpack the tarball into a temporary consumer project's node_modules/revloop (as npm
// install does) and give it its production dependencies only — links to this checkout's
// node_modules, since the tests run offline. Then a plain .mjs consumer imports the subpaths and
// its results are compared with the same calls on src/, a .ts consumer is type-checked against the
// emitted .d.ts, and the installed CLI (which runs dist/, there is no src/ in the package) is run.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFamily } from '../../src/core/verify/index.ts';
import { createModel } from '../../src/models/index.ts';
import { NODE_LLAMA_CPP_VERSION } from '../../src/models/gguf/runtime.ts';
import { browserScript } from '../../src/html/bundle.ts';
import { tempDir } from '../tmp.ts';
// @ts-expect-error -- a plain .mjs script without declarations
import { documentedImports as readDocumentedImports } from '../../scripts/doc-imports.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; exports: Record<string, unknown> };
const dir = tempDir('revloop-package-');
const consumer = join(dir, 'consumer');
const installed = join(consumer, 'node_modules', 'revloop');
let packedFiles: string[] = [];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, input = ''): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, input, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Top-level packages of the production dependency tree (package-lock.json without dev-only ones). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([k, v]) => k.startsWith('node_modules/') && !k.slice('node_modules/'.length).includes('/node_modules/') && !v.dev)
    .map(([k]) => k.slice('node_modules/'.length))
    .filter((name) => existsSync(join(ROOT, 'node_modules', name))); // optional ones for other platforms are absent
}

function link(name: string): void {
  const to = join(consumer, 'node_modules', name);
  if (existsSync(to)) return;
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), to, 'dir');
}

before(() => {
  // dist/ is built by `npm ci` (prepare); rebuilt here only when the sources changed since.
  ok(run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], ROOT), 'build');
  const packed = JSON.parse(
    ok(
      run('npm', ['pack', '--ignore-scripts', '--offline', '--json', '--pack-destination', dir], ROOT, {
        npm_config_update_notifier: 'false',
      }),
      'npm pack',
    ),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packedFiles = packed[0].files.map((f) => f.path);
  mkdirSync(installed, { recursive: true });
  ok(run('tar', ['-xzf', join(dir, packed[0].filename), '-C', installed, '--strip-components=1'], dir), 'unpack');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const name of productionPackages()) link(name);
  // The consumer's own dev tools for the .ts check.
  for (const name of ['typescript', '@types/node']) link(name);
});

test('the tarball holds dist/, bin/, docs and README, and no sources, tests or build stamp', () => {
  for (const f of [
    'package.json',
    'README.md',
    'bin/revloop.mjs',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/cli/main.js',
    'dist/html/assets/revloop.css',
    'dist/report/client/report.js',
    'dist/viewer/app/index.html',
    'dist/viewer/app/main.js',
    'dist/viewer/app/viewer.css',
    'docs/remedy.md',
  ]) {
    assert.ok(packedFiles.includes(f), `${f} is packed`);
  }
  assert.deepEqual(
    packedFiles.filter((f) => /^(src|test|scripts|bench|\.ci)\//.test(f) || f.endsWith('.build-info.json') || f.startsWith('tsconfig')),
    [],
  );
  // The browser folders hold their bundles only (the TypeScript is compiled into them, not shipped).
  assert.deepEqual(packedFiles.filter((f) => /^dist\/(viewer\/app|report\/client)\//.test(f)).sort(), [
    'dist/report/client/report.js',
    'dist/viewer/app/index.html',
    'dist/viewer/app/main.js',
    'dist/viewer/app/viewer.css',
  ]);
  // Every export target is in the package.
  for (const [sub, target] of Object.entries(PKG.exports)) {
    const files = typeof target === 'string' ? [target] : Object.values(target as Record<string, string>);
    for (const f of files) assert.ok(existsSync(join(installed, f)), `${sub} → ${f}`);
  }
  assert.ok(!existsSync(join(installed, 'src')), 'no src/ in the package, so its bin runs dist/');
});

test('node-llama-cpp is an optional peer dependency: not installed with revloop, and its absence is a clear error for gguf: only', () => {
  const packed = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  assert.equal(packed.dependencies['node-llama-cpp'], undefined, 'not a dependency');
  assert.equal(packed.peerDependencies['node-llama-cpp'], NODE_LLAMA_CPP_VERSION);
  assert.deepEqual(packed.peerDependenciesMeta['node-llama-cpp'], { optional: true });
  assert.equal(packed.devDependencies['node-llama-cpp'], NODE_LLAMA_CPP_VERSION, 'the checkout and CI keep it (its tests run)');
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  assert.equal(lock.packages['node_modules/node-llama-cpp'].dev, true, 'a production install of the lock leaves it out');
  assert.ok(!existsSync(join(consumer, 'node_modules', 'node-llama-cpp')), 'the consumer has only the production dependencies');

  writeFileSync(
    join(consumer, 'no-llama.mjs'),
    `import { createModel } from 'revloop/models';
const out = { sim: (await createModel('sim:steady')).label };
try { await createModel('gguf:./model.gguf'); out.gguf = 'created'; } catch (e) { out.gguf = e.message; out.code = e.code; }
process.stdout.write(JSON.stringify(out));
`,
  );
  const out = JSON.parse(ok(run(process.execPath, ['no-llama.mjs'], consumer), 'no-llama.mjs'));
  assert.equal(out.sim, 'sim:steady [simulated]', 'everything else works without it');
  assert.match(
    out.gguf,
    /node-llama-cpp, an optional peer dependency of revloop that is not installed here\. Install it next to revloop: npm install node-llama-cpp@3\.21\.1$/,
  );
  const cli = run(
    process.execPath,
    [join(installed, 'bin', 'revloop.mjs'), 'model', 'try', 'gguf:./model.gguf', '--prompt', 'hi'],
    consumer,
  );
  assert.equal(cli.status, 2, cli.stderr);
  assert.match(cli.stderr, /^revloop: .*npm install node-llama-cpp@3\.21\.1\n$/);
});

/** A fresh `npm init -y` project (CommonJS) sharing the consumer's node_modules. */
function freshProject(name: string): string {
  const p = join(dir, name);
  mkdirSync(p);
  ok(run('npm', ['init', '-y'], p, { npm_config_update_notifier: 'false' }), 'npm init -y');
  symlinkSync(join(consumer, 'node_modules'), join(p, 'node_modules'), 'dir');
  return p;
}

const TSC = () => join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
const USE = `const state = getFamily('exact-length').verify('a b c', { id: 'x', family: 'exact-length', source: 'm', target: 3, anchors: [] });
console.log(JSON.stringify({ joint: state.joint_success }));
`;

test("types included in a fresh npm init -y project: the README's two-line ESM setup compiles and runs", () => {
  const p = freshProject('fresh-esm');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /In a fresh `npm init -y` project[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README shows the setup');
  const lines = block[1]
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  assert.equal(lines.length, 2, lines.join(' | '));
  for (const line of lines) {
    const [cmd, ...args] = line.split(/\s+/);
    // `npx tsc` is the consumer's TypeScript (offline here).
    if (cmd === 'npx' && args[0] === 'tsc') ok(run(process.execPath, [TSC(), ...args.slice(1)], p), line);
    else ok(run(cmd, args, p, { npm_config_update_notifier: 'false' }), line);
  }
  writeFileSync(join(p, 'index.ts'), `import { getFamily } from 'revloop/core/verify';\n${USE}`);
  const tsc = run(process.execPath, [TSC(), '-p', '.', '--pretty', 'false'], p);
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  assert.equal(ok(run(process.execPath, ['index.js'], p), 'node index.js').trim(), '{"joint":true}');
});

test('a CommonJS project works too: require() on Node 20.19+, and TypeScript (module nodenext) types it', () => {
  const p = freshProject('fresh-cjs');
  writeFileSync(join(p, 'index.js'), `const { getFamily } = require('revloop/core/verify');\n${USE}`);
  assert.equal(ok(run(process.execPath, ['index.js'], p), 'require').trim(), '{"joint":true}');
  writeFileSync(
    join(p, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'nodenext', strict: true, skipLibCheck: false, types: ['node'], outDir: 'out' },
      include: ['main.ts'],
    }),
  );
  writeFileSync(join(p, 'main.ts'), `import { getFamily } from 'revloop/core/verify';\n${USE}`);
  const tsc = run(process.execPath, [TSC(), '-p', '.', '--pretty', 'false'], p);
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  assert.equal(ok(run(process.execPath, ['out/main.js'], p), 'node out/main.js').trim(), '{"joint":true}');
});

test('files the compiled code reads next to itself (new URL(…, import.meta.url)) are in the package', () => {
  const refs: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.js')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/new URL\((['"])(\.{1,2}\/[^'"]+)\1,\s*import\.meta\.url\)/g)) {
          refs.push(relative(installed, fileURLToPath(new URL(m[2], `file://${p}`))));
        }
      }
    }
  };
  walk(join(installed, 'dist'));
  assert.ok(
    refs.includes(join('dist', 'html', 'assets', 'revloop.css')) && refs.includes(join('dist', 'viewer', 'app')),
    `the stylesheet and the viewer's app are among the references: ${refs.join(', ')}`,
  );
  for (const r of refs) assert.ok(existsSync(join(installed, r)), `${r} exists in the installed package`);
});

const CASE = { id: 'x', family: 'exact-length', source: 'mine', instruction: 'Describe an IPO.', target: 12, anchors: ['IPO'] };
const TEXT = 'An IPO is when a private company first sells shares publicly.';

test('a plain .mjs consumer imports revloop/core/verify, revloop/remedy, revloop/models, revloop/test and the root from dist/', async () => {
  writeFileSync(
    join(consumer, 'consumer.mjs'),
    `import { getFamily, listFamilies } from 'revloop/core/verify';
import * as root from 'revloop';
import { FailureLedger } from 'revloop/remedy';
import { createModel } from 'revloop/models';
import { countWords } from 'revloop/core/text';
import { startFaultServer, ensureTinyModel } from 'revloop/test';
import { abstractFailureNote, RevloopError, UserError } from '@revloop/revise';
const c = ${JSON.stringify(CASE)};
const family = getFamily('exact-length');
const out = { resolved: import.meta.resolve('revloop/core/verify'), families: listFamilies().map((f) => f.name) };
out.state = family.verify(${JSON.stringify(TEXT)}, c);
out.feedback = family.feedback(out.state, c);
out.words = countWords(${JSON.stringify(TEXT)});
out.root = Object.keys(root).sort();
out.oneHierarchy = root.InputError.prototype instanceof UserError && root.StoreError.prototype instanceof RevloopError;
out.note = abstractFailureNote({ tool: 'read_file', errorType: 'file_not_found' }, 1);
const ledger = new FailureLedger({ feedback: 'abstract', ban: true });
ledger.record({ action: "read_file(path='notes/todo.txt')", ok: false, observation: "LookupError: no file matching 'notes/todo.txt'.", errorType: 'file_not_found' });
out.context = ledger.messages('Reply with one call.', 'Read the to-do list.');
out.banList = ledger.banList();
const model = await createModel('sim:steady');
out.model = { label: model.label, simulated: model.capabilities.simulated };
const r = await model.generate([{ role: 'user', content: family.initialPrompt(c) }], { maxTokens: 64 });
out.text = r.text;
const turn = await ledger.generate(model, 'Reply with one call.', 'Read the to-do list.', { maxTokens: 24 });
out.turn = { text: turn.text, banEnforced: turn.banEnforced };
try { await import('revloop/dist/core/verify/registry.js'); out.deepImport = 'allowed'; } catch (e) { out.deepImport = e.code; }
const server = await startFaultServer([{ status: 500, json: { error: { message: 'boom' } } }]);
const http = await createModel(server.url.replace(/^http/, 'openai-compatible:http') + '#m', { retry: { baseDelayMs: 1, maxDelayMs: 1 } });
out.fault = { text: (await http.generate([{ role: 'user', content: 'hi' }], { maxTokens: 8 })).text, requests: server.requests.length };
await server.close();
out.tiny = ensureTinyModel({}, ${JSON.stringify(join(dir, 'tiny'))}).endsWith('.gguf');
process.stdout.write(JSON.stringify(out));
`,
  );
  const out = JSON.parse(ok(run(process.execPath, ['consumer.mjs'], consumer), 'consumer.mjs'));
  assert.equal(out.resolved, `file://${join(installed, 'dist', 'core', 'verify', 'index.js')}`);
  assert.deepEqual(out.families.slice(0, 6), ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12']);
  assert.equal(out.deepImport, 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'only the exported subpaths are importable');
  // The root exports the lab's errors only, in the app library's hierarchy (one copy of @revloop/revise).
  assert.ok(out.root.includes('InputError') && !out.root.includes('getFamily') && !out.root.includes('RevloopError'), out.root.join(' '));
  assert.equal(out.oneHierarchy, true, "revloop's errors extend @revloop/revise's classes");
  // revloop/test from dist/: the fault server's 500 is retried, then its fallback answers; the tiny GGUF is written.
  assert.deepEqual(out.fault, { text: 'fallback text', requests: 2 });
  assert.equal(out.tiny, true);
  // revloop/core/verify: the state by hand (11 words, target 12, the anchor present) and as src/ computes it.
  assert.deepEqual(
    { word_count: out.state.word_count, error: out.state.error, missing: out.state.missing, joint_success: out.state.joint_success },
    { word_count: 11, error: -1, missing: [], joint_success: false },
  );
  assert.equal(out.words, 11);
  const family = getFamily('exact-length');
  const state = family.verify(TEXT, CASE);
  assert.deepEqual(out.state, state);
  assert.equal(out.feedback, family.feedback(state, CASE));
  // revloop/remedy: the abstracted note replaces the failed call in the context.
  assert.equal(out.note, '[attempt 1 failed: read_file \u2014 no such file; that call is not repeatable]');
  const context = JSON.stringify(out.context);
  assert.ok(context.includes(out.note) && !context.includes('notes/todo.txt'), context);
  assert.deepEqual(out.banList, ["read_file(path='notes/todo.txt')"]);
  // revloop/models: a simulated model, labelled as one, generating what src/ generates.
  assert.deepEqual(out.model, { label: 'sim:steady [simulated]', simulated: true });
  const model = await createModel('sim:steady');
  const expected = await model.generate([{ role: 'user', content: family.initialPrompt(CASE) }], { maxTokens: 64 });
  assert.ok(typeof out.text === 'string' && out.text.length > 0);
  assert.equal(out.text, expected.text);
  assert.equal(out.turn.banEnforced, true);
});

/** Every `import … from 'revloop…'` statement in the README's and docs' ```ts blocks, one module per block. */
function documentedImports(): Array<{ where: string; code: string }> {
  return (readDocumentedImports(ROOT) as Array<{ where: string; statements: Array<{ text: string }> }>).map((b) => ({
    where: b.where,
    code: b.statements.map((st) => st.text).join('\n'),
  }));
}

test('a .ts consumer type-checks against the emitted .d.ts (skipLibCheck off), and a type error is caught', () => {
  // The documented import lines must name real exports of real subpaths.
  const documented = documentedImports();
  assert.ok(documented.length >= 10, `the docs' import lines were found (${documented.length} blocks)`);
  const docFiles = documented.map((d, i) => {
    writeFileSync(join(consumer, `doc-${i}.ts`), `// ${d.where}\n${d.code}\nexport {};\n`);
    return `doc-${i}.ts`;
  });
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
      include: ['good.ts', 'bad.ts', ...docFiles],
    }),
  );
  writeFileSync(
    join(consumer, 'good.ts'),
    `import { getFamily, registerFamily, type Family, type VerifierState } from 'revloop/core/verify';
import { createModel, type Model } from 'revloop/models';
import type { GenerateResult } from '@revloop/revise';
import { AGENT_HARNESSES, FailureLedger, type FailureRecord } from 'revloop/remedy';
import { openStore, type RunStore } from 'revloop/store';
import { ProbeStore } from 'revloop/studies/probe';
import { agentTasks } from 'revloop/studies/agent';
import { analyzeTrajectories } from 'revloop/studies/revision';
import { executeRun } from 'revloop/engine';
import { InputError } from 'revloop';
import { openCrashingStore, SimulatedCrash, type FaultServer } from 'revloop/test';
export const state: VerifierState = getFamily('exact-length').verify('a b c', { id: 'x', family: 'exact-length', source: 'm', target: 3, anchors: [] });
export const model: Promise<Model> = createModel('sim:steady');
export async function text(m: Model): Promise<string | null> { const r: GenerateResult = await m.generate([{ role: 'user', content: 'hi' }], { maxTokens: 8 }); return r.text; }
export const records: FailureRecord[] = new FailureLedger().failures();
export const store: (p: string) => Promise<RunStore> = (p) => openStore(p, { readonly: true });
export const probeOpen: typeof ProbeStore.open = ProbeStore.open;
export const names: string[] = Object.keys(AGENT_HARNESSES);
export const tasks = agentTasks(1);
export const fns = [analyzeTrajectories, executeRun, openCrashingStore] as const;
export const errors = [InputError, SimulatedCrash] as const;
export type Server = FaultServer;
export const mine: Family = { ...getFamily('exact-length'), name: 'mine' };
registerFamily(mine);
`,
  );
  writeFileSync(
    join(consumer, 'bad.ts'),
    `import { getFamily } from 'revloop/core/verify';\nexport const wrong: number = getFamily('exact-length').name;\n`,
  );
  // A gguf: user installs the optional peer; revloop/models/gguf's declarations use its types.
  link('node-llama-cpp');
  const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = run(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], consumer);
  // Third-party declaration files have problems of their own under skipLibCheck: false (node-llama-cpp's,
  // reached through revloop/models/gguf); those are not ours. Errors in our files or in revloop's .d.ts are.
  const errors = r.stdout
    .split('\n')
    .filter((l) => /error TS\d+/.test(l) && !(/node_modules\//.test(l.split('(')[0]) && !/node_modules\/revloop\//.test(l.split('(')[0])));
  assert.equal(errors.length, 1, `exactly the one planted error:\n${r.stdout}${r.stderr}`);
  assert.match(errors[0], /^bad\.ts\(2,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
});

test('the installed CLI runs from dist/: --version, verify with a plugin that imports revloop/core/verify, demo with its report, runs', () => {
  const bin = join(installed, 'bin', 'revloop.mjs');
  assert.equal(ok(run(process.execPath, [bin, '--version'], consumer), '--version').trim(), PKG.version);
  // The plugin only calls registerFamily (exports nothing): found only if the CLI and the plugin share dist's registry.
  writeFileSync(
    join(consumer, 'shout.mjs'),
    `import { registerFamily, violationEnergy } from 'revloop/core/verify';
registerFamily({
  name: 'shout', version: '1', description: 'all capitals',
  verify: (text) => { const lower = [...text].filter((ch) => ch !== ch.toUpperCase()).length; return { lower, joint_success: lower === 0, violation_vector: [lower] }; },
  energy: (s) => violationEnergy(s.violation_vector),
  feedback: (s) => 'VERIFIER: ' + s.lower + ' lower-case letters.',
  initialPrompt: (c) => c.task, maxNewTokens: () => 16, validateCase: () => [],
});
`,
  );
  const v = run(
    process.execPath,
    [bin, 'verify', '--plugin', './shout.mjs', '--family', 'shout', '--json', '--feedback'],
    consumer,
    {},
    'HeLLO WORLd',
  );
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /"lower": 2/);
  assert.match(v.stdout, /VERIFIER: 2 lower-case letters\./);

  const out = join(dir, 'demo');
  const demo = run(process.execPath, [bin, 'demo', '--out', out], consumer);
  assert.equal(demo.status, 0, demo.stderr);
  const html = readFileSync(join(out, 'demo-report.html'), 'utf8');
  const css = readFileSync(join(installed, 'dist', 'html', 'assets', 'revloop.css'), 'utf8');
  assert.ok(html.includes(css), 'the report inlines the packaged stylesheet');
  const script = readFileSync(join(installed, 'dist', 'report', 'client', 'report.js'), 'utf8');
  assert.ok(html.includes(`<script>${script}</script>`), 'the report inlines the packaged script');
  assert.equal(script, browserScript(new URL('../../src/report/client/report.js', import.meta.url)), 'the bundle the sources build');
  // --wide: the table's width must not depend on whether Punkt data is found (the -exact ids are longer).
  const runs = ok(run(process.execPath, [bin, 'runs', '--wide', '--store', join(out, 'demo.db')], consumer), 'runs');
  assert.match(runs, /^revision runs \(3\):$/m);
  assert.match(runs, /│ demo-steady\S* +│ complete +│ sim:steady \[SIMULATED\]/); // -exact: without Punkt data the demo runs the exact-length part
});

test('the installed `revloop view` serves the prebuilt app from dist/ and the API over the demo store', async () => {
  const bin = join(installed, 'bin', 'revloop.mjs');
  const store = join(dir, 'demo', 'demo.db');
  assert.ok(existsSync(store), 'the demo store of the previous test');
  const child = spawn(process.execPath, [bin, 'view', '--store', store, '--port', '0'], {
    cwd: consumer,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.stderr!.on('data', (d) => (err += d));
      child.on('exit', (code) => reject(new Error(`view exited (${code}): ${err}`)));
    });
    for (const [path, type] of [
      ['', /text\/html/],
      ['app/main.js', /javascript/],
      ['app/viewer.css', /css/],
      ['app/revloop.css', /css/],
    ] as const) {
      const r = await fetch(url + path);
      assert.equal(r.status, 200, path);
      assert.match(r.headers.get('content-type') ?? '', type, path);
    }
    const served = await (await fetch(url + 'app/main.js')).text();
    assert.equal(served, readFileSync(join(installed, 'dist', 'viewer', 'app', 'main.js'), 'utf8'));
    assert.equal(served, browserScript(new URL('../../src/viewer/app/main.js', import.meta.url)), 'the bundle the sources build');
    const runs = (await (await fetch(url + 'api/runs')).json()) as { runs: Array<{ run_id: string; simulated: boolean }> };
    assert.ok(runs.runs.length >= 1 && runs.runs.every((r) => r.simulated), 'the demo runs, all simulated');
    // A run page's analysis runs in the worker thread, loaded from dist/.
    const run = (await (await fetch(url + `api/runs/${runs.runs[0].run_id}?html=1`)).json()) as { sections: unknown[]; html: string };
    assert.ok(run.sections.length > 0 && run.html.includes('<section'), 'sections from the analysis worker');
  } finally {
    child.removeAllListeners('exit');
    await new Promise((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGINT');
    });
  }
});
