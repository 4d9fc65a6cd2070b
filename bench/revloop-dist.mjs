#!/usr/bin/env node
// The compiled CLI (dist/, built by `npm run build`) without the launcher's staleness check, as an
// installed package's bin runs it (bin/revloop.mjs in a checkout checks dist/ against the sources
// first): bench/cli-startup.ts times both.
const { main } = await import('../dist/cli/main.js');
await main(process.argv);
