// The whole report of a store: revision trajectories and their analysis, plus the probe and agent
// studies stored next to them, rendered to one HTML string. `revloop report` and `revloop demo`
// both use it; the store is only read.
import type { AnalysisResult } from '../studies/revision/analysis/types.ts';

export interface StoreReportOptions {
  /** Run ids to include (revision, probe or agent runs); empty = every run in the store. */
  runIds?: readonly string[];
  budget?: number;
  bootstrap: number;
  seed: number;
  panels?: Record<string, string>;
  title?: string;
  /** ISO timestamp printed in the report; leave undefined for byte-reproducible output. */
  generatedAt?: string;
  /** Progress of the bootstrap and of the drill-down rendering, and one-line status messages. */
  onAnalysisProgress?: (p: { stage: string; done: number; total: number }) => void;
  onRenderProgress?: (done: number, total: number) => void;
  say?: (line: string) => void;
}

export interface StoreReport {
  html: string;
  trajectories: number;
  analysis: AnalysisResult;
}

export async function buildStoreReport(storePath: string, o: StoreReportOptions): Promise<StoreReport> {
  const say = o.say ?? (() => undefined);
  // Probe and agent runs (src/probe/study-sections.ts) live in the same store; split them off.
  const study = await import('../studies/study-sections.ts');
  const requested = [...(o.runIds ?? [])];
  const parts = study.partitionRunIds(storePath, requested);
  const onlyStudy = requested.length
    ? parts.revision.length === 0
    : parts.all.probe.length + parts.all.agent.length > 0 && !(await revisionRunCount(storePath));
  const { loadFromStore } = await import('../studies/revision/from-store.ts');
  const { trajectories, variants, runDetails } = onlyStudy
    ? { trajectories: [], variants: new Map<string, never>(), runDetails: new Map<string, Record<string, string>>() }
    : await loadFromStore(storePath, requested.length ? parts.revision : []);
  say(
    `report: ${trajectories.length.toLocaleString('en')} trajectories from ${runDetails.size} run(s); analysing${o.bootstrap ? ` (${o.bootstrap.toLocaleString('en')} bootstrap resamples)` : ''}…`,
  );
  const { analyzeTrajectories } = await import('../studies/revision/analysis/index.ts');
  const analysis = analyzeTrajectories(trajectories, {
    budget: o.budget,
    bootstrap: o.bootstrap,
    seed: o.seed,
    panels: o.panels ?? {},
    onProgress: o.onAnalysisProgress,
  });

  say('report: rendering drafts, diffs and verifier reports…');
  const { getFamily } = await import('../core/verify/index.ts');
  const { renderReport } = await import('../report/index.ts');
  const extraSections = study.studyHtmlSections(
    study.loadStudySections(storePath, { resamples: o.bootstrap, seed: o.seed, runIds: parts.study }),
  );
  const html = renderReport(trajectories, analysis, {
    extraSections,
    onProgress: o.onRenderProgress,
    title: o.title,
    generatedAt: o.generatedAt,
    runDetails,
    getFamily,
    variantOf: (t) => variants.get(t.runId) ?? 'baseline',
  });
  return { html, trajectories: trajectories.length, analysis };
}

/** Revision runs in the store (0 when it has none). */
async function revisionRunCount(storePath: string): Promise<number> {
  const { openStore } = await import('../store/index.ts');
  const store = openStore(storePath, { readonly: true });
  try {
    return store.runIds().length;
  } finally {
    store.close();
  }
}
