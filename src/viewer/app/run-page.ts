/* revloop view: one run — its header with live progress, the trajectory table (filters, search,
   pages of 100 from the server, keyboard navigation) beside the open trajectory's timeline, and
   the run's analysis sections. Filters, page and the open trajectory live in the URL. */
import type { RunRow, TrajectoriesResponse, TrajectoryFilter, TrajectoryRow } from '../api.ts';
import { getRun, getRuns, getTrajectories, getTrajectory, query } from './api.ts';
import {
  caseIdNode,
  clear,
  el,
  energyText,
  energyTitle,
  markOverflow,
  modelCell,
  num,
  outcomeBadge,
  pct,
  select,
  shortTime,
  trustedSections,
  put,
  NO_LABELS,
  type Child,
  type Labels,
} from './dom.ts';
import { sizeBars } from './runs-page.ts';
import { timeline } from './timeline.ts';
import type { Params, Shell, View } from './view.ts';

const PAGE = 100;
const FILTERS = ['controller', 'family', 'source', 'outcome', 'label', 'q'] as const;

/** The listing's request for the URL's filters at `offset`. */
function filterOf(params: Params, offset: number | undefined): TrajectoryFilter {
  const f: TrajectoryFilter = { offset, limit: PAGE };
  for (const k of FILTERS) f[k] = params[k];
  return f;
}

function header(r: RunRow): Child[] {
  const frac = r.planned ? r.done / r.planned : 0;
  return [
    el('h2', null, ['Run ', el('code', { text: r.run_id }), ' \u00b7 ', ...modelCell(r.model, r.simulated)]),
    r.simulated
      ? el('p', { className: 'banner', role: 'note' }, [
          el('span', { className: 'badge sim', text: 'SIMULATED' }),
          ' This run\u2019s controller is simulated: every number on this page describes a simulation, not a language model.',
        ])
      : null,
    r.unverified
      ? el('p', { className: 'banner unverified', role: 'alert' }, [
          el('span', { className: 'badge bad', text: 'UNVERIFIED' }),
          ` This run disagrees with its own events (${r.unverified[0]}${r.unverified.length > 1 ? '; \u2026' : ''}): what this page shows may have been edited. revloop audit --run ${r.run_id} lists every discrepancy.`,
        ])
      : null,
    el('p', { className: 'run-facts' }, [
      el('span', { className: 'badge status ' + (r.status === 'running' ? 'live' : 'neutral'), id: 'run-status', text: r.status }),
      ` ${r.kind} \u00b7 ${r.protocol} \u00b7 T = ${r.budget} \u00b7 `,
      r.planned
        ? el('span', {
            id: 'run-progress',
            text: `${num(r.done)} of ${num(r.planned)} trajectories finished, ${num(r.successes)} successes (${pct(r.successes, r.complete)}), ${num(r.failed_attempts)} failed attempts`,
          })
        : el('span', { text: r.cells.join(' \u00b7 ') }),
      ` \u00b7 updated ${shortTime(r.updated_at)}`,
    ]),
    r.planned ? el('div', { className: 'bar-track wide' }, [el('div', { className: 'bar-fill', 'data-frac': frac.toFixed(4) })]) : null,
  ];
}

export function mountRun(root: HTMLElement, shell: Shell, runId: string): View {
  let params: Params = {};
  let run: RunRow | null = null;
  let listing: TrajectoriesResponse | null = null;
  let selected: { ix: number; case: string } | null = null;
  const seq = { list: 0, detail: 0, run: 0, analysis: 0 };
  let analysedThrough = -1;
  let labels: Labels = NO_LABELS;

  const head = el('div', { className: 'run-head' });
  const tabTraj = el('a', { className: 'tab', 'data-nav': '', id: 'tab-trajectories', text: 'Trajectories' });
  const tabAnalysis = el('a', { className: 'tab', 'data-nav': '', id: 'tab-analysis', text: 'Analysis' });
  const tabs = el('nav', { className: 'tabbar', 'aria-label': 'Run views' }, [tabTraj, tabAnalysis]);
  const filters = el('div', { className: 'filters', role: 'search' });
  const count = el('span', { className: 'count', id: 'f-count', 'aria-live': 'polite' });
  const prev = el('button', { type: 'button', className: 'action', id: 'page-prev', text: '\u2039 previous' });
  const next = el('button', { type: 'button', className: 'action', id: 'page-next', text: 'next \u203a' });
  const rows = el('tbody', { id: 'traj-rows' });
  const detail = el('div', { className: 'detail-pane', id: 'traj-detail', 'aria-live': 'polite' });
  const thead = el('thead');
  let multi = false; // several controllers in the run (an import): a column and a filter for them

  function renderHead() {
    put(
      thead,
      // What a row is about first (its case, outcome and label), the details after: a narrow pane
      // scrolls sideways (with a cue) rather than hiding the outcome behind long case ids.
      el('tr', null, [
        el('th', { scope: 'col', text: 'case' }),
        multi ? el('th', { scope: 'col', text: 'controller' }) : null,
        el('th', { scope: 'col', text: 'outcome' }),
        el('th', { scope: 'col', text: 'failure label' }),
        el('th', { scope: 'col', className: 'num', text: 'revisions' }),
        el('th', { scope: 'col', className: 'num', text: 'final energy' }),
        el('th', { scope: 'col', className: 'num', text: 'failed att.' }),
        el('th', { scope: 'col', text: 'family' }),
        el('th', { scope: 'col', text: 'source' }),
      ]),
    );
  }
  const trajView = el('div', { className: 'split' }, [
    el('div', { className: 'list-pane' }, [
      filters,
      el('div', { className: 'pager' }, [prev, count, next]),
      el('div', { className: 'table-wrap' }, [el('table', { className: 'trajectories' }, [thead, rows])]),
      el('p', {
        className: 'note keys',
        text: 'Keys: j / k or \u2193 / \u2191 next and previous trajectory \u00b7 [ and ] pages \u00b7 / search \u00b7 Esc close',
      }),
    ]),
    detail,
  ]);
  const analysis = el('div', { id: 'analysis' });
  const analysisStale = el('p', { className: 'note', hidden: true }, [
    'The run has advanced since this analysis. ',
    el('button', {
      type: 'button',
      className: 'action',
      id: 'analysis-refresh',
      text: 'Refresh the analysis',
      on: { click: () => loadAnalysis(true) },
    }),
  ]);
  put(root, head, tabs, trajView, el('div', { id: 'analysis-wrap' }, [analysisStale, analysis]));
  prev.addEventListener('click', () => page(-1));
  next.addEventListener('click', () => page(1));

  const tab = () => (params.tab === 'analysis' || (run && !run.has_trajectories) ? 'analysis' : 'trajectories');

  function setParams(changes: Params, replace?: boolean): void {
    shell.navigate('/runs/' + encodeURIComponent(runId), { ...params, ...changes }, { replace: replace !== false });
  }

  function page(step: number): boolean {
    if (!listing) return false;
    const offset = Math.max(0, (Number(params.offset) || 0) + step * PAGE);
    if (offset >= listing.total && step > 0) return false;
    setParams({ offset: offset ? String(offset) : undefined });
    return true;
  }

  async function loadRun(): Promise<void> {
    const mine = ++seq.run;
    const data = await getRuns();
    if (mine !== seq.run) return;
    const r = data.runs.find((x) => x.run_id === runId);
    if (!r) {
      put(head, el('h2', { text: 'Run not found' }), el('p', { className: 'empty', text: `No run '${runId}' in this store.` }));
      trajView.hidden = true;
      return;
    }
    shell.setCursor(data.cursor);
    const first = run === null;
    run = r;
    put(head, ...header(r));
    sizeBars(head);
    if (first) render();
    if (analysedThrough >= 0 && r.last_event_id !== analysedThrough) analysisStale.hidden = false;
  }

  function renderFilters(f: TrajectoriesResponse['facets']): void {
    const opts = (counts: Record<string, number>, names?: Record<string, string>) =>
      Object.keys(counts)
        .sort()
        .map((k) => [k, `${names?.[k] || k} (${counts[k]})`] as const);
    const labelNames = { ...labels.repeat, ...labels.category };
    const search = el('input', {
      id: 'f-search',
      type: 'search',
      placeholder: 'case id or draft text',
      autocomplete: 'off',
      value: params.q || '',
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => setParams({ q: search.value.trim() || undefined, offset: undefined }), 200);
    });
    const active = document.activeElement?.id;
    const caret = active === 'f-search' ? (document.activeElement as HTMLInputElement).selectionStart : null;
    put(
      filters,
      multi || params.controller
        ? select('f-controller', 'controller', opts(f.controller), params.controller, (v) =>
            setParams({ controller: v || undefined, offset: undefined }),
          )
        : null,
      select('f-family', 'family', opts(f.family), params.family, (v) => setParams({ family: v || undefined, offset: undefined })),
      select('f-source', 'source', opts(f.source), params.source, (v) => setParams({ source: v || undefined, offset: undefined })),
      select('f-outcome', 'outcome', opts(f.outcome, labels.outcome), params.outcome, (v) =>
        setParams({ outcome: v || undefined, offset: undefined }),
      ),
      select('f-label', 'failure label', opts(f.label, labelNames), params.label, (v) =>
        setParams({ label: v || undefined, offset: undefined }),
      ),
      el('label', null, ['search', search]),
      el('button', {
        type: 'button',
        className: 'action',
        id: 'f-reset',
        text: 'reset',
        on: {
          click: () =>
            setParams({
              controller: undefined,
              family: undefined,
              source: undefined,
              outcome: undefined,
              label: undefined,
              q: undefined,
              offset: undefined,
            }),
        },
      }),
    );
    if (active === 'f-search') {
      search.focus();
      if (caret !== null) search.setSelectionRange(caret, caret);
    }
  }

  function rowFor(t: TrajectoryRow): HTMLElement {
    const label = t.repeat_class ? labels.repeat[t.repeat_class] || t.repeat_class : '';
    const cat = t.category ? labels.category[t.category] || t.category : '';
    const tr = el(
      'tr',
      {
        tabindex: '0',
        'data-ix': t.case_index,
        'data-case': t.case_id,
        'aria-selected': selected && selected.ix === t.case_index ? 'true' : 'false',
      },
      [
        el('td', { className: 'case' }, [caseIdNode(t.case_id)]),
        multi ? el('td', { className: 'ctl-col', text: t.controller }) : null,
        el('td', null, [outcomeBadge(t.outcome, labels)]),
        el('td', { className: 'label', text: [label, cat].filter(Boolean).join(' \u00b7 ') }),
        el('td', { className: 'num', text: String(Math.max(0, t.rounds - 1)) }),
        el('td', { className: 'num', text: energyText(t.final_energy), title: energyTitle(t.final_energy) }),
        el('td', { className: 'num', text: t.attempts.failed ? String(t.attempts.failed) : '' }),
        el('td', { text: t.family }),
        el('td', { className: 'source', text: t.source }),
      ],
    );
    tr.addEventListener('click', () => open(t.case_index, t.case_id));
    tr.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        open(t.case_index, t.case_id);
      }
    });
    return tr;
  }

  async function loadList(): Promise<void> {
    const mine = ++seq.list;
    const data = await getTrajectories(runId, filterOf(params, params.offset === undefined ? undefined : Number(params.offset)));
    if (mine !== seq.list) return;
    listing = data;
    labels = data.labels;
    multi = Object.keys(data.facets.controller).length > 1;
    renderHead();
    renderFilters(data.facets);
    clear(rows);
    for (const t of data.rows) rows.appendChild(rowFor(t));
    const from = data.total ? data.offset + 1 : 0;
    const to = data.offset + data.rows.length;
    count.textContent = `${num(from)}\u2013${num(to)} of ${num(data.total)} matching trajectories (${num(data.facets.all)} in the run)${data.simulated ? ' \u00b7 SIMULATED' : ''}`;
    prev.disabled = data.offset === 0;
    next.disabled = to >= data.total;
    if (!data.rows.length)
      rows.appendChild(
        el('tr', null, [el('td', { colspan: multi ? '9' : '8', className: 'empty', text: 'No trajectory matches these filters.' })]),
      );
    markOverflow(trajView);
    root.setAttribute('data-list', String(mine));
  }

  async function loadDetail(): Promise<void> {
    const mine = ++seq.detail;
    if (!selected) {
      put(detail, el('p', { className: 'empty', text: 'Select a trajectory (click a row, or press j) to read its story.' }));
      return;
    }
    try {
      const t = await getTrajectory(runId, selected.case, selected.ix);
      if (mine !== seq.detail) return;
      const close = el('button', {
        type: 'button',
        className: 'action',
        id: 'detail-close',
        text: 'Close',
        on: { click: () => setParams({ case: undefined, ix: undefined }) },
      });
      put(detail, el('div', { className: 'detail-tools' }, [close]), timeline(t, { labels }));
      detail.setAttribute('data-open', `${t.case_index}`);
    } catch (e) {
      if (mine === seq.detail) put(detail, el('p', { className: 'empty', text: (e as Error).message }));
    }
  }

  async function loadAnalysis(force: boolean): Promise<void> {
    if (!force && analysedThrough >= 0) return;
    const mine = ++seq.analysis;
    put(analysis, el('p', { className: 'empty', text: 'Analysing the run\u2026' }));
    analysisStale.hidden = true;
    try {
      const data = await getRun(runId, { html: true });
      if (mine !== seq.analysis) return;
      analysedThrough = data.analysed_through;
      clear(analysis);
      analysis.append(
        el('p', {
          className: 'note',
          text: `Analysis of this run alone, as of its event ${num(data.analysed_through)}; intervals from ${num(data.bootstrap)} bootstrap resamples (revloop analyze uses 20,000).`,
        }),
      );
      if (data.simulated !== 'none')
        analysis.append(
          el('p', { className: 'banner', role: 'note' }, [
            el('span', { className: 'badge sim', text: 'SIMULATED' }),
            ' Numbers marked SIMULATED come from simulated controllers, not language models.',
          ]),
        );
      analysis.append(trustedSections(data.html || ''));
      for (const n of data.notes) analysis.append(el('p', { className: 'note', text: n }));
      if (!data.sections.length && !data.notes.length)
        analysis.append(el('p', { className: 'empty', text: 'No analysis sections for this run.' }));
      markOverflow(analysis);
      root.setAttribute('data-analysis', 'ready');
    } catch (e) {
      if (mine === seq.analysis) put(analysis, el('p', { className: 'empty', text: (e as Error).message }));
    }
  }

  function open(ix: number, caseId: string): void {
    setParams({ case: caseId, ix: String(ix) });
  }

  function render(): void {
    if (!run) return;
    const t = tab();
    tabTraj.hidden = !run.has_trajectories;
    tabTraj.setAttribute('href', '/runs/' + encodeURIComponent(runId) + query({ ...params, tab: undefined }));
    tabAnalysis.setAttribute('href', '/runs/' + encodeURIComponent(runId) + query({ ...params, tab: 'analysis' }));
    tabTraj.setAttribute('aria-current', t === 'trajectories' ? 'page' : 'false');
    tabAnalysis.setAttribute('aria-current', t === 'analysis' ? 'page' : 'false');
    trajView.hidden = t !== 'trajectories';
    analysis.parentElement!.hidden = t !== 'analysis';
    // A hidden table measures 0 wide: the cues of the tab just shown are measured again.
    markOverflow(t === 'analysis' ? analysis : trajView);
    if (t === 'analysis') void loadAnalysis(false);
    else {
      void loadList();
      void loadDetail();
    }
  }

  /** Moves the selection by one row, across pages. */
  async function step(dir: number): Promise<void> {
    if (!listing) return;
    const list = listing.rows;
    const ix = selected?.ix;
    let i = ix !== undefined ? list.findIndex((t) => t.case_index === ix) : -1;
    if (i < 0) i = dir > 0 ? -1 : list.length;
    const j = i + dir;
    if (j >= 0 && j < list.length) {
      open(list[j].case_index, list[j].case_id);
      const tr = rows.querySelector<HTMLElement>(`tr[data-ix="${list[j].case_index}"]`);
      if (tr) tr.focus({ preventScroll: false });
      return;
    }
    // Off the page: load the neighbouring page and select its first (or last) row.
    const offset = listing.offset + dir * PAGE;
    if (offset < 0 || offset >= listing.total) return;
    const data = await getTrajectories(runId, filterOf(params, offset));
    const t = dir > 0 ? data.rows[0] : data.rows[data.rows.length - 1];
    if (t) setParams({ offset: offset ? String(offset) : undefined, case: t.case_id, ix: String(t.case_index) });
  }

  return {
    async load(p) {
      this.update(p);
      await loadRun();
    },
    update(p) {
      const before = params;
      params = { ...p };
      selected = params.case !== undefined && params.ix !== undefined ? { case: params.case, ix: Number(params.ix) } : null;
      if (!run) return;
      const listChanged = FILTERS.some((k) => before[k] !== params[k]) || before.offset !== params.offset || before.tab !== params.tab;
      const detailChanged = before.case !== params.case || before.ix !== params.ix || before.tab !== params.tab;
      if (listChanged) render();
      else if (detailChanged) {
        for (const tr of rows.querySelectorAll('tr[aria-selected="true"]')) tr.setAttribute('aria-selected', 'false');
        if (selected) {
          const tr = rows.querySelector(`tr[data-ix="${selected.ix}"]`);
          if (tr) tr.setAttribute('aria-selected', 'true');
        }
        void loadDetail();
      }
    },
    onEvent(e) {
      if (e.run_id !== runId) return;
      shell.throttle('run-head', loadRun, 500);
      if (tab() === 'trajectories') {
        shell.throttle('run-list', loadList, 700);
        if (selected && e.case_index === selected.ix) shell.throttle('run-detail', loadDetail, 700);
      }
    },
    onKey(ev) {
      if (tab() !== 'trajectories') return false;
      const moves: Record<string, number> = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 };
      if (ev.key in moves) {
        void step(moves[ev.key]);
        return true;
      }
      if (ev.key === ']') return page(1);
      if (ev.key === '[') return page(-1);
      if (ev.key === '/') {
        const s = document.getElementById('f-search');
        if (s) s.focus();
        return true;
      }
      if (ev.key === 'Escape' && selected) {
        setParams({ case: undefined, ix: undefined });
        return true;
      }
      return false;
    },
    destroy() {},
  };
}
