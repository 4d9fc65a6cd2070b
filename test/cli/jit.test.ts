// src/cli/jit.ts: the batch commands (`verify --jsonl`, `run`, `worker`) really change when V8
// optimises, and REVLOOP_V8_TUNING=0 really leaves V8's defaults. Observed directly: a child process
// with V8's natives syntax counts how many calls a small hot function needs before Turbofan has
// optimised it (compiling on the main thread, so the count does not depend on timing), once with
// V8's defaults and once after the command under test has started (and failed on a missing file,
// after its tuning ran). A later tier-up is what the larger interrupt budget does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../tmp.ts';

const MAIN = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts')).href;

/** Calls until `work` is Turbofanned, after `revloop <args>` ran in this process (none: no command). */
function callsToOptimise(args: string[] | null, env: Record<string, string> = {}): number {
  const dir = tempDir('revloop-jit-');
  const script = join(dir, 'tier.mts');
  writeFileSync(
    script,
    `if (${JSON.stringify(args)}) {
  const { main } = await import(${JSON.stringify(MAIN)});
  await main(['node', 'revloop', ...${JSON.stringify(args)}]);
}
// V8's own test hook (--allow-natives-syntax); bit 64 of the status: Turbofanned.
const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
function work(n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;
  return s;
}
let calls = 0;
while (calls < 5000 && !(status(work) & 64)) {
  work(100);
  calls++;
}
process.stdout.write('calls ' + calls + '\\n');
process.exitCode = 0;
`,
  );
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--import', 'tsx', script], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  const m = /^calls (\d+)$/m.exec(r.stdout);
  assert.ok(m, `the probe printed no count (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return Number(m[1]);
}

test('run, worker and verify --jsonl make V8 optimise later; REVLOOP_V8_TUNING=0 keeps its defaults', () => {
  const dir = tempDir('revloop-jit-args-');
  const missing = join(dir, 'missing.jsonl');
  const defaults = callsToOptimise(null);
  assert.ok(defaults > 0 && defaults < 5000, `V8's defaults optimise work() after ${defaults} calls`);
  const commands: Array<[string, string[]]> = [
    ['run', ['run', '--cases', missing, '--model', 'sim:instant', '--store', join(dir, 'runs.db')]],
    ['worker', ['worker', '--store', join(dir, 'absent.db'), '--run', 'r']],
    ['verify --jsonl', ['verify', '--jsonl', missing]],
  ];
  for (const [name, args] of commands) {
    const tuned = callsToOptimise(args);
    assert.ok(tuned >= 1.5 * defaults, `${name}: work() optimised after ${tuned} calls, V8's defaults ${defaults}`);
    const untuned = callsToOptimise(args, { REVLOOP_V8_TUNING: '0' });
    assert.ok(untuned < 1.5 * defaults, `${name} with REVLOOP_V8_TUNING=0: ${untuned} calls, V8's defaults ${defaults}`);
  }
});

test("the batch flags are set only on the V8 they were measured on (Node 20's V8 11): Node 22's has no --interrupt-budget", async () => {
  const { batchV8Flags, BATCH_V8_FLAGS } = await import('../../src/cli/jit.ts');
  assert.deepEqual(batchV8Flags('11.3.244.8-node.33'), BATCH_V8_FLAGS);
  // Node 22.23's V8: setting the flags there printed "Error: unrecognized flag --interrupt-budget=300000" at every start.
  assert.deepEqual(batchV8Flags('12.4.254.21-node.33'), []);
  assert.deepEqual(batchV8Flags('13.6.233.10-node.18'), []);
});
