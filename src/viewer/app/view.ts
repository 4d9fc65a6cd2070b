/* revloop view: what the app shell (main.ts) and its views (runs, run, compare) agree on. */
import type { LiveEvent } from '../api.ts';

/** A view's URL state: the query's parameters. */
export type Params = Record<string, string | undefined>;

/** What a view may ask of the shell. */
export interface Shell {
  /** Shows `path` with query `params` (empty values left out); `replace` rewrites the current history entry. */
  navigate(path: string, params: Params, options?: { replace?: boolean }): void;
  /** Runs `fn` at most once per `ms` for a key (the latest call wins; no call is lost). */
  throttle(key: string, fn: () => unknown, ms: number): void;
  /** Starts the event stream after this cursor (the first listing's; later calls are ignored). */
  setCursor(cursor: number): void;
}

/** A mounted view. */
export interface View {
  /** The first load, with the URL's parameters. */
  load(params: Params): Promise<void>;
  /** The query changed (same path): update in place. */
  update(params: Params): void;
  /** An event of the store's log. */
  onEvent(e: LiveEvent): void;
  /** A key outside text fields; true when the view handled it. */
  onKey(ev: KeyboardEvent): boolean;
  destroy(): void;
}
