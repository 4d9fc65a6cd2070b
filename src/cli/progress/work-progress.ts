// A progress line for long probe and rollout work on stderr: one live line on a terminal, a plain
// line every few seconds otherwise (so logs stay readable).
import { formatDuration } from './run-progress.ts';

export interface ProgressWriter {
  write(s: string): unknown;
  isTTY?: boolean;
}

export interface LineProgress {
  /** done/total plus extra fields; throttled. */
  update(done: number, total: number, extra?: string): void;
  finish(): void;
}

export function lineProgress(
  out: ProgressWriter | null,
  label: string,
  options: { intervalMs?: number; now?: () => number } = {},
): LineProgress {
  if (!out) return { update() {}, finish() {} };
  const now = options.now ?? Date.now;
  const tty = !!out.isTTY;
  const interval = tty ? 150 : (options.intervalMs ?? 5000);
  const start = now();
  let last = -Infinity;
  let drawn = false;
  let pending: string | null = null;
  const line = (done: number, total: number, extra?: string) => {
    const elapsed = Math.max((now() - start) / 1000, 1e-3);
    const rate = done / elapsed;
    const eta = done >= total ? '0s' : done > 0 ? formatDuration((total - done) / rate) : '?';
    const pct = total ? ((100 * done) / total).toFixed(0) : '100';
    return `${label}: ${done}/${total} (${pct}%) · ${rate >= 10 ? rate.toFixed(0) : rate.toFixed(2)}/s · ETA ${eta}${extra ? ' · ' + extra : ''}`;
  };
  return {
    update(done, total, extra) {
      const text = line(done, total, extra);
      pending = text;
      if (now() - last < interval && done < total) return;
      last = now();
      pending = null;
      out.write(tty ? `\r\x1b[2K${text}` : `${text}\n`);
      drawn = true;
    },
    finish() {
      if (pending) out.write(tty ? `\r\x1b[2K${pending}` : `${pending}\n`);
      if (tty && (drawn || pending)) out.write('\n');
      pending = null;
    },
  };
}
