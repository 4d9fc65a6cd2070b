import { hostname } from 'node:os';

/**
 * Whether the process holding a lock is still alive. Only knowable on this host; a holder on
 * another host is assumed alive (a run lock is never stolen on a guess).
 */
export function processAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
