// `report`: the whole report of a store — every study's sections and the trajectory browser —
// rendered to one HTML string. `revloop report` and `revloop demo` both use it; the store is only
// read.
import { renderReportPage } from '../report/render.ts';
import { reportPage, type DrilldownOptions } from '../report/page.ts';
import { analyzeStore, simulatedControllers, type AnalyzeStoreOptions } from './analyze.ts';
import { formatCount } from '../core/util/count.ts';

export interface StoreReportOptions extends AnalyzeStoreOptions, DrilldownOptions {
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
}

export async function buildStoreReport(store: string, o: StoreReportOptions): Promise<StoreReport> {
  // Said once the store is open and holds the runs: a wrong store is refused before any word of work.
  const results = await analyzeStore(store, {
    ...o,
    onStart: (runs) => {
      o.onStart?.(runs);
      o.say?.(`report: analysing${o.bootstrap ? ` (${formatCount(o.bootstrap)} bootstrap resamples)` : ''}…`);
    },
  });
  o.say?.('report: rendering drafts, diffs and verifier reports…');
  const page = reportPage(results, o);
  return {
    html: renderReportPage(page),
    trajectories: page.drilldown?.trajectories.length ?? 0,
    runs: results.reduce((n, r) => n + r.runIds.length, 0),
    simulatedControllers: simulatedControllers(results),
  };
}
