// The drill-down data embedded in the report: every trajectory's drafts, the verifier report the
// model saw after each failed round, and word diffs between consecutive drafts. Strings (drafts,
// feedback, prompts) are stored once in a shared table and referenced by index, so fixed points and
// cycles (the same draft many times) and shared prompts cost one copy; identical indices also tell
// the browser, without hashing, which drafts are byte-identical repeats.
import type { RoundRecord, TrajectoryRecord } from '../store/types.ts';
import type { ControllerInfo, DrilldownLabels, TrajectoryLabel } from '../studies/kit/report-model.ts';
export type { DrilldownLabels };
import { encodeWordDiff, type EncodedDiff } from '../html/word-diff.ts';

/** Where the drill-down gets what is not in the trajectory record itself. */
interface DrilldownSources {
  /** Classification for the filters (outcome, repeat class, category). */
  label(t: TrajectoryRecord): TrajectoryLabel;
  /** The exact feedback text the model received after `round` (throw when it cannot be rendered). */
  feedback?(t: TrajectoryRecord, round: RoundRecord): string;
  /** The exact initial prompt of the trajectory's case. */
  initialPrompt?(t: TrajectoryRecord): string;
  /** The import format of an imported trajectory's run (its drafts as logged by its source), else null. */
  importedFrom?(t: TrajectoryRecord): string | null;
  /** Diff size limit (edited tokens) per pair of drafts. */
  maxDiffEditLength?: number;
  /** Called every 500 trajectories and at the end (diffs dominate the time on large sets). */
  onProgress?: (done: number, total: number) => void;
}

export interface PayloadRound {
  /** revision */
  v: number;
  /** draft text (index into strings) */
  t: number;
  /** joint success, 1 or 0 */
  j: 0 | 1;
  /** energy (null if not finite) */
  e: number | null;
  /** feedback text index; -1 when none was rendered (success, or unavailable) */
  fb: number;
  /** 1 when this feedback was sent to the model (a later revision exists), else 0 */
  sent: 0 | 1;
  /** word diff against the previous round's draft; omitted for revision 0 and identical drafts */
  d?: EncodedDiff;
}

export interface PayloadTrajectory {
  /** stable key: runId + '#' + caseIndex */
  id: string;
  run: string;
  caseId: string;
  ix: number;
  /** controller index into `controllers` */
  k: number;
  fam: string;
  src: string;
  status: string;
  why?: string;
  budget: number;
  outcome: TrajectoryLabel['outcome'];
  rc: string | null;
  cat: string | null;
  /** initial prompt index, -1 if unavailable */
  p: number;
  target?: number;
  anchors?: string[];
  /** why feedback or the prompt could not be rendered, if so */
  err?: string;
  /** imported run: its import format (the drafts are as logged by the source; revloop sent nothing) */
  imp?: string;
  rounds: PayloadRound[];
}

export interface DrilldownPayload {
  version: 1;
  controllers: ControllerInfo[];
  labels: DrilldownLabels;
  strings: string[];
  trajectories: PayloadTrajectory[];
}

function trajectoryKey(t: Pick<TrajectoryRecord, 'runId' | 'caseIndex'>): string {
  return `${t.runId}#${t.caseIndex}`;
}

/** Interns strings into one table; equal strings share an index. */
class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  intern(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function buildDrilldownPayload(
  trajectories: readonly TrajectoryRecord[],
  controllers: readonly ControllerInfo[],
  sources: DrilldownSources,
  labels: DrilldownLabels,
): DrilldownPayload {
  const table = new StringTable();
  const controllerIndex = new Map(controllers.map((c, i) => [c.name, i]));
  const out: PayloadTrajectory[] = [];
  for (const t of trajectories) {
    const k = controllerIndex.get(t.controller);
    if (k === undefined)
      throw new Error(`trajectory ${trajectoryKey(t)}: controller ${JSON.stringify(t.controller)} is not in the report's controller list`);
    const label = sources.label(t);
    const errors: string[] = [];
    let p = -1;
    if (sources.initialPrompt) {
      try {
        p = table.intern(sources.initialPrompt(t));
      } catch (e) {
        errors.push(`initial prompt unavailable: ${errorText(e)}`);
      }
    }
    const rounds: PayloadRound[] = [];
    let feedbackError: string | null = null;
    t.rounds.forEach((r, i) => {
      const textIndex = table.intern(r.text);
      const round: PayloadRound = {
        v: r.revision,
        t: textIndex,
        j: r.joint ? 1 : 0,
        e: Number.isFinite(r.energy) ? r.energy : null,
        fb: -1,
        sent: 0,
      };
      // A report exists for every failed draft; it reached the model only if another draft followed.
      if (!r.joint && sources.feedback && feedbackError === null) {
        try {
          round.fb = table.intern(sources.feedback(t, r));
          round.sent = i + 1 < t.rounds.length ? 1 : 0;
        } catch (e) {
          feedbackError = `verifier report unavailable: ${errorText(e)}`;
        }
      }
      if (i > 0) {
        const prev = t.rounds[i - 1];
        if (prev.text !== r.text) round.d = encodeWordDiff(prev.text, r.text, { maxEditLength: sources.maxDiffEditLength });
      }
      rounds.push(round);
    });
    if (feedbackError) errors.push(feedbackError);
    const entry: PayloadTrajectory = {
      id: trajectoryKey(t),
      run: t.runId,
      caseId: t.caseId,
      ix: t.caseIndex,
      k,
      fam: t.family,
      src: t.source,
      status: t.status,
      budget: t.budget,
      outcome: label.outcome,
      rc: label.repeatClass,
      cat: label.category,
      p,
      rounds,
    };
    if (t.incompleteReason) entry.why = t.incompleteReason;
    if (typeof t.case.target === 'number') entry.target = t.case.target;
    if (Array.isArray(t.case.anchors)) entry.anchors = t.case.anchors;
    if (errors.length) entry.err = errors.join('; ');
    const imported = sources.importedFrom?.(t);
    if (imported) entry.imp = imported;
    out.push(entry);
    if (sources.onProgress && (out.length % 500 === 0 || out.length === trajectories.length))
      sources.onProgress(out.length, trajectories.length);
  }
  return { version: 1, controllers: [...controllers], labels, strings: table.strings, trajectories: out };
}
