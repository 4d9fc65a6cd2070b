// A bounded worker pool over an ordered job list: up to `concurrency` jobs in flight, started in
// list order, stopping early when the signal aborts. The first worker error stops the others and is
// rethrown once every worker has returned.
export async function runPool<J>(
  jobs: readonly J[],
  concurrency: number,
  signal: AbortSignal,
  work: (job: J) => Promise<void>,
  onError: (e: unknown) => void,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (!signal.aborted && !failure && next < jobs.length) {
      const job = jobs[next++];
      try {
        await work(job);
      } catch (e) {
        if (!failure) {
          failure = { error: e };
          onError(e);
        }
      }
    }
  };
  const n = Math.max(1, Math.min(concurrency, jobs.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}
