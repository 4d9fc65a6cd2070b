// Issue 38 #4: each default has one home and flows down. The version is package.json's, the
// reference's seed is written once, the paper's budget and a run's concurrency are never restated
// as literals, and the command line's flags default to what the library functions default to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command, Option } from 'commander';
import { PAPER_BUDGET } from '@revloop/revise';
import { REVLOOP_VERSION } from '../../src/core/version.ts';
import { REFERENCE_SEED } from '../../src/core/reference-seed.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { ENGINE_DEFAULTS } from '../../src/engine/defaults.ts';
import { RUN_DEFAULTS, VIEW_DEFAULTS, DEMO_DEFAULTS } from '../../src/app/defaults.ts';
import { ANALYSIS_DEFAULTS } from '../../src/studies/revision/analysis/defaults.ts';
import { DEFAULT_ARMS, DEFAULT_ERRORS, DESIGN_DEFAULTS } from '../../src/studies/experiments/defaults.ts';
import { VIEWER_SERVER_DEFAULTS } from '../../src/viewer/defaults.ts';
import { SIM_SERVER_DEFAULTS } from '../../src/models/sim/defaults.ts';
import { STUDY_SETTINGS } from '../../src/studies/agent/defaults.ts';
import { PROBE_VERIFY_DEFAULTS } from '../../src/studies/probe/defaults.ts';
import { formatHistoryWindow } from '../../src/remedy/history-window.ts';
import { buildProgram } from '../../src/cli/main.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** Every source line of src/ and the revise package's src/, with where it is. */
function sourceLines(): Array<{ at: string; line: string; comment: boolean }> {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) =>
      statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : /\.(ts|mjs|js)$/.test(n) ? [join(dir, n)] : [],
    );
  return [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'packages', 'revise', 'src'))].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ at: `${relative(ROOT, file)}:${i + 1}`, line, comment: /^\s*(\/\/|\*|\/\*)/.test(line) })),
  );
}

test('the version is package.json’s, and no source writes it', () => {
  assert.equal(REVLOOP_VERSION, PKG.version);
  const quoted = new RegExp(`['"\`]${PKG.version.replace(/\./g, '\\.')}['"\`]`);
  assert.deepEqual(
    sourceLines()
      .filter((l) => quoted.test(l.line))
      .map((l) => l.at),
    [],
  );
});

test('the reference’s seed is written once (core/reference-seed.ts), comments included', () => {
  assert.equal(REFERENCE_SEED, 20260808); // the paper's value, on purpose
  assert.deepEqual(
    sourceLines()
      .filter((l) => l.line.includes(String(REFERENCE_SEED)))
      .map((l) => l.at.replace(/:\d+$/, '')),
    ['src/core/reference-seed.ts', 'src/core/reference-seed.ts'],
  );
});

test('the paper’s budget and a run’s concurrency are never restated as literals in code', () => {
  assert.equal(PAPER_BUDGET, 8); // the paper's T, on purpose
  assert.equal(PAPER_PROTOCOL.budget, PAPER_BUDGET);
  const restated = sourceLines().filter(
    (l) =>
      !l.comment &&
      (/\bbudget\b[^\n]*(\?\?|!==|===|:) ?8\b/.test(l.line) ||
        /revisions \?\? 8\b/.test(l.line) ||
        /concurrency(Option\(| \?\? )\d/.test(l.line) ||
        /budgetOption\(\d/.test(l.line) ||
        /\.default\((\d+|'runs\.db'|'baseline'|'strict'|'verbatim'|'full')\)/.test(l.line) ||
        // a command's option with a literal number or address as its default (`.option('--tasks <N>', '…', '24')`)
        /\.option\('--[\w-]+ <[^>]+>',.*, '(\d[\d.]*|127\.0\.0\.1)'\)/.test(l.line) ||
        /\?\? '127\.0\.0\.1'/.test(l.line)),
  );
  assert.deepEqual(
    restated.map((l) => `${l.at}: ${l.line.trim()}`),
    [],
  );
});

const program = await buildProgram();
const command = (path: string): Command => {
  let c: Command = program;
  for (const name of path.split(' ')) c = c.commands.find((x) => x.name() === name)!;
  return c;
};
const defaultOf = (path: string, flag: string): unknown =>
  command(path).options.find((o: Option) => o.long === flag)?.defaultValue ?? assert.fail(`${path} ${flag}`);

test('the command line’s defaults are the library’s (flow down from their homes)', () => {
  const run = (flag: string) => defaultOf('run', flag);
  assert.equal(run('--budget'), PAPER_PROTOCOL.budget);
  assert.equal(run('--history'), formatHistoryWindow(PAPER_PROTOCOL.history));
  assert.equal(run('--harness'), PAPER_PROTOCOL.messagePolicy);
  assert.equal(run('--variant'), PAPER_PROTOCOL.variant);
  assert.equal(run('--concurrency'), RUN_DEFAULTS.concurrency);
  assert.equal(run('--max-consecutive-failures'), RUN_DEFAULTS.maxConsecutiveFailures);
  assert.equal(run('--lease-seconds'), ENGINE_DEFAULTS.leaseSeconds);
  assert.equal(run('--reconnect-seconds'), RUN_DEFAULTS.reconnectSeconds);
  assert.equal(run('--store'), RUN_DEFAULTS.store);
  assert.equal(run('--ifeval-mode'), RUN_DEFAULTS.ifevalMode);
  for (const path of ['worker', 'compare-policies', 'experiment history'])
    assert.equal(defaultOf(path, '--concurrency'), RUN_DEFAULTS.concurrency, path);
  assert.equal(defaultOf('demo', '--concurrency'), DEMO_DEFAULTS.concurrency);
  assert.equal(defaultOf('compare-policies', '--budget'), PAPER_PROTOCOL.budget);
  assert.equal(defaultOf('experiment history', '--budget'), PAPER_PROTOCOL.budget);
  assert.equal(defaultOf('experiment history', '--arms'), DEFAULT_ARMS);
  assert.equal(defaultOf('experiment persist', '--budget'), DESIGN_DEFAULTS.persistBudget);
  assert.equal(defaultOf('experiment persist', '--max-states'), DESIGN_DEFAULTS.persistMaxStates);
  assert.equal(defaultOf('experiment sysid', '--errors'), DEFAULT_ERRORS.join(','));
  assert.equal(defaultOf('experiment sysid', '--draft-field'), DESIGN_DEFAULTS.draftField);
  for (const path of ['analyze', 'report']) {
    assert.equal(defaultOf(path, '--bootstrap'), ANALYSIS_DEFAULTS.bootstrap, path);
    assert.equal(defaultOf(path, '--seed'), ANALYSIS_DEFAULTS.seed, path);
  }
  assert.equal(defaultOf('analyze', '--landmark'), ANALYSIS_DEFAULTS.landmark);
  assert.equal(defaultOf('view', '--bootstrap'), VIEW_DEFAULTS.bootstrap);
  assert.equal(defaultOf('view', '--port'), String(VIEWER_SERVER_DEFAULTS.port));
  assert.equal(defaultOf('view', '--host'), VIEWER_SERVER_DEFAULTS.host);
  assert.equal(defaultOf('agent', '--tasks'), String(STUDY_SETTINGS.nTasks));
  assert.equal(defaultOf('agent', '--max-steps'), String(STUDY_SETTINGS.maxSteps));
  assert.equal(defaultOf('agent', '--max-new-tokens'), String(STUDY_SETTINGS.maxNewTokens));
  assert.equal(defaultOf('serve-sim', '--port'), String(SIM_SERVER_DEFAULTS.port));
  assert.equal(defaultOf('serve-sim', '--host'), SIM_SERVER_DEFAULTS.host);
  assert.equal(defaultOf('serve-sim', '--latency-ms'), String(SIM_SERVER_DEFAULTS.latencyMs));
  assert.equal(defaultOf('probe verify', '--n'), String(PROBE_VERIFY_DEFAULTS.n));
  assert.equal(defaultOf('probe verify', '--tolerance'), String(PROBE_VERIFY_DEFAULTS.tolerance));
});
