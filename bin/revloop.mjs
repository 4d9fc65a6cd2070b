#!/usr/bin/env node
// Launcher. In a checkout (src/ present) it runs the TypeScript CLI through tsx, so `npx revloop`
// works right after `npm ci` and never runs a stale build. An installed package ships dist/ and
// no src/, and runs the compiled CLI — the same modules `import 'revloop/…'` loads.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
await main(process.argv);
