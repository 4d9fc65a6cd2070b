// A virtual clock: sleep() returns at once, records the requested wait and advances now().
import type { Clock } from '../../../src/models/options.ts';

export interface FakeClock extends Clock {
  sleeps: number[];
  advance(ms: number): void;
}

export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      t += Math.max(0, ms);
    },
    advance(ms: number) {
      t += ms;
    },
  };
}
