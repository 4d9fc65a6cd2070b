// The one reconnection policy of the commands that work on a PostgreSQL store for a long time
// (`revloop worker`, and `revloop run` as one worker on its own run). A lost database connection (a
// server restart or failover, a network cut) ends the session the way a kill would: its in-flight
// generations are abandoned, and its leases are free at once since its database session is gone.
// The command then opens the store again and starts a new session, backing off from 1 s to 15 s,
// for up to `--reconnect-seconds` (default 300) without a connection. Only after a session has
// connected: a server that cannot be reached at start is an error to report at once (a wrong host
// should not wait five minutes).
import { StoreError } from '../core/errors.ts';
import { isConnectionLoss, rootMessage } from '../store/connection-loss.ts';
import { openStore, redactLocation, type RunStore } from '../store/store.ts';
import { RUN_DEFAULTS } from './defaults.ts';

export interface ReconnectOptions {
  /** The store's location (shown redacted). */
  store: string;
  /**
   * PostgreSQL: after the connection to the database is lost, keep trying to reconnect for this long,
   * in seconds, then give up (default RUN_DEFAULTS.reconnectSeconds, 300; 0: give up at the first loss).
   */
  reconnectSeconds?: number;
  /** What to do once the server is back, ending the give-up message ("start the worker again"). */
  restart: string;
  signal?: AbortSignal;
  onNote?(text: string): void;
}

export interface SessionControl {
  /** The session is connected and working: a later loss is reconnected, and the give-up clock restarts. */
  connected(): void;
}

/**
 * Runs `session` on a freshly opened store, again on a new one after each lost connection (once
 * `connected()` was called), and closes the store. `lost()` is told of each loss before the pause
 * (to carry counters over); `stoppedWhileDown(message)` answers for a stop requested (the signal)
 * while the server is away, given what the driver last said.
 */
export async function withReconnection<T>(
  o: ReconnectOptions,
  session: (store: RunStore, control: SessionControl) => Promise<T>,
  on: { lost?(): void; stoppedWhileDown(message: string): T },
): Promise<T> {
  const shown = redactLocation(o.store);
  const reconnectMs = (o.reconnectSeconds ?? RUN_DEFAULTS.reconnectSeconds) * 1000;
  let everConnected = false;
  let lostSince: number | null = null;
  let retries = 0;
  const control: SessionControl = {
    connected() {
      everConnected = true;
      lostSince = null;
      retries = 0;
    },
  };
  for (;;) {
    let store: RunStore | null = null;
    let done: { value: T } | null = null;
    try {
      store = await openStore(o.store);
      done = { value: await session(store, control) };
    } catch (e) {
      if (!everConnected || !isConnectionLoss(e)) throw e;
      const message = rootMessage(e);
      const first = lostSince === null;
      lostSince ??= Date.now();
      if (Date.now() - lostSince >= reconnectMs)
        throw new StoreError(
          `${shown}: lost the connection to PostgreSQL and ${reconnectMs ? `could not reconnect within ${reconnectMs / 1000} s` : 'did not reconnect (--reconnect-seconds 0)'} (last: ${message}); the rounds committed so far are kept: ${o.restart} once the server is back`,
          { location: shown, reason: 'unreachable', cause: e },
        );
      on.lost?.();
      if (o.signal?.aborted) return on.stoppedWhileDown(message);
      const waitMs = Math.min(1000 * 2 ** retries++, 15_000);
      o.onNote?.(
        first
          ? `lost the connection to the database (${message}); generations in flight are abandoned, committed rounds are kept; reconnecting in ${waitMs / 1000} s`
          : `still cannot reach the database (${message}); next try in ${waitMs / 1000} s`,
      );
      if (!(await pause(waitMs, o.signal))) return on.stoppedWhileDown(message);
    } finally {
      // A store whose server went away may never answer the goodbye; a healthy one closes as usual, errors included.
      if (store && !done) await closeWithin(store, 5000);
    }
    if (done) {
      await store!.close();
      return done.value;
    }
  }
}

/** Closes a store, waiting at most `ms`: a server that went away may never answer the goodbye. */
async function closeWithin(store: RunStore, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([store.close().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Waits `ms`; false when `signal` aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
