// The one progress module every long command reports through (src/cli/progress.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, lineProgress, trajectoryLine, trajectoryProgress, type TrajectoryProgress } from '../../src/cli/progress.ts';

test('a progress line: done/total, percent, rate, ETA, extra fields, SIMULATED prefix', () => {
  let now = 0;
  const lines: string[] = [];
  const p = lineProgress({ write: (s) => lines.push(s) }, 'probe m', { now: () => now, intervalMs: 1000, simulated: true });
  now = 10_000;
  p.update(40, 100, 'pass 1/2');
  assert.equal(lines[0], '[SIMULATED] probe m: 40/100 (40%) · 4.00/s · ETA 15s · pass 1/2\n');
  now = 10_500;
  p.update(41, 100); // within the interval: held back
  assert.equal(lines.length, 1);
  now = 20_000;
  p.finish(); // the last state is shown once at the end, as it was when reported (41 in 10.5 s)
  assert.equal(lines[1], '[SIMULATED] probe m: 41/100 (41%) · 3.90/s · ETA 15s\n');
  assert.equal(formatDuration(3725), '1h02m');
  assert.equal(formatDuration(125), '2m05s');
  assert.equal(formatDuration(Number.NaN), '?');
});

test('on a terminal one line is redrawn in place and ended by finish(); a null stream is silent', () => {
  let now = 0;
  const out: string[] = [];
  const p = lineProgress({ write: (s) => out.push(s), isTTY: true }, 'run', { now: () => now });
  p.update(1, 4);
  now = 50;
  p.update(2, 4); // within 150 ms: not redrawn
  now = 400;
  p.update(3, 4);
  p.finish();
  assert.ok(out.slice(0, 2).every((s) => s.startsWith('\r\x1b[2K')));
  assert.match(out[1], /run: 3\/4/);
  assert.equal(out.at(-1), '\n');
  const silent = lineProgress(null, 'x');
  silent.update(1, 2);
  silent.finish();
});

test('trajectory progress: done (and done before), success so far, rate, rounds/s, ETA, SIMULATED label', () => {
  const p = (done: number, extra: Partial<TrajectoryProgress> = {}): TrajectoryProgress => ({
    total: 100,
    skipped: 20,
    done,
    successes: Math.floor(done / 2) + 10,
    incomplete: 0,
    rounds: done * 3,
    ...extra,
  });
  assert.equal(
    trajectoryLine(p(40), 10, true),
    '[SIMULATED] 60/100 done (20 before) · success 50.0% · 4.00 traj/s · 12.0 rounds/s · ETA 10s',
  );
  assert.equal(trajectoryLine(p(0), 1, false), '20/100 done (20 before) · success 50.0% · 0.00 traj/s · 0.0 rounds/s · ETA ?');
  assert.equal(
    trajectoryLine(p(80, { incomplete: 2 }), 20, false),
    '100/100 done (20 before) · success 50.0% · 4.00 traj/s · 12.0 rounds/s · ETA 0s · 2 incomplete',
  );
  let now = 0;
  const plain: string[] = [];
  const q = trajectoryProgress({ write: (s) => plain.push(s) }, { simulated: true, intervalMs: 10_000, now: () => now });
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
});

test('a held-back report is not even formatted, and no line loads ICU: lines are composed only when written', (t) => {
  // A worker reports after every round; only the lines written may pay for formatting (pct and rate
  // call toFixed once each per line), and counts are grouped without toLocaleString (ICU's ~30 ms).
  const calls = { toFixed: 0, toLocaleString: 0 };
  for (const name of ['toFixed', 'toLocaleString'] as const) {
    const original = Number.prototype[name] as (this: number, ...a: unknown[]) => string;
    t.mock.method(Number.prototype, name, function (this: number, ...args: unknown[]) {
      calls[name]++;
      return original.apply(this, args);
    });
  }
  let now = 0;
  const lines: string[] = [];
  const p = lineProgress({ write: (s) => lines.push(s) }, 'worker', { now: () => now, intervalMs: 5000 });
  for (let i = 1; i <= 1000; i++) {
    now = i;
    p.update(i, 2000, `${i} rounds`);
  }
  assert.equal(lines.length, 1);
  assert.equal(calls.toFixed, 2);
  p.finish();
  assert.equal(lines[1], 'worker: 1,000/2,000 (50%) · 1000/s · ETA 1s · 1000 rounds\n');
  assert.deepEqual(calls, { toFixed: 4, toLocaleString: 0 });
});
