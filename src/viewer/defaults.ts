// The viewer server's defaults for the options a caller leaves out (ViewerServerOptions): one home,
// read by the server and by `revloop view` for its flags. A light module: the command line reads it at start.

/** Defaults of `ViewerServerOptions`. */
export const VIEWER_SERVER_DEFAULTS = Object.freeze({
  /** Address to bind: loopback. */
  host: '127.0.0.1',
  /** Port to listen on (0 picks a free one). */
  port: 8300,
  /** How often the event stream polls the store, in ms. */
  pollMs: 250,
  /** Most events read per poll and client. */
  batch: 500,
  /** Event streams open at once: each replays the log from its cursor, so their number is bounded. */
  maxStreams: 16,
});
