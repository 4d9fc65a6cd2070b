// GET /api/runs/:run: a run's page, its study's analysis of the run as it stands (made in the
// analysis worker when there is one, once per run and state, and kept for the last few).
import { sectionHtml } from '../../html/blocks.ts';
import { studyForKind } from '../../studies/registry.ts';
import type { RunResponse } from '../../viewer/api.ts';
import { analyseRun } from '../view-analysis.ts';
import type { BackendState } from './backend-state.ts';
import { apiSections, sectionsMark } from './rows.ts';

/** A run's page: its row, its analysis's sections and notes (with their HTML when asked). */
export async function runPage(state: BackendState, runId: string, options: { html: boolean }): Promise<RunResponse> {
  const { store, options: o, bootstrap, seed, analyses, analysing, summaryOf, rowOf } = state;
  const summary = await summaryOf(runId);
  const row = await rowOf(summary);
  const study = studyForKind(summary.kind);
  const key = `${runId}\n${summary.lastEventId}`;
  let a = analyses.get(key);
  if (!a) {
    if (study && summary.cases > 0 && summary.complete + summary.incomplete === 0)
      a = { sections: [], notes: ['no trajectory has finished yet: the analysis appears with the first one'], html: null };
    else {
      // The same run and state asked for twice meanwhile: one analysis.
      let pending = analysing.get(key);
      if (!pending) {
        const settings = { bootstrap, seed };
        pending = (o.worker ? o.worker.analyse(runId, summary.kind, settings) : analyseRun(store, runId, summary.kind, settings)).finally(
          () => analysing.delete(key),
        );
        analysing.set(key, pending);
      }
      a = { ...(await pending), html: null };
    }
    analyses.set(key, a);
  }
  if (options.html && a.html === null) a.html = a.sections.map(sectionHtml).join('\n');
  a.json ??= apiSections(a.sections);
  return {
    run: row,
    sections: a.json,
    ...(options.html ? { html: a.html ?? '' } : {}),
    notes: a.notes,
    simulated: sectionsMark(a.sections, summary.simulated),
    analysed_through: summary.lastEventId,
    bootstrap,
    seed,
  };
}
