// The entry of the viewer's analysis worker thread (src/app/view-analysis.ts). A worker does not
// inherit the TypeScript loader the CLI registers in a checkout, so, like bin/revloop.mjs, this
// plain module registers tsx itself when the sources are here, and loads the compiled module in an
// installed package (dist/ has no .ts files).
import { existsSync } from 'node:fs';

const source = new URL('./view-analysis.ts', import.meta.url);
let analysis;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  analysis = await import(source.href);
} else {
  analysis = await import('./view-analysis.js');
}
await analysis.serveAnalyses();
