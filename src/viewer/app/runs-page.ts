/* revloop view: the run list. Every run of every study, newest first, with live progress: the
   page refetches the list (throttled) whenever the event stream reports activity. */
import type { RunRow, WorkerRow } from '../api.ts';
import { getRuns } from './api.ts';
import { clear, el, markOverflow, modelCell, num, pct, shortTime, shownName, put } from './dom.ts';
import type { Shell, View } from './view.ts';

function progress(r: RunRow): HTMLElement {
  if (!r.planned) return el('span', { className: 'muted', text: r.cells.join(' \u00b7 ') });
  const frac = r.planned ? r.done / r.planned : 0;
  return el('div', { className: 'progress', title: `${r.done} of ${r.planned} trajectories finished` }, [
    el('div', { className: 'bar-track' }, [el('div', { className: 'bar-fill', 'data-frac': frac.toFixed(4) })]),
    el('span', { className: 'progress-text', text: `${num(r.done)}/${num(r.planned)}` }),
  ]);
}

/** Widths come from data attributes through CSSOM (no inline style attributes: the CSP forbids them). */
export function sizeBars(root: ParentNode): void {
  for (const b of root.querySelectorAll<HTMLElement>('.bar-fill[data-frac]'))
    b.style.width = `${(100 * Number(b.getAttribute('data-frac'))).toFixed(2)}%`;
}

const WORKER_STATE: Record<WorkerRow['state'], string> = { alive: 'alive', stopped: 'stopped', gone: 'gone (killed or disconnected)' };

/** `run #2 #5; other #1`: trajectories by run, case numbers 1-based as `revloop runs` shows them. */
function casesText(list: ReadonlyArray<{ run_id: string; case_index: number; expired?: boolean }>): string {
  const byRun = new Map<string, string[]>();
  for (const l of list) {
    if (!byRun.has(l.run_id)) byRun.set(l.run_id, []);
    byRun.get(l.run_id)!.push(`#${l.case_index + 1}${l.expired ? ' (expired)' : ''}`);
  }
  return [...byRun].map(([run, cases]) => `${run} ${cases.join(' ')}`).join('; ');
}

/**
 * Workers sharing the store's runs (PostgreSQL): alive ones with the trajectories they hold, and
 * those gone without stopping, which hold nothing: their claims ended with their session and what
 * they were running is free to claim.
 */
function workersBlock(workers: WorkerRow[] | null): HTMLElement | null {
  if (!workers || !workers.length) return null;
  return el('section', { id: 'workers', 'aria-labelledby': 'workers-h' }, [
    el('h3', { id: 'workers-h', text: `Workers (${workers.length})` }),
    el('div', { className: 'table-wrap' }, [
      el('table', { className: 'workers' }, [
        el('thead', null, [
          el('tr', null, [
            el('th', { scope: 'col', text: 'worker' }),
            el('th', { scope: 'col', text: 'state' }),
            el('th', { scope: 'col', text: 'heartbeat' }),
            el('th', { scope: 'col', className: 'num', text: 'concurrency' }),
            el('th', { scope: 'col', text: 'leases held' }),
          ]),
        ]),
        el(
          'tbody',
          { id: 'worker-rows' },
          workers.map((w) =>
            el('tr', { 'data-worker': w.worker, 'data-state': w.state }, [
              el('td', null, [el('code', { text: w.name })]),
              el('td', null, [
                el('span', {
                  className: 'badge status ' + (w.state === 'alive' ? 'live' : w.state === 'gone' ? 'bad' : 'neutral'),
                  text: WORKER_STATE[w.state] || w.state,
                }),
              ]),
              el('td', { text: shortTime(w.heartbeat_at) }),
              el('td', { className: 'num', text: num(w.concurrency) }),
              el('td', {
                className: 'leases',
                text: w.released.length ? `none (freed: ${casesText(w.released)})` : casesText(w.leases) || '\u2014',
              }),
            ]),
          ),
        ),
      ]),
    ]),
  ]);
}

function statusBadge(status: string): HTMLElement {
  const cls =
    status === 'running' ? 'live' : status === 'complete' ? 'ok' : status === 'interrupted' || status === 'failed' ? 'bad' : 'neutral';
  return el('span', { className: 'badge status ' + cls, text: status });
}

export function mountRuns(root: HTMLElement, shell: Shell): View {
  const body = el('tbody', { id: 'run-rows' });
  const empty = el('p', {
    className: 'empty',
    hidden: true,
    text: 'No runs in this store yet. Start one with revloop run --store \u2026; it appears here as soon as it begins.',
  });
  const anySim = el('p', { className: 'banner', role: 'note', hidden: true }, [
    el('span', { className: 'badge sim', text: 'SIMULATED' }),
    ' rows come from simulated controllers: their numbers describe simulations, not language models.',
  ]);
  const anyUnverified = el('p', { className: 'banner unverified', role: 'alert', hidden: true }, [
    el('span', { className: 'badge bad', text: 'UNVERIFIED' }),
    ' rows disagree with their runs\u2019 own events (a table edited by hand?): do not trust them; revloop audit --run RUN lists every discrepancy.',
  ]);
  const workersWrap = el('div', { id: 'workers-wrap' });
  let workerTimer: ReturnType<typeof setTimeout> | undefined;
  const selA = el('select', { id: 'cmp-a', 'aria-label': 'run A' });
  const selB = el('select', { id: 'cmp-b', 'aria-label': 'run B' });
  const go = el('button', { type: 'button', className: 'action', id: 'cmp-go', text: 'Compare by case' });
  go.addEventListener('click', () => {
    if (selA.value && selB.value) shell.navigate('/compare', { a: selA.value, b: selB.value });
  });
  put(
    root,
    el('h2', { text: 'Runs' }),
    anyUnverified,
    anySim,
    el('div', { className: 'table-wrap' }, [
      el('table', { className: 'runs-live' }, [
        el('thead', null, [
          el('tr', null, [
            el('th', { scope: 'col', text: 'run' }),
            el('th', { scope: 'col', text: 'kind' }),
            el('th', { scope: 'col', text: 'model' }),
            el('th', { scope: 'col', text: 'status' }),
            el('th', { scope: 'col', text: 'progress' }),
            el('th', { scope: 'col', className: 'num', text: 'success' }),
            el('th', { scope: 'col', className: 'num', text: 'failed attempts' }),
            el('th', { scope: 'col', text: 'updated' }),
          ]),
        ]),
        body,
      ]),
    ]),
    empty,
    workersWrap,
    el('div', { className: 'filters compare-pick' }, [el('label', null, ['run A', selA]), el('label', null, ['run B', selB]), go]),
  );

  let seq = 0;
  async function load() {
    const mine = ++seq;
    const data = await getRuns();
    if (mine !== seq) return;
    shell.setCursor(data.cursor);
    const runs = [...data.runs].reverse();
    clear(body);
    for (const r of runs) {
      body.appendChild(
        el('tr', { 'data-run': r.run_id, className: r.simulated ? 'simulated' : null }, [
          el('td', null, [el('a', { href: '/runs/' + encodeURIComponent(r.run_id), 'data-nav': '', text: r.run_id })]),
          el('td', { text: r.kind }),
          el('td', null, modelCell(r.model, r.simulated)),
          el('td', null, [
            statusBadge(r.status),
            r.unverified ? ' ' : null,
            r.unverified ? el('span', { className: 'badge bad', title: r.unverified.join('\n'), text: 'UNVERIFIED' }) : null,
          ]),
          el('td', null, [progress(r)]),
          el('td', { className: 'num', text: r.planned ? `${num(r.successes)} (${pct(r.successes, r.complete)})` : '' }),
          el('td', { className: 'num', text: r.planned ? num(r.failed_attempts) : '' }),
          el('td', { text: shortTime(r.updated_at) }),
        ]),
      );
    }
    sizeBars(body);
    put(workersWrap, workersBlock(data.workers));
    // A worker that dies writes no event: while workers are listed, look again every few seconds.
    clearTimeout(workerTimer);
    if (data.workers && data.workers.length) workerTimer = setTimeout(() => shell.throttle('runs', load, 400), 5000);
    empty.hidden = runs.length > 0;
    anySim.hidden = !runs.some((r) => r.simulated);
    anyUnverified.hidden = !runs.some((r) => r.unverified);
    const comparable = runs.filter((r) => r.has_trajectories);
    for (const [s, pick] of [
      [selA, selA.value || comparable[1]?.run_id],
      [selB, selB.value || comparable[0]?.run_id],
    ] as const) {
      clear(s);
      for (const r of comparable)
        s.appendChild(
          el('option', {
            value: r.run_id,
            text: `${r.run_id} \u00b7 ${shownName(r.model, r.simulated)}${r.simulated ? ' (SIMULATED)' : ''}`,
          }),
        );
      if (pick) s.value = pick;
    }
    markOverflow(root);
    root.setAttribute('data-loaded', String(mine));
  }

  return {
    load,
    onEvent() {
      shell.throttle('runs', load, 400);
    },
    update() {},
    onKey() {
      return false;
    },
    destroy() {
      clearTimeout(workerTimer);
    },
  };
}
