// The sim server's defaults for the options a caller leaves out (SimServerOptions): one home, read by
// `startSimServer` and by `revloop serve-sim` for its flags. A light module: the command line reads it at start.

/** Defaults of `SimServerOptions`. */
export const SIM_SERVER_DEFAULTS = Object.freeze({
  /** Address to bind: loopback. */
  host: '127.0.0.1',
  /** Port to listen on: 0 picks a free one. */
  port: 0,
  /** Artificial latency per generation, in ms (a spec's latency_ms wins). */
  latencyMs: 0,
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: 64 * 1024 * 1024,
});
