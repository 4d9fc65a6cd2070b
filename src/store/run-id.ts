// What a run id may be (docs/store.md, "Run ids"): it names a run in commands, file names, URLs and
// every listing, so it is non-empty, at most 200 characters, without surrounding spaces, and made of
// printable characters only — no controls (NUL, newline, ESC), no format characters (bidi
// overrides, zero-width), no line separators, no lone surrogates. Checked when a run is created;
// runs stored before this rule keep their ids and open and read as before (copies keep them too).
// Ids revloop makes itself use [A-Za-z0-9._:-] only, well inside the rule.
import { UsageError } from '../core/errors.ts';

/** The longest run id a new run may have (characters). */
export const MAX_RUN_ID_LENGTH = 200;

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\ufffd]/u;

/** Why a run id is refused, or null when it is fine. */
export function runIdProblem(runId: string): string | null {
  if (typeof runId !== 'string' || runId === '') return 'is empty';
  if (runId.length > MAX_RUN_ID_LENGTH) return `is ${runId.length} characters long; at most ${MAX_RUN_ID_LENGTH}`;
  if (runId.trim() !== runId) return 'starts or ends with a space';
  // In a u-mode pattern a lone surrogate is a code point of its own, of category Cs.
  const m = UNPRINTABLE.exec(runId);
  if (m) {
    const cp = runId.codePointAt(m.index)!;
    return `holds an unprintable character (U+${cp.toString(16).toUpperCase().padStart(4, '0')}) at character ${m.index + 1}`;
  }
  return null;
}

/** Refuses a run id a new run may not have (a UsageError naming the option `runId`). */
export function checkNewRunId(runId: string): void {
  const problem = runIdProblem(runId);
  if (problem)
    throw new UsageError(
      `run id ${JSON.stringify(runId.slice(0, 80))} ${problem}; a run id is printable text (letters, digits, . _ : - and the like)`,
      { option: 'runId' },
    );
}
