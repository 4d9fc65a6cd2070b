// The agent-rollout study as a registered study: success, loops and repeat rates per harness, and
// paired contrasts against verbatim, as terminal text, JSON and report sections.
import type { Study } from '../kit/study.ts';
import { meanCell, simulatedMark, type Section } from '../kit/sections.ts';
import { analyzeAgentStore, type AgentAnalysis, type MetricSummary } from './agent-analysis.ts';
import { renderAgentAnalysis } from './agent-tables.ts';
import { AGENT_RUN_KIND, AgentStore } from './agent-store.ts';
import { lastUpdate, sessionRunRow, shareOf, shortTime, studyRunStatus } from '../kit/run-status.ts';
import { formatCount } from '../../core/util/count.ts';

const RATES = ['solved', 'stuck', 'exact_repeat_rate', 'canonical_repeat_rate'];

function agentSections(a: AgentAnalysis): Section[] {
  const metric = (ms: MetricSummary[], k: string) => ms.find((m) => m.metric === k);
  const simulatedRun = new Map(a.runs.map((r) => [r.run_id, r.simulated]));
  const blocks: Section['blocks'] = [
    {
      kind: 'table',
      table: {
        columns: [
          { label: 'model' },
          { label: 'harness' },
          { label: 'rollouts', numeric: true },
          { label: 'success', numeric: true },
          { label: 'stuck', numeric: true },
          { label: 'exact rep.', numeric: true },
          { label: 'canon. rep.', numeric: true },
          { label: 'gen tokens', numeric: true },
          { label: 'ctx/step', numeric: true },
          { label: 'steps', numeric: true },
        ],
        rows: a.runs.map((r) => ({
          simulated: r.simulated,
          cells: [
            r.model,
            r.harness,
            r.n_rollouts,
            ...RATES.map((k) => meanCell(metric(r.metrics, k), 2)),
            ...['gen_tokens', 'prompt_tokens_per_step', 'n_steps'].map((k) => meanCell(metric(r.metrics, k), k === 'n_steps' ? 1 : 0)),
          ],
        })),
        note: `Mean [95% cluster-bootstrap interval over tasks], B = ${formatCount(a.bootstrap.resamples)}. Repeat rates are per-rollout means over rollouts with at least one failed action.`,
      },
    },
  ];
  const cs = a.contrasts.filter((c) => RATES.includes(c.metric) && c.mean !== undefined && c.mean !== null);
  if (cs.length)
    blocks.push({
      kind: 'table',
      table: {
        caption: 'Paired against verbatim on the same tasks (difference in rate)',
        columns: [
          { label: 'model' },
          { label: 'harness' },
          { label: 'metric' },
          { label: 'Δ', numeric: true },
          { label: 'n', numeric: true },
        ],
        rows: cs.map((c) => ({
          simulated: simulatedRun.get(c.run_id) ?? false,
          cells: [c.model, c.harness, c.metric, meanCell(c, 2), c.n_paired],
        })),
      },
    });
  return [
    {
      id: 'agent',
      title: 'Agent rollouts by harness',
      lead: 'ToolShed agent tasks under harness variants: how failed steps enter the context (verbatim, dropped, abstracted), a do-not-repeat instruction, and a decoder ban of earlier failed actions.',
      simulated: simulatedMark(a.runs.map((r) => r.simulated)),
      blocks,
    },
  ];
}

export const agentStudy: Study<AgentAnalysis> = {
  id: 'agent',
  title: 'Agent rollouts',
  kinds: [AGENT_RUN_KIND],
  json: 'keyed',
  analyze: (store, runIds, o) => analyzeAgentStore(new AgentStore(store), { resamples: o.bootstrap, seed: o.seed, runIds: [...runIds] }),
  runColumns: ['harness', 'done', 'solved', 'stuck', 'failed', 'sessions', 'updated'],
  runColumnsOptional: ['updated', 'sessions', 'failed', 'stuck'],
  async describeRuns(store, runs) {
    const agent = new AgentStore(store);
    const plans = new Map((await agent.listRuns()).map((r) => [r.run_id, r]));
    const rows = [];
    for (const r of runs) {
      const plan = plans.get(r.runId);
      const sessions = await agent.sessions(r.runId);
      const rollouts = await agent.rollouts(r.runId);
      const done = rollouts.length;
      const solved = rollouts.filter((x) => x.solved).length;
      const stuck = rollouts.filter((x) => x.stuck).length;
      // Tasks asked for: the largest --tasks of any session (each session records it as `pending`).
      const tasks = Math.max(done, ...sessions.map((s) => s.started.pending));
      const last = sessions.at(-1);
      let status = studyRunStatus(r, sessions);
      // A finished session whose failed tasks were left unstored: rerunning retries them.
      if (status === 'complete' && done < tasks) status = 'incomplete';
      const failed = last?.finished ? Number(last.finished.counters.n_failed ?? 0) : 0;
      const updatedAt = lastUpdate(r, sessions);
      rows.push(
        sessionRunRow(
          r,
          AGENT_RUN_KIND,
          status,
          updatedAt,
          [
            plan?.harness ?? '',
            `${done}/${tasks}`,
            shareOf(solved, done),
            String(stuck),
            String(failed),
            String(sessions.length),
            shortTime(updatedAt),
          ],
          {
            env: plan?.env ?? '',
            harness: plan?.harness ?? '',
            settings: plan?.settings ?? {},
            tasks,
            done,
            solved,
            stuck,
            failed,
            sessions: sessions.length,
          },
        ),
      );
    }
    return rows;
  },
  renderText: renderAgentAnalysis,
  toJson: (a) => a as unknown as Record<string, unknown>,
  sections: agentSections,
  simulatedControllers: (a) => a.simulated_models,
  runNoun: 'agent run',
  runsListed: (a) => a.runs.length,
};
