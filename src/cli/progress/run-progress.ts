// Progress of a run for people: on a terminal one live line (done/total, success so far, rate,
// ETA), otherwise a plain line every few seconds, so logs stay readable.
import type { RunProgress } from '../../engine/run.ts';

export interface ProgressSink {
  write(s: string): unknown;
}

export interface ProgressOptions {
  tty: boolean;
  /** "SIMULATED" is shown on every line of a simulated run. */
  simulated: boolean;
  /** Plain mode: at most one line per this many ms (default 10 s). */
  intervalMs?: number;
  now?: () => number;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function progressLine(p: RunProgress, nowMs: number, simulated: boolean): string {
  const finished = p.skipped + p.done;
  const elapsed = Math.max((nowMs - p.startedAtMs) / 1000, 1e-3);
  const rate = p.done / elapsed;
  const left = p.total - finished;
  const parts = [
    `${finished}/${p.total} done${p.skipped ? ` (${p.skipped} before)` : ''}`,
    `success ${finished ? ((100 * p.successes) / finished).toFixed(1) : '0.0'}%`,
    `${rate >= 10 ? rate.toFixed(0) : rate.toFixed(2)} traj/s`,
    `${(p.rounds / elapsed).toFixed(1)} rounds/s`,
    left === 0 ? 'ETA 0s' : `ETA ${p.done ? formatDuration(left / rate) : '?'}`,
  ];
  if (p.incomplete) parts.push(`${p.incomplete} incomplete`);
  return (simulated ? '[SIMULATED] ' : '') + parts.join(' · ');
}

export function createProgressReporter(out: ProgressSink, options: ProgressOptions): { update(p: RunProgress): void; finish(): void } {
  const now = options.now ?? Date.now;
  const interval = options.tty ? 100 : (options.intervalMs ?? 10_000);
  let last: RunProgress | null = null;
  let shown: RunProgress | null = null;
  let lastShown = -Infinity;
  let drawn = false;
  const show = (p: RunProgress) => {
    shown = p;
    const line = progressLine(p, now(), options.simulated);
    if (options.tty) out.write(`\r\x1b[2K${line}`);
    else out.write(`${line}\n`);
    drawn = true;
    lastShown = now();
  };
  return {
    update(p) {
      last = p;
      const complete = p.skipped + p.done === p.total;
      if (now() - lastShown >= interval || (complete && !options.tty)) show(p);
    },
    finish() {
      if (last && last !== shown) show(last);
      if (options.tty && drawn) out.write('\n');
    },
  };
}
