// @revloop/revise as app developers install it (issue 35, point 2): built as ESM, CommonJS and types;
// nothing on its runtime path but its own code (no node: built-ins, no dependencies); bundled by
// esbuild for browsers and for any platform; at most 25 KB min+gzip without its peers; installed
// from its `npm pack` tarball into a fresh project (offline: it has no dependencies) where it runs
// with ai and zod (linked from this checkout), from ESM and from CommonJS, type-checks, and reports
// a missing optional peer before any model call. (Sizes, import time and install figures against
// ai + zod alone: bench/revise-package.ts, docs/revise.md §10.)
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../tmp.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = join(ROOT, 'packages', 'revise');
const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
const dir = tempDir('revloop-revise-package-');
const app = join(dir, 'app');
const PEERS = ['ai', 'zod', 'ajv', '@opentelemetry/api'];

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.error) throw r.error;
  return r;
}
function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
function link(name: string): void {
  const to = join(app, 'node_modules', name);
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), to, 'dir');
}

let packed: string[] = [];
before(async () => {
  // @ts-expect-error -- a plain .mjs script without declarations
  const { build, distState } = await import('../../packages/revise/scripts/build.mjs');
  if (distState(true) !== 'current') await build({ types: true });
  const out = JSON.parse(ok(run('npm', ['pack', '--ignore-scripts', '--offline', '--json', '--pack-destination', dir], PKG), 'npm pack'));
  packed = out[0].files.map((f: { path: string }) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // It has no dependencies, so npm installs it without the network.
  ok(run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, out[0].filename)], app), 'npm install of the tarball');
  for (const name of ['ai', 'zod', 'typescript']) link(name);
});

test('the tarball holds ESM, CommonJS and types, and declares no dependencies (its peers optional)', () => {
  for (const f of ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'README.md'])
    assert.ok(packed.includes(f), `${f} is packed`);
  assert.ok(!packed.some((f) => f.startsWith('src/') || f.includes('.build-info')));
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules/@revloop/revise/package.json'), 'utf8'));
  assert.equal(pkg.dependencies, undefined);
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), [...PEERS].sort());
  for (const p of PEERS) assert.deepEqual(pkg.peerDependenciesMeta[p], { optional: true });
  assert.ok(!existsSync(join(app, 'node_modules/ajv')) && !existsSync(join(app, 'node_modules/@opentelemetry')), 'no peer was installed');
});

test('its runtime path imports nothing: no node: built-in, no package (optional peers by a non-literal specifier)', () => {
  for (const f of ['dist/index.js', 'dist/index.cjs']) {
    const js = readFileSync(join(PKG, f), 'utf8');
    assert.doesNotMatch(js, /["']node:/, f);
    assert.doesNotMatch(js, /^\s*(import|export)\b[^\n;]*\bfrom\s*["']/m, `${f}: a static import`);
    assert.doesNotMatch(js, /\bimport\s*\(\s*["']/, `${f}: a literal dynamic import`);
    assert.doesNotMatch(js, /\brequire\s*\(\s*["']/, `${f}: a require`);
  }
});

test('esbuild bundles it for --platform=browser and --platform=neutral; at most 25 KB min+gzip without its peers', async () => {
  const entry = join(dir, 'entry.mjs');
  writeFileSync(
    entry,
    "import { revise, reviseMiddleware, repairToolCall, zodVerifier, runLoop } from '@revloop/revise';\nexport { revise, reviseMiddleware, repairToolCall, zodVerifier, runLoop };\n",
  );
  for (const platform of ['browser', 'neutral'] as const) {
    const r = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform,
      write: false,
      nodePaths: [join(app, 'node_modules')],
      ...(platform === 'neutral' ? { mainFields: ['module', 'main'] } : {}),
      logLevel: 'silent',
    });
    assert.deepEqual(r.errors, []);
    const code = r.outputFiles[0].contents;
    assert.doesNotMatch(Buffer.from(code).toString('utf8'), /["']node:/);
    const gz = gzipSync(code, { level: 9 }).length;
    assert.ok(gz <= 25 * 1024, `${platform}: ${gz} bytes min+gzip`);
  }
});

test("in the fresh project: its ESM and CommonJS copies, loaded side by side, recognise each other's errors by isInstance (instanceof cannot)", () => {
  writeFileSync(
    join(app, 'dual.mjs'),
    `import { createRequire } from 'node:module';
import * as esm from '@revloop/revise';
const cjs = createRequire(import.meta.url)('@revloop/revise');
const e = new cjs.UsageError('budget must be a whole number', { option: 'budget' });
const f = new esm.RevisionFailedError('no draft', { result: { status: 'budget', reason: 'x' } });
process.stdout.write(JSON.stringify({
  twoCopies: esm.UsageError !== cjs.UsageError,
  instanceOf: e instanceof esm.UsageError,
  usage: esm.UsageError.isInstance(e),
  user: esm.UserError.isInstance(e),
  revloop: esm.RevloopError.isInstance(e),
  capability: esm.CapabilityError.isInstance(e),
  back: cjs.RevisionFailedError.isInstance(f),
  backAsUser: cjs.UserError.isInstance(f),
  fields: [e.option, e.code],
}));
`,
  );
  assert.deepEqual(JSON.parse(ok(run(process.execPath, ['dual.mjs'], app), 'dual.mjs')), {
    twoCopies: true,
    instanceOf: false,
    usage: true,
    user: true,
    revloop: true,
    capability: false,
    back: true,
    backAsUser: false,
    fields: ['budget', 'E_USAGE'],
  });
});

test('in the fresh project: generateText and streamText through the middleware from ESM, revise() from CommonJS, and the types', () => {
  writeFileSync(
    join(app, 'esm.mjs'),
    `import { generateText, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { reviseMiddleware, zodVerifier, RevisionFailedError, RevloopError } from '@revloop/revise';
const r = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' },
  usage: { inputTokens: { total: 10 }, outputTokens: { total: 5 } }, warnings: [] });
const Person = z.object({ name: z.string(), age: z.number() });
const model = wrapLanguageModel({ model: new MockLanguageModelV3({ doGenerate: [r('nope'), r('{"name":"Bo","age":7}'), r('nah'), r('{"name":"Al","age":2}')] }),
  middleware: reviseMiddleware({ verify: zodVerifier(Person) }) });
const a = await generateText({ model, prompt: 'A person.' });
const s = streamText({ model, prompt: 'A person.' });
let streamed = ''; for await (const d of s.textStream) streamed += d;
process.stdout.write(JSON.stringify({ text: a.text, inputTokens: a.usage.inputTokens, streamed, error: RevloopError.isInstance(new RevisionFailedError('x', { result: { status: 'budget', reason: 'x' } })) }));
`,
  );
  const esm = JSON.parse(ok(run(process.execPath, ['esm.mjs'], app), 'esm.mjs'));
  assert.deepEqual(esm, { text: '{"name":"Bo","age":7}', inputTokens: 20, streamed: '{"name":"Al","age":2}', error: true });
  writeFileSync(
    join(app, 'cjs.cjs'),
    `const { revise } = require('@revloop/revise');
const model = { label: 'm', async generate(_m, o) { const text = 'one two'; o.onAttempt?.({ ok: true, text, startedAt: '', latencyMs: 0 }); return { text, attempts: [] }; } };
revise({ model, prompt: 'Two words.', verify: (d) => ({ ok: d.split(' ').length === 2, violations: [] }) }).then((r) => process.stdout.write(r.status + ' ' + r.output));
`,
  );
  assert.equal(ok(run(process.execPath, ['cjs.cjs'], app), 'cjs.cjs'), 'ok one two');
  writeFileSync(
    join(app, 'check.ts'),
    `import { revise, reviseMiddleware, zodVerifier, type ReviseResult } from '@revloop/revise';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
const model = wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: reviseMiddleware({ verify: zodVerifier(z.object({ a: z.string() })) }) });
export const run = (): Promise<ReviseResult> => revise({ model, prompt: 'x', verify: () => ({ ok: true, violations: [] }), budget: { tokens: 1000 } });
`,
  );
  writeFileSync(
    join(app, 'check.cts'),
    "import revise = require('@revloop/revise');\nexport const f: typeof revise.revise = revise.revise;\n",
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        lib: ['es2023', 'dom'],
        types: [],
      },
      files: ['check.ts', 'check.cts'],
    }),
  );
  ok(run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', '.'], app), 'tsc');
});

test('a missing optional peer (ajv) is reported before any model call; without @opentelemetry/api nothing is traced', () => {
  writeFileSync(
    join(app, 'peer.mjs'),
    `import { revise, jsonSchemaVerifier } from '@revloop/revise';
let calls = 0;
const model = { label: 'm', async generate(_m, o) { calls++; const text = '{}'; o.onAttempt?.({ ok: true, text, startedAt: '', latencyMs: 0 }); return { text, attempts: [] }; } };
const out = {};
try { await revise({ model, prompt: 'x', verify: jsonSchemaVerifier({ type: 'object' }) }); out.error = null; } catch (e) { out.error = e.message; out.code = e.code; }
out.calls = calls;
const r = await revise({ model, prompt: 'x', verify: () => ({ ok: true, violations: [] }) });
out.status = r.status;
process.stdout.write(JSON.stringify(out));
`,
  );
  const out = JSON.parse(ok(run(process.execPath, ['peer.mjs'], app), 'peer.mjs'));
  assert.deepEqual(out, {
    error: 'jsonSchemaVerifier needs the optional peer dependency ajv: npm install ajv@8',
    code: 'E_USAGE',
    calls: 0,
    status: 'ok',
  });
});
