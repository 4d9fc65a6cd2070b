// Stopping long commands: the first Ctrl-C (SIGINT) or SIGTERM (what systemd, Docker and Kubernetes
// send to stop a process) aborts the work cleanly (the store stays consistent and the same command
// resumes); a second signal exits at once. A command stopped this way exits 130 after SIGINT, as a
// shell reports Ctrl-C, and 143 after SIGTERM.

let stoppedBy: 'SIGINT' | 'SIGTERM' | null = null;

/** The exit code of a command stopped by a signal: 143 after SIGTERM, else 130 (Ctrl-C). */
export function interruptedExitCode(): number {
  return stoppedBy === 'SIGTERM' ? 143 : 130;
}

export async function interruptible<T>(
  err: { write(s: string): unknown },
  what: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    interrupts++;
    if (interrupts > 1) {
      err.write(
        `\nrevloop: second ${signal === 'SIGINT' ? 'interrupt' : 'signal'}, exiting now (the store is consistent; resume with the same command)\n`,
      );
      process.exit(interruptedExitCode());
    }
    stoppedBy = signal;
    err.write(
      signal === 'SIGINT'
        ? `\nrevloop: stopping: ${what} (Ctrl-C again to quit at once)\n`
        : `\nrevloop: stopping (SIGTERM): ${what} (a second signal quits at once)\n`,
    );
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work(ac.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
