// Per-model-instance admission control: at most `concurrency` attempts in flight, and optionally at
// most `rpm` attempt starts in any sliding window (60 s by default). Waiters are served in FIFO order
// so that requests start in the order they were issued.
import type { Clock } from '../options.ts';
import { realClock } from '../options.ts';

export class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency must be at least 1 (got ${limit})`);
  }

  get inFlight(): number {
    return this.active;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(grant);
    });
    // The releasing holder handed its slot over: `active` is unchanged.
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}

/** Sliding-window limiter on attempt starts. */
export class RateLimiter {
  private readonly starts: number[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly perWindow: number,
    readonly windowMs = 60_000,
    private readonly clock: Clock = realClock,
  ) {
    if (!(perWindow >= 1)) throw new RangeError(`rpm must be at least 1 (got ${perWindow})`);
  }

  /** Resolves when one more start fits in the window; starts are granted one at a time, in order. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.chain.then(() => this.waitForSlot(signal));
    // A rejected (aborted) waiter must not block the ones behind it.
    this.chain = turn.catch(() => undefined);
    return turn;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (this.starts.length && this.starts[0] <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.perWindow) {
        this.starts.push(now);
        return;
      }
      await this.clock.sleep(this.starts[0] + this.windowMs - now, signal);
    }
  }
}
