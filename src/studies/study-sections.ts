// The extension point through which `revloop analyze` and `revloop report` show the feedback-
// inversion studies stored next to revision runs: probe runs (corrective gain and its
// decomposition) and agent runs (rollouts under harness variants). One place decides which run
// ids belong to which study, computes both analyses and renders them as text, JSON and HTML.
import { existsSync } from 'node:fs';
import { escapeHtml } from '../report/escape.ts';
import { UserError } from '../core/errors.ts';
import { analyzeProbeStore, type ProbeAnalysis } from './probe/analyze.ts';
import { MAIN_MEASURES, MANIPULATION_MEASURES, renderProbeAnalysis } from './probe/render.ts';
import { ProbeStore } from './probe/store.ts';
import { analyzeAgentStore, type AgentAnalysis, type MetricSummary } from './agent/analyze.ts';
import { renderAgentAnalysis } from './agent/render.ts';
import { AgentStore } from './agent/store.ts';

export interface StudyRunIds {
  probe: string[];
  agent: string[];
}

export interface StudySections {
  probe: ProbeAnalysis | null;
  agent: AgentAnalysis | null;
}

export interface StudyOptions {
  resamples?: number;
  seed?: number;
}

/** Probe and agent run ids in a store (empty lists when it has none, or no such tables). */
export function studyRunIds(storePath: string): StudyRunIds {
  if (!existsSync(storePath)) return { probe: [], agent: [] };
  const ps = ProbeStore.open(storePath, { readonly: true });
  try {
    const as = AgentStore.open(storePath, { readonly: true });
    try {
      return { probe: ps.listRuns().map((r) => r.run_id), agent: as.listRuns().map((r) => r.run_id) };
    } finally {
      as.close();
    }
  } finally {
    ps.close();
  }
}

/**
 * Splits requested run ids into revision runs (everything not a study run) and study runs. With
 * no ids requested every study run is included.
 */
export function partitionRunIds(
  storePath: string,
  runIds: readonly string[],
): { revision: string[]; study: StudyRunIds | null; all: StudyRunIds } {
  const all = studyRunIds(storePath);
  if (!runIds.length) return { revision: [], study: null, all };
  const probe = runIds.filter((id) => all.probe.includes(id));
  const agent = runIds.filter((id) => all.agent.includes(id));
  return { revision: runIds.filter((id) => !probe.includes(id) && !agent.includes(id)), study: { probe, agent }, all };
}

/** Both analyses over the store (null where the store has no such runs or none was asked for). */
export function loadStudySections(storePath: string, options: StudyOptions & { runIds?: StudyRunIds | null } = {}): StudySections {
  const ids = options.runIds ?? null;
  const all = studyRunIds(storePath);
  const wantProbe = ids ? ids.probe : all.probe;
  const wantAgent = ids ? ids.agent : all.agent;
  let probe: ProbeAnalysis | null = null;
  let agent: AgentAnalysis | null = null;
  if (wantProbe.length) {
    const s = ProbeStore.open(storePath, { readonly: true });
    try {
      probe = analyzeProbeStore(s, { resamples: options.resamples, seed: options.seed, runIds: wantProbe });
    } finally {
      s.close();
    }
  }
  if (wantAgent.length) {
    const s = AgentStore.open(storePath, { readonly: true });
    try {
      agent = analyzeAgentStore(s, { resamples: options.resamples, seed: options.seed, runIds: wantAgent });
    } finally {
      s.close();
    }
  }
  return { probe, agent };
}

export function hasStudySections(s: StudySections): boolean {
  return !!(s.probe?.runs.length || s.agent?.runs.length);
}

/** Terminal text of both studies ('' when there is nothing to show). */
export function renderStudySections(s: StudySections): string {
  const parts: string[] = [];
  if (s.probe?.runs.length) parts.push(renderProbeAnalysis(s.probe));
  if (s.agent?.runs.length) parts.push(renderAgentAnalysis(s.agent));
  return parts.length ? '\n' + parts.join('\n') : '';
}

/** Keys added to the analysis JSON document (`probe`, `agent`; absent when the store has none). */
export function studySectionsJson(s: StudySections): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.probe?.runs.length) out.probe = s.probe;
  if (s.agent?.runs.length) out.agent = s.agent;
  return out;
}

/** Throws a helpful error when a store holds neither revision nor study runs. */
export function assertStoreHasRuns(storePath: string, revisionRuns: number): void {
  if (revisionRuns > 0) return;
  const all = studyRunIds(storePath);
  if (!all.probe.length && !all.agent.length) {
    throw new UserError(
      `${storePath}: the store holds no runs yet (start one with \`revloop run\`, \`revloop probe\` or \`revloop agent\` --store ${storePath})`,
    );
  }
}

// ---- HTML (for the report) ------------------------------------------------------------------

export interface HtmlSection {
  id: string;
  title: string;
  lead: string;
  html: string;
}

const SIM_BADGE = ' <span class="badge sim">SIMULATED</span>';

function ciCell(m: Partial<{ mean: number | null; ci_lo: number | null; ci_hi: number | null }> | undefined, digits: number): string {
  if (!m || m.mean === undefined || m.mean === null) return '<td class="num na">–</td>';
  const f = (x: number | null | undefined) => (x === undefined || x === null ? '?' : (Object.is(x, -0) ? 0 : x).toFixed(digits));
  return `<td class="num">${f(m.mean)} <small>[${f(m.ci_lo)}, ${f(m.ci_hi)}]</small></td>`;
}

function probeHtml(a: ProbeAnalysis): string {
  const cols = [...MAIN_MEASURES.slice(0, 5), 'p_repeat_pre', 'p_repeat_fail', 'greedy_repeat_fail', 'greedy_repeat_abstract'];
  const head = cols.map((c) => `<th scope="col" class="num" title="${escapeHtml(a.measure_doc[c] ?? '')}">${escapeHtml(c)}</th>`).join('');
  const rows = a.runs
    .map((r) => {
      const by = new Map(r.measures.map((m) => [m.measure, m]));
      const cells = cols.map((c) => ciCell(by.get(c), c.startsWith('p_') || c.startsWith('greedy') ? 3 : 2)).join('');
      const pub = r.published ? '' : ' <small>(n &lt; 30: not published)</small>';
      return `<tr${r.simulated ? ' class="simulated"' : ''}><td>${escapeHtml(r.model)}${r.simulated ? SIM_BADGE : ''}${pub}</td><td>${escapeHtml(r.env)}</td><td class="num">${r.n_items}</td>${cells}<td class="num">${r.p_holm_G === null ? '–' : r.p_holm_G.toPrecision(2)}</td></tr>`;
    })
    .join('');
  const main = `<div class="table-wrap"><table class="probe"><thead><tr><th scope="col">model</th><th scope="col">env</th><th scope="col" class="num">items</th>${head}<th scope="col" class="num">Holm p (G)</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const manip = a.runs.filter((r) =>
    r.measures.some(
      (m) => MANIPULATION_MEASURES.includes(m.measure) && m.mean !== undefined && m.mean !== null && m.measure !== 'delta_abstract',
    ),
  );
  let manipHtml = '';
  if (manip.length) {
    const mh = MANIPULATION_MEASURES.map((c) => `<th scope="col" class="num">${escapeHtml(c.replace(/^delta_/, ''))}</th>`).join('');
    const mr = manip
      .map((r) => {
        const by = new Map(r.measures.map((m) => [m.measure, m]));
        return `<tr><td>${escapeHtml(r.model)}${r.simulated ? SIM_BADGE : ''}</td>${MANIPULATION_MEASURES.map((c) => ciCell(by.get(c), 2)).join('')}</tr>`;
      })
      .join('');
    manipHtml = `<h3>Manipulations: paired change vs fail (nats; positive = repetition more likely)</h3><div class="table-wrap"><table class="probe-manip"><thead><tr><th scope="col">model</th>${mh}</tr></thead><tbody>${mr}</tbody></table></div>`;
  }
  return (
    main +
    manipHtml +
    `<p class="note">Mean [95% cluster-bootstrap interval over tasks], B = ${a.bootstrap.resamples.toLocaleString('en')}. G = lp(failed|pre) − lp(failed|fail): negative is feedback inversion; −G = copy + sem item by item.</p>`
  );
}

function agentHtml(a: AgentAnalysis): string {
  const metric = (ms: MetricSummary[], k: string) => ms.find((m) => m.metric === k);
  const rows = a.runs
    .map(
      (r) =>
        `<tr${r.simulated ? ' class="simulated"' : ''}><td>${escapeHtml(r.model)}${r.simulated ? SIM_BADGE : ''}</td><td>${escapeHtml(r.harness)}</td><td class="num">${r.n_rollouts}</td>${['solved', 'stuck', 'exact_repeat_rate', 'canonical_repeat_rate'].map((k) => ciCell(metric(r.metrics, k), 2)).join('')}${['gen_tokens', 'prompt_tokens_per_step', 'n_steps'].map((k) => ciCell(metric(r.metrics, k), k === 'n_steps' ? 1 : 0)).join('')}</tr>`,
    )
    .join('');
  const table = `<div class="table-wrap"><table class="agent"><thead><tr><th scope="col">model</th><th scope="col">harness</th><th scope="col" class="num">rollouts</th><th scope="col" class="num">success</th><th scope="col" class="num">stuck</th><th scope="col" class="num">exact rep.</th><th scope="col" class="num">canon. rep.</th><th scope="col" class="num">gen tokens</th><th scope="col" class="num">ctx/step</th><th scope="col" class="num">steps</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const cs = a.contrasts.filter(
    (c) => ['solved', 'stuck', 'exact_repeat_rate', 'canonical_repeat_rate'].includes(c.metric) && c.mean !== undefined && c.mean !== null,
  );
  const contrast = cs.length
    ? `<h3>Paired against verbatim on the same tasks (difference in rate)</h3><div class="table-wrap"><table class="agent-contrast"><thead><tr><th scope="col">model</th><th scope="col">harness</th><th scope="col">metric</th><th scope="col" class="num">Δ</th><th scope="col" class="num">n</th></tr></thead><tbody>${cs
        .map(
          (c) =>
            `<tr><td>${escapeHtml(c.model)}</td><td>${escapeHtml(c.harness)}</td><td>${escapeHtml(c.metric)}</td>${ciCell(c, 2)}<td class="num">${c.n_paired}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    : '';
  return (
    table +
    contrast +
    `<p class="note">Mean [95% cluster-bootstrap interval over tasks], B = ${a.bootstrap.resamples.toLocaleString('en')}. Repeat rates are per-rollout means over rollouts with at least one failed action.</p>`
  );
}

/** Report sections for the studies (none when the store has no study runs). */
export function studyHtmlSections(s: StudySections): HtmlSection[] {
  const out: HtmlSection[] = [];
  if (s.probe?.runs.length) {
    out.push({
      id: 'probe',
      title: 'Corrective-gain probes',
      lead: 'Teacher-forced log-probability of the same failed action before the attempt and after its failure record (nats). G &lt; 0: the failure record made the failed call more likely.',
      html: probeHtml(s.probe),
    });
  }
  if (s.agent?.runs.length) {
    out.push({
      id: 'agent',
      title: 'Agent rollouts by harness',
      lead: 'ToolShed agent tasks under harness variants: how failed steps enter the context (verbatim, dropped, abstracted), a do-not-repeat instruction, and a decoder ban of earlier failed actions.',
      html: agentHtml(s.agent),
    });
  }
  return out;
}
