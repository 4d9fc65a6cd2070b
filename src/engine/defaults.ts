// What the engine does with a run request's or a worker's options left unset: one home, read by
// run.ts and worker.ts, and by the layers above that default the same options (app, cli).

/** Defaults of the `RunRequest` and `WorkerOptions` fields a caller leaves out. */
export const ENGINE_DEFAULTS = Object.freeze({
  /** Trajectories in flight at once. */
  concurrency: 1,
  /** Stores with leases (PostgreSQL): how long a claim on a trajectory lasts without renewal, in seconds. */
  leaseSeconds: 60,
  /** How long to wait for in-flight calls once stopping, before abandoning them (ms). */
  abandonAfterMs: 2000,
  /** Protocol-incomplete trajectories in a row that stop the run (0 = never). */
  maxConsecutiveFailures: 0,
});
