// Ctrl-C for long commands: the first interrupt aborts the work cleanly (the store stays
// consistent and the same command resumes), a second one exits at once.
export async function interruptible<T>(
  err: { write(s: string): unknown },
  what: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) {
      err.write('\nrevloop: second interrupt, exiting now (the store is consistent; resume with the same command)\n');
      process.exit(130);
    }
    err.write(`\nrevloop: stopping: ${what} (Ctrl-C again to quit at once)\n`);
    ac.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await work(ac.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
