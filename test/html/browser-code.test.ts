// The browser code (src/html/bundle.ts): the viewer's app and the report's script are TypeScript,
// typed by the server's API and payload types (type imports only) and bundled by esbuild into one
// classic script each. Checked here: each bundle builds from its sources and holds browser code only,
// with the one word-diff renderer; a value import of server code is refused; the type check covers
// every browser file (tsconfig.browser.json, run by `npm run typecheck`) and passes, so a change to
// src/viewer/api.ts that the app does not follow fails this file. That dist/ holds these bundles and
// serves and inlines them is checked on the installed package (test/package/package.test.ts).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { BROWSER_FOLDERS, browserScript, bundleBrowserScript } from '../../src/html/bundle.ts';
// @ts-expect-error -- a plain .mjs script without declarations
import { BROWSER_BUNDLES } from '../../scripts/build.mjs';
import { tempDir } from '../tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const posix = (p: string) => p.split(sep).join('/');

/** The modules a bundle holds, from esbuild's `// src/…` comments. */
const modulesOf = (text: string) => [...text.matchAll(/^ {2}\/\/ (src\/\S+\.ts)$/gm)].map((m) => m[1]);

function browserFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts')) out.push(posix(relative(ROOT, p)));
    }
  };
  for (const f of BROWSER_FOLDERS) walk(join(ROOT, 'src', f));
  return out.sort();
}

test('each browser script is its TypeScript bundled into one classic script of browser code, with the one word-diff renderer', () => {
  assert.deepEqual([...(BROWSER_BUNDLES as string[])].sort(), ['report/client/report.js', 'viewer/app/main.js']);
  for (const script of BROWSER_BUNDLES as string[]) {
    const text = browserScript(new URL(`../../src/${script}`, import.meta.url));
    assert.match(text, /^\(\(\) => \{\n/, `${script}: an IIFE (a classic script, inlined by the report)`);
    assert.doesNotMatch(text, /^\s*(?:import|export)\s|\brequire\(/m, `${script}: nothing left to load`);
    const modules = modulesOf(text);
    assert.ok(modules.includes(`src/${script.replace(/\.js$/, '.ts')}`), `${script}: ${modules.join(', ')}`);
    assert.ok(modules.includes('src/html/client/word-diff.ts'), `${script} renders diffs with the shared renderer`);
    for (const m of modules)
      assert.ok(
        BROWSER_FOLDERS.some((f) => m.startsWith(`src/${f}/`)),
        `${script} holds ${m}`,
      );
    // Bundled once per process: the same text again, without a second build.
    assert.equal(browserScript(new URL(`../../src/${script}`, import.meta.url)), text);
  }
});

test('one word-diff renderer: src/html/client/word-diff.ts is the only source that builds <ins> and <del> elements', () => {
  const hits: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (
        /\.(?:ts|js|mjs)$/.test(name) &&
        /\bel\((['"])(?:ins|del)\1|createElement\((['"])(?:ins|del)\2|<(?:ins|del)\b/.test(readFileSync(p, 'utf8'))
      )
        hits.push(posix(relative(ROOT, p)));
    }
  };
  walk(join(ROOT, 'src'));
  assert.deepEqual(hits, ['src/html/client/word-diff.ts']);
});

test('a bundle refuses server code: a value import from outside the browser folders fails the build, a type import does not', () => {
  const dir = tempDir('revloop-bundle-');
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  // Server code that esbuild could bundle (no Node built-in): only the check keeps it out of the page.
  put('src/viewer/routes.ts', 'export interface Row { id: string }\nexport const read = (id: string): Row => ({ id });\n');
  put('src/viewer/app/bad.ts', "import { read } from '../routes.ts';\ndocument.title = String(read);\n");
  put('src/viewer/app/ok.ts', "import type { Row } from '../routes.ts';\nconst r: Row = { id: 'x' };\ndocument.title = r.id;\n");
  assert.throws(
    () => bundleBrowserScript(join(dir, 'src'), 'src/viewer/app/bad.ts'),
    /src\/viewer\/app\/bad\.ts: the browser bundle would hold src\/viewer\/routes\.ts, which is not browser code .*import its types only/,
  );
  const ok = bundleBrowserScript(join(dir, 'src'), 'src/viewer/app/ok.ts');
  assert.deepEqual(modulesOf(ok), ['src/viewer/app/ok.ts']);
  assert.doesNotMatch(ok, /routes|read/);
  // A Node built-in cannot be bundled for the browser at all.
  put('src/viewer/app/node.ts', "import { readFileSync } from 'node:fs';\ndocument.title = String(readFileSync);\n");
  assert.throws(() => bundleBrowserScript(join(dir, 'src'), 'src/viewer/app/node.ts'), /Could not resolve "node:fs"/);
});

test('the type check covers every browser file with the DOM library, the Node configurations none, and npm run typecheck runs it', () => {
  const files = (config: string) =>
    new Set(
      ts
        .getParsedCommandLineOfConfigFile(join(ROOT, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!
        .fileNames.map((f) => posix(relative(ROOT, f))),
    );
  const browser = browserFiles();
  assert.ok(browser.includes('src/viewer/app/main.ts') && browser.includes('src/report/client/report.ts'), browser.join(', '));
  const typed = files('tsconfig.browser.json');
  for (const f of browser) assert.ok(typed.has(f), `tsconfig.browser.json checks ${f}`);
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) {
    const node = files(config);
    // (A DOM-free module such as diff-segments.ts is compiled for Node too, through an import.)
    assert.deepEqual(
      browser.filter((f) => node.has(f)),
      [],
      `${config} leaves the browser folders to tsconfig.browser.json`,
    );
  }
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.browser.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  assert.ok(parsed.options.lib?.includes('lib.dom.d.ts'), String(parsed.options.lib));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.typecheck, /(?:^|&& )tsc -p tsconfig\.browser\.json(?: &&|$)/);
});

test('the front end agrees with the server: the browser code type-checks against src/viewer/api.ts and src/report/payload.ts', () => {
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.browser.json'), '--pretty', 'false'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(r.status, 0, `tsc -p tsconfig.browser.json:\n${r.stdout}${r.stderr}`);
});
