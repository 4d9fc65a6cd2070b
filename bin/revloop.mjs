#!/usr/bin/env node
// Launcher: runs the compiled CLI (dist/cli/main.js). An installed package ships dist/ and no src/.
// In a checkout (src/ present), `npm ci` builds dist/ (the prepare script), and dist/ runs only when
// it was built from the sources as they are now (the content hash scripts/build.mjs stamps into it);
// otherwise the sources run through tsx, with a note on standard error saying why start-up is slow
// and how to fix it. A stale build never runs. REVLOOP_FROM_SOURCE=1 (`npm run dev -- …`) runs the
// sources without the note. Why not rebuild here: a build takes 10–25 s on a busy machine, would
// stall the first command after every edit, and concurrent commands would race to rebuild.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const source = new URL('src/cli/main.ts', root);

async function fromSource() {
  if (!existsSync(source)) return false;
  if (process.env.REVLOOP_FROM_SOURCE === '1') return true;
  // The quick check (stat calls only); build.mjs, with its heavier imports, only when an input changed.
  const { currentByStats } = await import(new URL('scripts/dist-state.mjs', root).href);
  if (currentByStats() === 'current') return false;
  const { distState } = await import(new URL('scripts/build.mjs', root).href);
  const state = distState();
  if (state === 'current') return false;
  process.stderr.write(
    `revloop: dist/ is ${state === 'missing' ? 'missing' : 'stale (the sources changed since it was built)'}, so this runs the ` +
      'sources through tsx, which starts slower. Run `npm run build` to compile them (or `npm run dev -- …` to run ' +
      'the sources without this note).\n',
  );
  return true;
}

let main;
if (await fromSource()) {
  const { register } = await import('tsx/esm/api');
  // The checkout's tsconfig.json wherever the command starts: its paths map the revise package to its sources.
  register({ tsconfig: fileURLToPath(new URL('tsconfig.json', root)) });
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
await main(process.argv);
