// `report`: the whole report of a store — every study's sections and the trajectory browser —
// rendered to one HTML string. `revloop report` and `revloop demo` both use it; the store is only
// read.
import { renderReportPage } from '../report/render.ts';
import { reportPage, type DrilldownOptions } from '../report/page.ts';
import { analyzeStore, simulatedControllers, type AnalyzeStoreOptions } from './analyze.ts';
import { formatCount } from '../core/util/count.ts';
import type { LogHead } from '../store/integrity.ts';
import { headLine, unverifiedWarnings, type ReadVerification } from './verified.ts';

export interface StoreReportOptions extends AnalyzeStoreOptions, DrilldownOptions {
  /** Footer notes added to the study's own. */
  notes?: string[];
  title?: string;
  /** ISO timestamp printed in the report; leave undefined for byte-reproducible output. */
  generatedAt?: string;
  /** One-line status messages (what is being done). */
  say?: (line: string) => void;
}

export interface StoreReport {
  html: string;
  trajectories: number;
  runs: number;
  simulatedControllers: string[];
  /** Each run's head (its last event), also printed in the report's footer. */
  heads: Map<string, LogHead>;
  /** Runs read with allowUnverified that disagree with their events (the report's banner says so). */
  warnings: string[];
}

export async function buildStoreReport(store: string, o: StoreReportOptions): Promise<StoreReport> {
  // Said once the store is open and holds the runs: a wrong store is refused before any word of work.
  let verification: ReadVerification = { heads: new Map(), unverified: [] };
  const results = await analyzeStore(store, {
    ...o,
    onStart: (runs) => {
      o.onStart?.(runs);
      o.say?.(`report: analysing${o.bootstrap ? ` (${formatCount(o.bootstrap)} bootstrap resamples)` : ''}…`);
    },
    onVerified: (v) => {
      verification = v;
      o.onVerified?.(v);
    },
  });
  o.say?.('report: rendering drafts, diffs and verifier reports…');
  const warnings = unverifiedWarnings(verification);
  const heads = [...verification.heads].map(([runId, head]) => headLine(runId, head));
  const page = reportPage(results, { ...o, notes: [...(o.notes ?? []), ...heads], warnings });
  return {
    html: renderReportPage(page),
    trajectories: page.drilldown?.trajectories.length ?? 0,
    runs: results.reduce((n, r) => n + r.runIds.length, 0),
    simulatedControllers: simulatedControllers(results),
    heads: verification.heads,
    warnings,
  };
}
