// Progress for people, on stderr: on a terminal one live line that rewrites itself; otherwise a
// plain line every few seconds, so logs stay readable. Every long command reports through here:
// done/total, rate, ETA and whatever the work adds (success so far, cache savings, …).
import { simulatedPrefix } from '../core/simulated.ts';
import { formatCount } from '../core/util/count.ts';
import { terminalSafe, writeRaw } from './output.ts';
import { outputWidth } from './terminal.ts';

interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const width = (s: string) => Array.from(s).length;

/**
 * A progress line cut to `columns`: its ` · `-separated fields are dropped, rates first and then
 * the last, until it fits (the first field, what and how far, stays); what still does not fit ends
 * in `…`. A line wider than the terminal would leave a stale copy behind at every redraw.
 */
export function fitLine(text: string, columns: number | undefined): string {
  if (columns === undefined || width(text) <= columns) return text;
  const parts = text.split(' · ');
  while (parts.length > 1 && width(parts.join(' · ')) > columns) {
    const rate = parts.findLastIndex((p, i) => i > 0 && /\/s$/.test(p));
    parts.splice(rate > 0 ? rate : parts.length - 1, 1);
  }
  const line = parts.join(' · ');
  return width(line) <= columns
    ? line
    : `${Array.from(line)
        .slice(0, columns - 1)
        .join('')}…`;
}

interface LineProgress {
  /** done/total plus extra fields; throttled. */
  update(done: number, total: number, extra?: string): void;
  /** Prints the last pending line and ends a rewritten terminal line; safe to call more than once. */
  finish(): void;
}

interface LineProgressOptions {
  /** Plain mode: at most one line per this many ms (default 5 s). */
  intervalMs?: number;
  now?: () => number;
  /** Work on a simulated controller: every line says so. */
  simulated?: boolean;
  /** Units after the rate (default "/s"). */
  unit?: string;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function rate(x: number): string {
  return x >= 10 ? x.toFixed(0) : x.toFixed(2);
}

/**
 * The one throttled writer behind every progress display: on a terminal it redraws one line in
 * place, otherwise it writes a plain line at most every `intervalMs`; the last state is always
 * shown by `finish()`. Lines are composed only when written (docs/performance.md#start-up): a worker
 * reports after every round.
 */
function throttledLine(out: ProgressStream, intervalMs: number, now: () => number) {
  const tty = !!out.isTTY;
  const interval = tty ? 150 : intervalMs;
  // On a terminal one column is kept free: a line that fills the last column wraps on some terminals.
  const fitted = outputWidth(false, out);
  const columns = fitted === undefined ? undefined : tty ? fitted - 1 : fitted;
  let last = -Infinity;
  let drawn = false;
  let pending: (() => string) | null = null;
  const write = (line: string) => {
    // Escaped here (names in the line) so that the cursor controls can be written as they are.
    const text = fitLine(terminalSafe(line), columns);
    writeRaw(out, tty ? `\r\x1b[2K${text}` : `${text}\n`);
    drawn = true;
    pending = null;
    last = now();
  };
  return {
    /** Shows the line `compose` makes unless one was shown within the interval (`force`: always, e.g. the final state). */
    show(compose: () => string, force: boolean) {
      pending = compose;
      if (force || now() - last >= interval) write(compose());
    },
    finish() {
      if (pending) write(pending());
      if (tty && drawn) out.write('\n');
      drawn = false;
    },
  };
}

/** A progress line labelled `label` (null stream: silent). */
export function lineProgress(out: ProgressStream | null, label: string, options: LineProgressOptions = {}): LineProgress {
  if (!out) return { update() {}, finish() {} };
  const now = options.now ?? Date.now;
  const start = now();
  const prefix = simulatedPrefix(options.simulated ?? false);
  const line = throttledLine(out, options.intervalMs ?? 5000, now);
  return {
    update(done, total, extra) {
      // The state as of this call, written now or (held back) by finish().
      const at = now();
      line.show(
        () => {
          const elapsed = Math.max((at - start) / 1000, 1e-3);
          const r = done / elapsed;
          const eta = done >= total ? '0s' : done > 0 ? formatDuration((total - done) / r) : '?';
          const pct = total ? ((100 * done) / total).toFixed(0) : '100';
          return `${prefix}${label}: ${formatCount(done)}/${formatCount(total)} (${pct}%) · ${rate(r)}${options.unit ?? '/s'} · ETA ${eta}${extra ? ' · ' + extra : ''}`;
        },
        done >= total && !out.isTTY,
      );
    },
    finish: () => line.finish(),
  };
}

/** What a revision run reports (engine/trajectory-run.ts's RunProgress). */
export interface TrajectoryProgress {
  total: number;
  skipped: number;
  done: number;
  successes: number;
  incomplete: number;
  rounds: number;
}

/** The run line: `60/100 done (20 before) · success 50.0% · 4.00 traj/s · 12.0 rounds/s · ETA 10s`. */
export function trajectoryLine(p: TrajectoryProgress, elapsedSeconds: number, simulated: boolean): string {
  const finished = p.skipped + p.done;
  const elapsed = Math.max(elapsedSeconds, 1e-3);
  const r = p.done / elapsed;
  const left = p.total - finished;
  const parts = [
    `${finished}/${p.total} done${p.skipped ? ` (${p.skipped} before)` : ''}`,
    `success ${finished ? ((100 * p.successes) / finished).toFixed(1) : '0.0'}%`,
    `${rate(r)} traj/s`,
    `${(p.rounds / elapsed).toFixed(1)} rounds/s`,
    left === 0 ? 'ETA 0s' : `ETA ${p.done ? formatDuration(left / r) : '?'}`,
  ];
  if (p.incomplete) parts.push(`${p.incomplete} incomplete`);
  return simulatedPrefix(simulated) + parts.join(' · ');
}

/** Progress of a run of trajectories (plain lines every 10 s when not on a terminal). */
export function trajectoryProgress(
  out: ProgressStream,
  options: LineProgressOptions & { label?: string } = {},
): { update(p: TrajectoryProgress): void; finish(): void } {
  const now = options.now ?? Date.now;
  const start = now();
  const line = throttledLine(out, options.intervalMs ?? 10_000, now);
  const label = options.label ? `${options.label}: ` : '';
  return {
    update(p) {
      const elapsed = (now() - start) / 1000;
      // A held-back line shows the state as reported, even should the caller reuse its object.
      const state = { ...p };
      line.show(() => label + trajectoryLine(state, elapsed, options.simulated ?? false), p.skipped + p.done === p.total && !out.isTTY);
    },
    finish: () => line.finish(),
  };
}
