// Readers verify what they read (docs/store.md, "Readers verify what they read"): `analyze`,
// `report`, `export` and `view` check the hash chain and every derived row of each run they show
// against its events (store/integrity.ts) and refuse a run that disagrees, naming it and what is
// wrong. With --allow-unverified they read it anyway and every output says so. They also learn
// each run's head (its last event), which export and report print: kept outside the store, it is
// what `audit --expect-head` holds a later log against.
import { markErrorClass, UserError } from '../core/errors.ts';
import { checkRunSlices, integrityLines, type LogHead } from '../store/integrity.ts';
import type { RunStore } from '../store/store.ts';

/** A run that failed the check, with its first problems. */
export interface UnverifiedRun {
  runId: string;
  problems: string[];
}

/** What the readers' check found: each run's head, and the runs that disagree with their events. */
export interface ReadVerification {
  heads: Map<string, LogHead>;
  unverified: UnverifiedRun[];
}

/** Options of a reader: read runs that fail the check (each output then says so). */
export interface VerifyOptions {
  allowUnverified?: boolean;
}

/** The store disagrees with its own events (a refused read; exit 1, like a failed audit). */
export class IntegrityError extends UserError {
  /** Whether `e` is an IntegrityError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<IntegrityError>(this, 'revloop.error.IntegrityError');
  readonly unverified: UnverifiedRun[];

  constructor(message: string, options: { unverified: UnverifiedRun[]; cause?: unknown }) {
    super(message, { ...options, code: 'E_INTEGRITY' });
    this.unverified = options.unverified;
    this.name = 'IntegrityError';
  }
}

/** One line for people per failed run (for warnings on every output). */
export function unverifiedWarnings(v: ReadVerification): string[] {
  return v.unverified.map(
    (u) =>
      `UNVERIFIED: run '${u.runId}' disagrees with its own events (${u.problems[0]}${u.problems.length > 1 ? '; …' : ''}); \`revloop audit --run ${u.runId}\` lists every discrepancy`,
  );
}

/** The head of a run as one line (what export and report print). */
export function headLine(runId: string, head: LogHead): string {
  return `run '${runId}': log head seq ${head.seq} sha256 ${head.hash} (\`revloop audit --run ${runId} --expect-head ${head.hash}\` finds a log shortened since)`;
}

/**
 * Checks the runs a reader is about to show. Throws an IntegrityError naming every run that
 * disagrees unless `allowUnverified`; otherwise returns them with every run's head.
 */
export async function verifyRuns(store: RunStore, runIds: readonly string[], o: VerifyOptions = {}): Promise<ReadVerification> {
  const heads = new Map<string, LogHead>();
  const unverified: UnverifiedRun[] = [];
  for (const runId of runIds) {
    // A slice of the run at a time: a reader's memory does not grow with the size of a run.
    const r = await checkRunSlices(store, runId);
    if (r.head) heads.set(runId, r.head);
    if (!r.ok) unverified.push({ runId, problems: integrityLines(r, 3) });
  }
  if (unverified.length && !o.allowUnverified) {
    const lines = unverified.flatMap((u) => [`run '${u.runId}':`, ...u.problems.map((p) => `  ${p}`)]);
    throw new IntegrityError(
      `${unverified.length === 1 ? 'a run disagrees' : `${unverified.length} runs disagree`} with ${unverified.length === 1 ? 'its' : 'their'} own events in ${store.location}; nothing was read:\n${lines.join('\n')}\n` +
        `\`revloop audit --run ${unverified[0].runId}\` lists every discrepancy; --allow-unverified reads ${unverified.length === 1 ? 'it' : 'them'} anyway (every output then says so)`,
      { unverified },
    );
  }
  return { heads, unverified };
}
