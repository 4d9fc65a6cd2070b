// The corrective-gain probe study as a registered study: its runs' analysis (G and its
// decomposition, repetition readouts, manipulations) as terminal text, JSON and report sections.
import type { Study } from '../kit/study.ts';
import { meanCell, simulatedMark, type Section } from '../kit/sections.ts';
import { analyzeProbeStore, type ProbeAnalysis } from './probe-analysis.ts';
import { MAIN_MEASURES, MANIPULATION_MEASURES, renderProbeAnalysis } from './probe-tables.ts';
import { PROBE_RUN_KIND, ProbeStore } from './probe-store.ts';
import type { ScoreRecord } from './probe-types.ts';
import { readRecords, recordKeys } from '../../store/study-runs.ts';
import { lastUpdate, sessionRunRow, shortTime, studyRunStatus } from '../kit/run-status.ts';
import { baseLabel } from '../../core/simulated.ts';
import { formatCount } from '../../core/util/count.ts';

function probeSections(a: ProbeAnalysis): Section[] {
  const cols = [...MAIN_MEASURES.slice(0, 5), 'p_repeat_pre', 'p_repeat_fail', 'greedy_repeat_fail', 'greedy_repeat_abstract'];
  const rows = a.runs.map((r) => {
    const by = new Map(r.measures.map((m) => [m.measure, m]));
    // The report marks simulated rows with its badge; the label's own suffix would repeat the mark.
    const name = r.published ? r.model : `${baseLabel(r.model)} (n < 30: not published)`;
    return {
      simulated: r.simulated,
      cells: [
        name,
        r.env,
        r.n_items,
        ...cols.map((c) => meanCell(by.get(c), c.startsWith('p_') || c.startsWith('greedy') ? 3 : 2)),
        r.p_holm_G === null ? null : Number(r.p_holm_G.toPrecision(2)),
      ],
    };
  });
  const blocks: Section['blocks'] = [
    {
      kind: 'table',
      table: {
        columns: [
          { label: 'model' },
          { label: 'env' },
          { label: 'items', numeric: true },
          ...cols.map((c) => ({ label: c, numeric: true, title: a.measure_doc[c] ?? '' })),
          { label: 'Holm p (G)', numeric: true },
        ],
        rows,
        note: `Mean [95% cluster-bootstrap interval over tasks], B = ${formatCount(a.bootstrap.resamples)}. G = lp(failed|pre) − lp(failed|fail): negative is feedback inversion; −G = copy + sem item by item.`,
      },
    },
  ];
  const manip = a.runs.filter((r) =>
    r.measures.some(
      (m) => MANIPULATION_MEASURES.includes(m.measure) && m.mean !== undefined && m.mean !== null && m.measure !== 'delta_abstract',
    ),
  );
  if (manip.length) {
    blocks.push({
      kind: 'table',
      table: {
        caption: 'Manipulations: paired change vs fail (nats; positive = repetition more likely)',
        columns: [{ label: 'model' }, ...MANIPULATION_MEASURES.map((c) => ({ label: c.replace(/^delta_/, ''), numeric: true }))],
        rows: manip.map((r) => {
          const by = new Map(r.measures.map((m) => [m.measure, m]));
          return { simulated: r.simulated, cells: [r.model, ...MANIPULATION_MEASURES.map((c) => meanCell(by.get(c), 2))] };
        }),
      },
    });
  }
  return [
    {
      id: 'probe',
      title: 'Corrective-gain probes',
      lead: 'Teacher-forced log-probability of the same failed action before the attempt and after its failure record (nats). G < 0: the failure record made the failed call more likely.',
      simulated: simulatedMark(a.runs.map((r) => r.simulated)),
      blocks,
    },
  ];
}

export const probeStudy: Study<ProbeAnalysis> = {
  id: 'probe',
  title: 'Corrective-gain probes',
  kinds: [PROBE_RUN_KIND],
  json: 'keyed',
  analyze: (store, runIds, o) => analyzeProbeStore(new ProbeStore(store), { resamples: o.bootstrap, seed: o.seed, runIds: [...runIds] }),
  runColumns: ['env', 'items', 'conditions', 'scores', 'sessions', 'updated'],
  runColumnsOptional: ['updated', 'sessions', 'scores'],
  async describeRuns(store, runs) {
    const probe = new ProbeStore(store);
    const plans = new Map((await probe.listRuns()).map((r) => [r.run_id, r]));
    const rows = [];
    for (const r of runs) {
      const sessions = await probe.sessions(r.runId);
      const scores = await readRecords<ScoreRecord>(store, r.runId, 'score');
      // Conditions in the order first scored (records are in log order).
      const conditions = [...new Set(scores.map((x) => x.data.condition))];
      const items = (await recordKeys(store, r.runId, 'item')).size;
      const status = studyRunStatus(r, sessions);
      const updatedAt = lastUpdate(r, sessions);
      const env = plans.get(r.runId)?.env ?? '';
      rows.push(
        sessionRunRow(
          r,
          PROBE_RUN_KIND,
          status,
          updatedAt,
          [env, String(items), String(conditions.length), String(scores.length), String(sessions.length), shortTime(updatedAt)],
          { env, items, conditions, scores: scores.length, sessions: sessions.length },
        ),
      );
    }
    return rows;
  },
  renderText: renderProbeAnalysis,
  toJson: (a) => a as unknown as Record<string, unknown>,
  sections: probeSections,
  simulatedControllers: (a) => a.simulated_models,
  runNoun: 'probe run',
  runsListed: (a) => a.runs.length,
};
