// The browser scripts: the viewer's app (src/viewer/app) and the report's script (src/report/client)
// are TypeScript, each bundled by esbuild with the shared browser code (src/html/client) into one
// classic script (an IIFE). `npm run build` writes the bundles into dist/ next to the modules that
// serve or inline them (scripts/build.mjs, BROWSER_BUNDLES); run from the sources (tsx), those
// modules bundle them here on first use, with the same options, so both ways give the same bytes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of browser code, relative to src/: the only modules a bundle may hold (anything else
 * is imported for its types only). tsconfig.browser.json type-checks them with the DOM library.
 */
export const BROWSER_FOLDERS: readonly string[] = ['html/client', 'report/client', 'viewer/app'];

/** The part of esbuild's API used here (esbuild is a dependency of tsx, present wherever the sources run). */
export interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles?: Array<{ text: string }>; metafile?: { inputs: Record<string, unknown> } };
}

function loadEsbuild(): Esbuild {
  try {
    return createRequire(import.meta.url)('esbuild') as Esbuild;
  } catch {
    throw new Error('running revloop from its sources needs esbuild to build the browser scripts (a dependency of tsx): run `npm install`');
  }
}

/**
 * Bundles one entry (a TypeScript file, its path relative to the folder above `srcDir`, such as
 * the viewer's main.ts) into a script's text; throws when the bundle would hold a module outside
 * BROWSER_FOLDERS (Node code in a page).
 */
export function bundleBrowserScript(srcDir: string, entry: string, esbuild: Esbuild = loadEsbuild()): string {
  const result = esbuild.buildSync({
    absWorkingDir: dirname(srcDir),
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    // No tsconfig lookup: the output depends on these options and the sources only.
    tsconfigRaw: {},
  });
  const src = relative(dirname(srcDir), srcDir).split(sep).join('/');
  for (const input of Object.keys(result.metafile?.inputs ?? {})) {
    if (!BROWSER_FOLDERS.some((f) => input.startsWith(`${src}/${f}/`)))
      throw new Error(
        `${entry}: the browser bundle would hold ${input}, which is not browser code (${BROWSER_FOLDERS.join(', ')}); import its types only (import type)`,
      );
  }
  return result.outputFiles![0].text;
}

/** Whether this module runs from the sources (tsx) rather than dist/. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const SRC = fileURLToPath(new URL('../', import.meta.url));
const built = new Map<string, string>();

/**
 * The text of the browser script at `url`, a `.js` file next to the calling module: read from dist/,
 * or, run from the sources (where only its `.ts` entry exists), bundled now (once per process).
 */
export function browserScript(url: URL): string {
  const path = fileURLToPath(url);
  if (!FROM_SOURCES) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      throw new Error(`the browser script ${path} is missing; reinstall revloop (in a checkout: npm run build)`);
    }
  }
  let text = built.get(path);
  if (text === undefined) {
    const entry = relative(dirname(SRC), path.replace(/\.js$/, '.ts')).split(sep).join('/');
    text = bundleBrowserScript(SRC, entry);
    built.set(path, text);
  }
  return text;
}
