import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgressReporter, formatDuration, progressLine } from '../../src/cli/progress/run-progress.ts';
import type { RunProgress } from '../../src/engine/run.ts';

const p = (done: number, extra: Partial<RunProgress> = {}): RunProgress => ({
  total: 100,
  skipped: 20,
  done,
  successes: Math.floor(done / 2) + 10,
  incomplete: 0,
  rounds: done * 3,
  startedAtMs: 0,
  ...extra,
});

test('progress line: done/total, success so far, rate, ETA, SIMULATED label', () => {
  assert.equal(
    progressLine(p(40), 10_000, true),
    '[SIMULATED] 60/100 done (20 before) · success 50.0% · 4.00 traj/s · 12.0 rounds/s · ETA 10s',
  );
  assert.equal(progressLine(p(0), 1000, false), '20/100 done (20 before) · success 50.0% · 0.00 traj/s · 0.0 rounds/s · ETA ?');
  assert.equal(
    progressLine(p(80, { incomplete: 2 }), 20_000, false),
    '100/100 done (20 before) · success 50.0% · 4.00 traj/s · 12.0 rounds/s · ETA 0s · 2 incomplete',
  );
  assert.equal(formatDuration(3725), '1h02m');
  assert.equal(formatDuration(125), '2m05s');
});

test('on a terminal one line is redrawn in place; otherwise plain lines at an interval', () => {
  let now = 0;
  const tty: string[] = [];
  const r = createProgressReporter({ write: (s) => tty.push(s) }, { tty: true, simulated: false, now: () => now });
  r.update(p(1));
  now = 50;
  r.update(p(2)); // within 100 ms: not redrawn
  now = 200;
  r.update(p(3));
  now = 250;
  r.update(p(4)); // not redrawn yet, but finish() shows the final state
  r.finish();
  assert.equal(tty.length, 4);
  assert.ok(tty.slice(0, 3).every((s) => s.startsWith('\r\x1b[2K')));
  assert.match(tty[2], /^\r\x1b\[2K24\/100 done/);
  assert.equal(tty[3], '\n');

  now = 0;
  const plain: string[] = [];
  const q = createProgressReporter({ write: (s) => plain.push(s) }, { tty: false, simulated: true, intervalMs: 10_000, now: () => now });
  q.update(p(1));
  now = 5_000;
  q.update(p(2));
  now = 12_000;
  q.update(p(3));
  now = 13_000;
  q.update(p(80)); // complete: always shown
  q.finish(); // nothing new to show
  assert.deepEqual(
    plain.map((s) => s.split(' · ')[0]),
    ['[SIMULATED] 21/100 done (20 before)', '[SIMULATED] 23/100 done (20 before)', '[SIMULATED] 100/100 done (20 before)'],
  );
  assert.ok(plain.every((s) => s.endsWith('\n')));
});
