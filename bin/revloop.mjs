#!/usr/bin/env node
// Thin launcher: runs the TypeScript CLI through tsx so `npx revloop` works right after `npm ci`.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
