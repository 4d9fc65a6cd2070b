import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * How much later than the lock a process may seem to have started and still be its holder: the
 * start time is derived from the boot time, which drifts from the wall clock by its adjustments.
 */
const START_SLACK_MS = 60_000;

/**
 * When a process of this host started (ms since the epoch), from /proc (Linux); null where that
 * cannot be read. Field 22 of /proc/PID/stat counts clock ticks (USER_HZ, 100 on Linux) since boot.
 */
export function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!Number.isFinite(ticks) || !btime) return null;
    return Number(btime[1]) * 1000 + ticks * 10;
  } catch {
    return null;
  }
}

/**
 * Whether the process holding a lock is still alive. Only knowable on this host; a holder on
 * another host is assumed alive (a run lock is never stolen on a guess). `since` (the time the lock
 * was taken): a process with the holder's PID that started after it is not the holder but a
 * later process that was given the same PID (the holder is gone).
 */
export function processAlive(pid: number, host: string, since?: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const lockedAt = since === undefined ? NaN : Date.parse(since);
  const started = Number.isFinite(lockedAt) ? processStartMs(pid) : null;
  return started === null || started <= lockedAt + START_SLACK_MS;
}
