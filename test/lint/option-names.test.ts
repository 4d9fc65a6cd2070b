// Issue 38 #5: below src/app the library names options, not flags. A string of code under src/
// outside src/cli and src/app that holds `--flag` fails here, unless it is a whole command a person
// is told to run (`revloop run --store …`, `npx --no …`) or one of the rendered texts listed below;
// errors name the option through namingOption (core/errors.ts) and the CLI words it as the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = [join(ROOT, 'src'), join(ROOT, 'packages', 'revise', 'src')];
const ABOVE = [join(ROOT, 'src', 'cli'), join(ROOT, 'src', 'app')];

/**
 * Texts that name flags on purpose, each with why: rendered output of the command line's own tables
 * and notes of an analysis (no error path for the CLI to reword), kept until they take a renderer's
 * names of the flags.
 */
const RENDERED: ReadonlyArray<[file: string, text: string]> = [
  ['src/revise/compare.ts', '--wide and --json add an interval'],
  ['src/studies/revision/analysis/analysis-tables.ts', 'full list in --json'],
  ['src/studies/revision/analysis/analysis-tables.ts', 'per structure in --json'],
  ['src/studies/revision/analysis/analyze-trajectories.ts', 'Name panels yourself with --panel'],
  ['src/studies/revision/analysis/analyze-trajectories.ts', 'use --panel to group controllers'],
  ['src/studies/revision/analysis/analyze-trajectories.ts', 'assign families with --model-family'],
];

function files(dir: string): string[] {
  if (ABOVE.includes(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|mts|mjs)$/.test(name) ? [p] : [];
  });
}

test('below src/app, no string names a command-line flag (errors name the option)', () => {
  const found: string[] = [];
  for (const file of SOURCES.flatMap(files)) {
    const rel = relative(ROOT, file);
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may speak of flags
        if (!/['"`]--[a-z]|[ (]--[a-z][a-z-]+/.test(line)) return;
        if (/`revloop [^`]*--|revloop [a-z-]+ [^'"`]*--|npx --no|var\(--/.test(line)) return; // a command to run
        if (RENDERED.some(([f, text]) => f === rel && line.includes(text))) return;
        found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, [], 'name the option (namingOption in core/errors.ts) and map it to its flag in src/cli/option-flags.ts');
});
