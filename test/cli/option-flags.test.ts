// Issue 38 #5: the library's errors name options (`runId`, `plugins`); the command line words them
// with the flag the user typed (src/cli/option-flags.ts, applied by the error printer). The table
// holds only real flags and covers every option an error of src/ names; a user still reads flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { namingOption, UserError } from '../../src/core/errors.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { reportError } from '../../src/cli/errors.ts';
import { flagFor, mappedFlags, mappedOptions } from '../../src/cli/option-flags.ts';
import { allCommands, revloop, ROOT } from './cli.ts';
import { tempDir } from '../tmp.ts';

const program = await buildProgram();

test('every flag of the table is a flag of some command', () => {
  const flags = new Set(allCommands(program).flatMap(({ cmd }) => cmd.options.flatMap((o) => [o.long, o.short].filter(Boolean))));
  for (const flag of mappedFlags()) assert.ok(flags.has(flag), `${flag} is no command's flag`);
});

/** The options src/ names in errors: namingOption's literals, defaults of `option` parameters, and the names passed for them. */
function namedInSources(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
  for (const file of [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'packages', 'revise', 'src'))]) {
    const text = readFileSync(file, 'utf8');
    const at = relative(ROOT, file);
    for (const m of text.matchAll(/namingOption\(\s*'(\w+)'/g)) found.set(m[1], at);
    for (const m of text.matchAll(/namingOption\(\s*\[([^\]]*)\]/g)) for (const o of m[1].matchAll(/'(\w+)'/g)) found.set(o[1], at);
    for (const m of text.matchAll(/\boption = '(\w+)'/g)) found.set(m[1], at);
    for (const m of text.matchAll(
      /\b(?:policyName|policyPreset|loadSourceRun|assertSamePlan|openStudyRun|parseTruncation)\([^()]*,\s*'(\w+)'\)/g,
    ))
      found.set(m[1], at);
  }
  return found;
}

test('every option an error of src/ names has its flag (but revise()’s own `policy`)', () => {
  const named = namedInSources();
  for (const o of ['plugins', 'runId', 'harness', 'history', 'budget', 'store', 'fromRun', 'plannerRun', 'messagePolicy'])
    assert.ok(named.has(o), `the scan finds ${o}`);
  const mapped = new Set(mappedOptions());
  for (const [option, file] of named)
    if (option !== 'policy') assert.ok(mapped.has(option), `${option} (${file}) has no flag in src/cli/option-flags.ts`);
});

test('flagFor: the spelling the user typed, else the first; per command where a flag differs', () => {
  const argv = (...words: string[]) => ['node', 'revloop', ...words];
  assert.equal(flagFor('runId', argv('run', '--cases', 'c', '--run-id', 'x')), '--run-id');
  assert.equal(flagFor('runId', argv('run', '--cases', 'c', '--run=x')), '--run');
  assert.equal(flagFor('runId', argv('run', '--cases', 'c')), '--run');
  assert.equal(flagFor('format', argv('run', '--format', 'native')), '--format');
  assert.equal(flagFor('format', argv('run')), '--input-format');
  assert.equal(flagFor('runId', argv('compare-policies', '--replay', 'r')), '--replay');
  assert.equal(flagFor('runId', argv('compare-policies', '--cases', 'c')), '--run-prefix');
  assert.equal(flagFor('policy', argv('run')), null);
});

test('the error printer words an option-naming error with the flag typed, and leaves an unmapped option as it is', () => {
  const printed = (e: unknown, ...words: string[]) => {
    let out = '';
    const code = reportError(e, { write: (s: string) => (out += s) }, ['node', 'revloop', ...words]);
    return { code, out };
  };
  const taken = namingOption('runId', (n) => new UserError(`run 'r' is taken; choose another ${n}`));
  assert.deepEqual(printed(taken, 'run', '--run-id', 'r'), { code: 2, out: "revloop: run 'r' is taken; choose another --run-id\n" });
  assert.deepEqual(printed(taken, 'run', '--run', 'r'), { code: 2, out: "revloop: run 'r' is taken; choose another --run\n" });
  const own = namingOption('policy', (n) => new UserError(`${n}: unknown`));
  assert.equal(printed(own, 'run').out, 'revloop: policy: unknown\n');
});

test('CLI: errors of the library reach the user with the flags they typed', async () => {
  const dir = tempDir('revloop-option-flags-');
  const cases = join(dir, 'cases.jsonl');
  const db = join(dir, 'runs.db');
  await writeCaseSet(cases, exactLengthDemoCases().slice(0, 2));
  const base = ['run', '--cases', cases, '--model', 'sim:steady', '--store', db];
  const first = revloop([...base, '--run', 'r1', '--budget', '2']);
  assert.equal(first.code, 0, first.err);

  // A different plan under the run id: the flag that chose the id, as typed (the old spelling too).
  const viaRun = revloop([...base, '--run', 'r1', '--budget', '3']);
  assert.equal(viaRun.code, 2, viaRun.err);
  assert.match(viaRun.err, /\nUse a new --run to run this plan, or repeat the original command to resume 'r1'\.\n/);
  const viaOld = revloop([...base, '--run-id', 'r1', '--budget', '3']);
  assert.equal(viaOld.code, 2, viaOld.err);
  assert.match(viaOld.err, /\nUse a new --run-id to run this plan/);

  // A plugin that is not there: `plugins` in the library, --plugin here.
  const plugin = revloop([...base, '--run', 'r2', '--plugin', 'no-such-plugin.mjs']);
  assert.equal(plugin.code, 2, plugin.err);
  assert.match(plugin.err, /^revloop: --plugin: no such file: no-such-plugin\.mjs$/m);

  // A case file whose format cannot be told: `format` in the library, --input-format here.
  const odd = join(dir, 'odd.jsonl');
  writeFileSync(odd, '{"hello": "world"}\n');
  const format = revloop(['run', '--cases', odd, '--model', 'sim:steady', '--store', db]);
  assert.equal(format.code, 2, format.err);
  assert.match(format.err, /cannot tell the case format from the first row \(fields: hello\); set --input-format to one of the formats \(/);

  // A viewer on a busy port: `port` in the library, --port here.
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  try {
    const port = (busy.address() as AddressInfo).port;
    const view = revloop(['view', '--store', db, '--port', String(port)]);
    assert.equal(view.code, 2, view.err);
    assert.match(
      view.err,
      new RegExp(`^revloop: port ${port} is already in use on 127\\.0\\.0\\.1; choose another with --port \\(0 picks a free one\\)$`, 'm'),
    );
  } finally {
    await new Promise<void>((r) => busy.close(() => r()));
  }
});
