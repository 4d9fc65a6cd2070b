// How a trajectory run ends on the terminal (`run`, `experiment`, `worker`): a run that stopped
// early says how far it got and exits 130 or 143 (stopped by Ctrl-C or SIGTERM, signals.ts) or 3
// (stopped after provider failures); protocol-incomplete trajectories are retried by the same command.
import { layOutCommand } from './invocation.ts';
import { interruptedExitCode } from './signals.ts';

type Out = { write(s: string): unknown };

interface Stopped {
  reason: 'interrupted' | 'provider-failures';
  message: string;
}

/** The exit code of a run that stopped early. */
export function stoppedExitCode(stopped: Stopped): number {
  return stopped.reason === 'interrupted' ? interruptedExitCode() : 3;
}

/** The first words of the line that says a run stopped early. */
export function stoppedWord(stopped: Stopped): string {
  return stopped.reason === 'interrupted' ? 'interrupted' : 'stopped';
}

/** Says a run stopped early, how many trajectories are finished, and how to resume; returns the exit code. */
export function reportStopped(
  out: Out,
  stopped: Stopped,
  progress: { skipped: number; done: number; total: number },
  tag: string,
  again: string,
): number {
  out.write(
    `${stoppedWord(stopped)}: ${stopped.message}; ${progress.skipped + progress.done} of ${progress.total} trajectories finished${tag}\n`,
  );
  out.write(`the store is consistent; resume with the same command:\n${layOutCommand(again)}\n`);
  return stoppedExitCode(stopped);
}

/** Says how to retry a run's protocol-incomplete trajectories (none: says nothing). */
export function reportIncomplete(out: Out, incomplete: number, again: string): void {
  if (incomplete)
    out.write(
      `${incomplete} trajectories are protocol-incomplete (provider failures); run the same command again to retry them:\n${layOutCommand(again)}\n`,
    );
}
