/* revloop view: two runs compared case by case — the paired outcome table (both succeed, only A,
   only B, both fail), exact McNemar on the discordant pairs, the same per family, every pair in
   pages, and the pair's two timelines side by side. Runs, filters and the open case live in the URL. */
import type { CompareCell, CompareResponse, CompareSide, RunRow, TrajectoryResponse } from '../api.ts';
import { getCompare, getRuns, getTrajectory } from './api.ts';
import { caseIdNode, clear, el, markOverflow, modelCell, NO_LABELS, num, outcomeBadge, pValue, select, shownName, put } from './dom.ts';
import { timeline } from './timeline.ts';
import type { Params, Shell, View } from './view.ts';

const PAGE = 100;
const CELL_NAMES: Record<CompareCell, string> = {
  both_success: 'both succeed',
  a_only: 'only A succeeds',
  b_only: 'only B succeeds',
  both_failure: 'both fail',
  excluded: 'excluded (not complete in both)',
};

export function mountCompare(root: HTMLElement, shell: Shell): View {
  let params: Params = {};
  let data: CompareResponse | null = null;
  let runs: RunRow[] = [];
  const seq = { list: 0, detail: 0 };
  const picks = el('div', { className: 'filters compare-pick' });
  const summary = el('div', { id: 'cmp-summary' });
  const count = el('span', { className: 'count', id: 'cmp-count' });
  const prev = el('button', { type: 'button', className: 'action', text: '\u2039 previous', on: { click: () => page(-1) } });
  const next = el('button', { type: 'button', className: 'action', text: 'next \u203a', on: { click: () => page(1) } });
  const rows = el('tbody', { id: 'cmp-rows' });
  const detail = el('div', { id: 'cmp-detail', className: 'pair' });
  put(
    root,
    el('h2', { text: 'Compare two runs by case' }),
    picks,
    summary,
    el('div', { className: 'pager' }, [prev, count, next]),
    el('div', { className: 'table-wrap' }, [
      el('table', { className: 'trajectories pairs' }, [
        el('thead', null, [
          el('tr', null, [
            el('th', { scope: 'col', text: 'case' }),
            el('th', { scope: 'col', text: 'family' }),
            el('th', { scope: 'col', text: 'pair' }),
            el('th', { scope: 'col', text: 'A' }),
            el('th', { scope: 'col', className: 'num', text: 'A revisions' }),
            el('th', { scope: 'col', text: 'B' }),
            el('th', { scope: 'col', className: 'num', text: 'B revisions' }),
          ]),
        ]),
        rows,
      ]),
    ]),
    el('p', {
      className: 'note keys',
      text: 'Keys: j / k or \u2193 / \u2191 next and previous case \u00b7 [ and ] pages \u00b7 Esc close',
    }),
    detail,
  );

  function setParams(changes: Params, replace?: boolean): void {
    shell.navigate('/compare', { ...params, ...changes }, { replace: replace !== false });
  }

  function page(step: number): boolean {
    if (!data) return false;
    const offset = Math.max(0, (Number(params.offset) || 0) + step * PAGE);
    if (step > 0 && offset >= data.total) return false;
    setParams({ offset: offset ? String(offset) : undefined });
    return true;
  }

  function renderPicks() {
    const opts = runs
      .filter((r) => r.has_trajectories)
      .map((r) => [r.run_id, `${r.run_id} \u00b7 ${shownName(r.model, r.simulated)}${r.simulated ? ' (SIMULATED)' : ''}`] as const);
    const families = data ? data.families.map((f) => [f.family, f.family] as const) : [];
    const cells = Object.entries(CELL_NAMES);
    put(
      picks,
      select('cmp-a', 'run A', opts, params.a, (v) => setParams({ a: v || undefined, offset: undefined, case: undefined }, false)),
      select('cmp-b', 'run B', opts, params.b, (v) => setParams({ b: v || undefined, offset: undefined, case: undefined }, false)),
      select('cmp-family', 'family', families, params.family, (v) => setParams({ family: v || undefined, offset: undefined })),
      select('cmp-cell', 'pair', cells, params.cell, (v) => setParams({ cell: v || undefined, offset: undefined })),
    );
  }

  function cellButton(key: CompareCell, n: number): HTMLElement {
    return el('button', {
      type: 'button',
      className: 'cell-link' + (params.cell === key ? ' active' : ''),
      'data-cell': key,
      text: num(n),
      title: `show the pairs where ${CELL_NAMES[key]}`,
      on: { click: () => setParams({ cell: params.cell === key ? undefined : key, offset: undefined }) },
    });
  }

  function renderSummary(d: CompareResponse): void {
    const c = d.cells;
    const side = (label: string, r: RunRow) =>
      el('div', { className: 'cmp-side' }, [
        el('strong', { text: label + ' ' }),
        el('code', { text: r.run_id }),
        ' \u00b7 ',
        ...modelCell(r.model, r.simulated),
      ]);
    const table = el('table', { className: 'cells' }, [
      el('thead', null, [
        el('tr', null, [
          el('th', { text: '' }),
          el('th', { scope: 'col', text: 'B succeeds' }),
          el('th', { scope: 'col', text: 'B fails' }),
        ]),
      ]),
      el('tbody', null, [
        el('tr', null, [
          el('th', { scope: 'row', text: 'A succeeds' }),
          el('td', { className: 'num' }, [cellButton('both_success', c.both_success)]),
          el('td', { className: 'num discordant' }, [cellButton('a_only', c.a_only)]),
        ]),
        el('tr', null, [
          el('th', { scope: 'row', text: 'A fails' }),
          el('td', { className: 'num discordant' }, [cellButton('b_only', c.b_only)]),
          el('td', { className: 'num' }, [cellButton('both_failure', c.both_failure)]),
        ]),
      ]),
    ]);
    const fam = el('table', { className: 'data families' }, [
      el('thead', null, [
        el(
          'tr',
          null,
          ['family', 'both succeed', 'only A', 'only B', 'both fail', 'excluded', 'McNemar p'].map((h, i) =>
            el('th', { scope: 'col', className: i ? 'num' : null, text: h }),
          ),
        ),
      ]),
      el(
        'tbody',
        null,
        d.families.map((f) =>
          el('tr', null, [
            el('td', { text: f.family }),
            ...[f.cells.both_success, f.cells.a_only, f.cells.b_only, f.cells.both_failure, f.excluded].map((v) =>
              el('td', { className: 'num', text: num(v) }),
            ),
            el('td', { className: 'num', text: pValue(f.p) }),
          ]),
        ),
      ),
    ]);
    put(
      summary,
      d.simulated !== 'none'
        ? el('p', { className: 'banner', role: 'note' }, [
            el('span', { className: 'badge sim', text: 'SIMULATED' }),
            d.simulated === 'all'
              ? ' Both runs are simulated: these counts describe simulations, not language models.'
              : ' One of the runs is simulated: its side of every count describes a simulation, not a language model.',
          ])
        : null,
      side('A', d.a),
      side('B', d.b),
      el('div', { className: 'cmp-stats' }, [
        table,
        el('dl', { className: 'facts' }, [
          el('dt', { text: 'exact McNemar p' }),
          el('dd', { id: 'cmp-p', text: pValue(d.mcnemar.p) }),
          el('dt', { text: 'discordant pairs' }),
          el('dd', { text: num(d.mcnemar.discordant) }),
          el('dt', { text: 'paired cases' }),
          el('dd', { text: `${num(d.paired)} (excluded ${num(d.excluded)}: not complete in both)` }),
          el('dt', { text: 'only in A / only in B' }),
          el('dd', { text: `${num(d.only_a)} / ${num(d.only_b)}` }),
        ]),
      ]),
      el('p', {
        className: 'note',
        text: `Joint success at the end of the budget, over cases complete in both runs; ${d.mcnemar.method}.`,
      }),
      el('div', { className: 'table-wrap' }, [fam]),
    );
  }

  function sideCell(s: CompareSide): HTMLElement {
    const labels = data ? data.labels : NO_LABELS;
    const label = s.repeat_class
      ? labels.repeat[s.repeat_class] || s.repeat_class
      : s.category
        ? labels.category[s.category] || s.category
        : '';
    return el('td', null, [outcomeBadge(s.outcome, labels), label ? el('span', { className: 'muted', text: ' ' + label }) : null]);
  }

  async function load(): Promise<void> {
    const mine = ++seq.list;
    const list = await getRuns();
    runs = list.runs;
    shell.setCursor(list.cursor);
    if (!params.a || !params.b) {
      data = null;
      renderPicks();
      put(
        summary,
        el('p', {
          className: 'empty',
          text: 'Choose two runs with trajectories (the same cases under two controllers, histories or harnesses).',
        }),
      );
      clear(rows);
      return;
    }
    try {
      const d = await getCompare({
        a: params.a,
        b: params.b,
        cell: params.cell,
        family: params.family,
        offset: params.offset === undefined ? undefined : Number(params.offset),
        limit: PAGE,
      });
      if (mine !== seq.list) return;
      data = d;
      renderPicks();
      renderSummary(d);
      clear(rows);
      for (const r of d.rows) {
        const tr = el('tr', { tabindex: '0', 'data-case': r.case_id, 'aria-selected': params.case === r.case_id ? 'true' : 'false' }, [
          el('td', { className: 'case' }, [caseIdNode(r.case_id)]),
          el('td', { text: r.family }),
          el('td', { className: 'cell-' + r.cell, text: CELL_NAMES[r.cell] }),
          sideCell(r.a),
          el('td', { className: 'num', text: String(Math.max(0, r.a.rounds - 1)) }),
          sideCell(r.b),
          el('td', { className: 'num', text: String(Math.max(0, r.b.rounds - 1)) }),
        ]);
        tr.addEventListener('click', () => setParams({ case: r.case_id }));
        tr.addEventListener('keydown', (ev) => {
          if (ev.key === 'Enter') setParams({ case: r.case_id });
        });
        rows.appendChild(tr);
      }
      const to = d.offset + d.rows.length;
      count.textContent = `${num(d.total ? d.offset + 1 : 0)}\u2013${num(to)} of ${num(d.total)} pairs`;
      prev.disabled = d.offset === 0;
      next.disabled = to >= d.total;
      markOverflow(root);
      root.setAttribute('data-compare', String(mine));
    } catch (e) {
      if (mine !== seq.list) return;
      data = null;
      renderPicks();
      put(summary, el('p', { className: 'empty', id: 'cmp-error', text: (e as Error).message }));
      clear(rows);
    }
  }

  async function loadDetail(): Promise<void> {
    const mine = ++seq.detail;
    if (!params.case || !params.a || !params.b) {
      clear(detail);
      return;
    }
    const caseId = params.case;
    const get = (run: string): Promise<TrajectoryResponse | { error: string }> =>
      getTrajectory(run, caseId).catch((e: Error) => ({ error: e.message }));
    const [ta, tb] = await Promise.all([get(params.a), get(params.b)]);
    if (mine !== seq.detail) return;
    const col = (label: string, t: TrajectoryResponse | { error: string }, labels: CompareResponse['labels'] | undefined) =>
      el('div', { className: 'pair-side' }, [
        el('h3', { className: 'pair-label', text: label }),
        'error' in t ? el('p', { className: 'empty', text: t.error }) : timeline(t, { labels }),
      ]);
    put(
      detail,
      el('div', { className: 'detail-tools' }, [
        el('button', { type: 'button', className: 'action', text: 'Close', on: { click: () => setParams({ case: undefined }) } }),
      ]),
      el('div', { className: 'pair-cols' }, [col('A', ta, data?.labels), col('B', tb, data?.labels)]),
    );
    detail.setAttribute('data-open', caseId);
    detail.scrollIntoView({ block: 'start' });
  }

  function step(dir: number): void {
    if (!data || !data.rows.length) return;
    const i = data.rows.findIndex((r) => r.case_id === params.case);
    const j = i < 0 ? (dir > 0 ? 0 : data.rows.length - 1) : i + dir;
    if (j >= 0 && j < data.rows.length) {
      setParams({ case: data.rows[j].case_id });
      const tr = rows.querySelector<HTMLElement>(`tr[data-case="${CSS.escape(data.rows[j].case_id)}"]`);
      if (tr) tr.focus();
    } else page(dir);
  }

  return {
    async load(p) {
      params = { ...p };
      await load();
      await loadDetail();
    },
    update(p) {
      const before = params;
      params = { ...p };
      const listChanged = ['a', 'b', 'cell', 'family', 'offset'].some((k) => before[k] !== params[k]);
      if (listChanged) void load();
      else
        for (const tr of rows.querySelectorAll('tr'))
          tr.setAttribute('aria-selected', tr.getAttribute('data-case') === params.case ? 'true' : 'false');
      if (listChanged || before.case !== params.case) void loadDetail();
    },
    onEvent(e) {
      if (e.run_id === params.a || e.run_id === params.b) shell.throttle('compare', load, 1000);
    },
    onKey(ev) {
      const moves: Record<string, number> = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 };
      if (ev.key in moves) {
        step(moves[ev.key]);
        return true;
      }
      if (ev.key === ']') return page(1);
      if (ev.key === '[') return page(-1);
      if (ev.key === 'Escape' && params.case) {
        setParams({ case: undefined });
        return true;
      }
      return false;
    },
    destroy() {},
  };
}
