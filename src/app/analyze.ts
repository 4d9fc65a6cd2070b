// `analyze` and `report` share this: the runs of a store, grouped by the study that owns them,
// each group analysed by its study. Read-only.
import { UserError } from '../core/errors.ts';
import type { StudyAnalysisOptions, TextOptions } from '../studies/kit/study.ts';
import { runsByStudy } from '../studies/registry.ts';
import { openStore } from '../store/store.ts';
import type { StudyResult } from '../report/page.ts';
import { analysisJson } from '../studies/revision/analysis/json.ts';
import { verifyRuns, type ReadVerification, type VerifyOptions } from './verified.ts';

export interface AnalyzeStoreOptions extends StudyAnalysisOptions, VerifyOptions {
  /** Runs to analyse (any study); empty = every run in the store. */
  runIds?: readonly string[];
  /** Called once the store is open and the runs are found, before the analysis starts. */
  onStart?: (runs: number) => void;
  /** What the check of the runs read found (their heads; with allowUnverified, the runs that failed). */
  onVerified?: (v: ReadVerification) => void;
}

/** Every requested run analysed by its study, in registry order. */
export async function analyzeStore(store: string, o: AnalyzeStoreOptions): Promise<StudyResult[]> {
  const s = await openStore(store, { readonly: true });
  try {
    const groups = await runsByStudy(s, o.runIds ?? []);
    if (!groups.length)
      throw new UserError(
        // The store's own location: a PostgreSQL URL's password is not in it.
        `${s.location}: the store holds no runs yet (start one with \`revloop run\`, \`revloop probe\` or \`revloop agent\` --store ${s.location}, or try \`revloop demo\`)`,
      );
    o.onStart?.(groups.reduce((n, g) => n + g.runIds.length, 0));
    // Nothing is analysed from a run whose tables or chain disagree with its events (app/verified.ts).
    o.onVerified?.(
      await verifyRuns(
        s,
        groups.flatMap((g) => g.runIds),
        o,
      ),
    );
    const results: StudyResult[] = [];
    for (const { study, runIds } of groups) results.push({ study, runIds, analysis: await study.analyze(s, runIds, o) });
    return results;
  } finally {
    await s.close();
  }
}

/** The `analyze --json` document: the revision study's keys at the top level, every other study under its id. */
export function analysisDocument(results: readonly StudyResult[], unverified: readonly string[] = []): string {
  // Read with --allow-unverified: the document says so first.
  const doc: Record<string, unknown> = unverified.length ? { unverified: [...unverified] } : {};
  for (const r of results) {
    const json = r.study.toJson(r.analysis);
    if (r.study.json === 'top-level') Object.assign(doc, json);
    else doc[r.study.id] = json;
  }
  return analysisJson(doc);
}

/** Terminal tables of every study, in order; with `width`, fitted to that many columns. */
export function analysisText(results: readonly StudyResult[], options: TextOptions = {}): string {
  return results.map((r) => r.study.renderText(r.analysis, options)).join('\n');
}

/** Simulated controllers named across all studies. */
export function simulatedControllers(results: readonly StudyResult[]): string[] {
  return [...new Set(results.flatMap((r) => r.study.simulatedControllers(r.analysis)))];
}
