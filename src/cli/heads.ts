// A run's head as the commands print it (`run`, `audit`, `export`, `report`): the hash of its last
// event, to keep outside the store, with the audit that holds a later log against it, written as
// the user would type it (`npx revloop …` under npx).
import { redactLocation } from '../store/store.ts';
import { commandLine } from './invocation.ts';

export function headLine(store: string, runId: string, head: { seq: number; hash: string }): string {
  const audit = commandLine(['audit', '--store', redactLocation(store), '--run', runId, '--expect-head', head.hash]);
  return `run '${runId}': log head seq ${head.seq} sha256 ${head.hash} (\`${audit}\` finds a log shortened since)`;
}
