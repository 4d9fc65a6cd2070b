// The entry of the viewer's text-search worker thread (src/app/view-search.ts); loads the module as
// view-analysis-worker.mjs does (tsx in a checkout, the compiled module in an installed package).
import { existsSync } from 'node:fs';

const source = new URL('./view-search.ts', import.meta.url);
let search;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  search = await import(source.href);
} else {
  search = await import('./view-search.js');
}
await search.serveSearches();
