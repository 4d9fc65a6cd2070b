// revloop's version, recorded in every session event and printed by `revloop --version`: read from
// package.json, its one home (../../package.json from src/core/ and from dist/core/ alike; the
// package test checks the installed package resolves it).
import { readFileSync } from 'node:fs';

/** revloop's version: package.json's `version`. */
export const REVLOOP_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
