#!/usr/bin/env node
// The compiled CLI (dist/, built by `npm run build`), launched the way an installed package's bin
// runs it, for whole-process benchmarks from a checkout (bin/revloop.mjs runs the sources there).
const { main } = await import('../dist/cli/main.js');
await main(process.argv);
