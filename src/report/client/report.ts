/* revloop report: client behaviour (no dependencies, no network), inlined into the page as one
   script (src/html/bundle.ts bundles it with src/html/client).
   - legend buttons focus one or more controllers across every chart;
   - the drill-down reads the trajectory data embedded once as a JSON script element (the
     DrilldownPayload of ../payload.ts), filters and searches it, lists matches a page at a time,
     and builds a trajectory's details (drafts, word diffs, verifier reports) only when it is opened.
   Every model-written string is inserted with textContent, never as HTML. */
import type { DrilldownPayload, PayloadRound, PayloadTrajectory } from '../payload.ts';
import type { ControllerInfo } from '../../studies/kit/report-model.ts';
import { el, energyText, energyTitle, markOverflow, shownName, type Child } from '../../html/client/dom.ts';
import { draftPane } from '../../html/client/word-diff.ts';

const PAGE = 100;

/* ---------- legend focus (charts and bars) ---------- */
function setupLegend(): void {
  let focused: Record<string, boolean> = {};
  const buttons = document.querySelectorAll('[data-focus-controller]');
  function apply(): void {
    const any = Object.values(focused).some(Boolean);
    document.body.classList.toggle('focus-mode', any);
    for (const node of document.querySelectorAll('[data-controller]'))
      node.classList.toggle('focused', !!focused[node.getAttribute('data-controller')!]);
    for (const b of buttons) b.setAttribute('aria-pressed', focused[b.getAttribute('data-focus-controller')!] ? 'true' : 'false');
  }
  for (const b of buttons)
    b.addEventListener('click', () => {
      const name = b.getAttribute('data-focus-controller')!;
      focused[name] = !focused[name];
      apply();
    });
  document.getElementById('clear-focus')?.addEventListener('click', () => {
    focused = {};
    apply();
  });
}

/* ---------- drill-down ---------- */
function readData(): DrilldownPayload | null {
  const node = document.getElementById('revloop-data');
  if (!node) return null;
  return JSON.parse(node.textContent ?? '') as DrilldownPayload;
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function setupDrilldown(data: DrilldownPayload | null): void {
  const root = document.getElementById('drilldown');
  if (!root || !data) return;
  const { strings, trajectories: trajs, controllers } = data;
  const labels = data.labels || { repeat: {}, category: {}, outcome: {} };
  const lower: string[] = new Array(strings.length);
  const lowerOf = (i: number) => (lower[i] ??= strings[i].toLowerCase());

  const fController = byId<HTMLSelectElement>('f-controller');
  const fFamily = byId<HTMLSelectElement>('f-family');
  const fOutcome = byId<HTMLSelectElement>('f-outcome');
  const fRepeat = byId<HTMLSelectElement>('f-repeat');
  const fCategory = byId<HTMLSelectElement>('f-category');
  const fSearch = byId<HTMLInputElement>('f-search');
  const fDrafts = byId<HTMLInputElement>('f-drafts');
  const count = byId('f-count');
  const tbody = byId('traj-rows');
  const more = byId<HTMLButtonElement>('traj-more');
  const detail = byId('traj-detail');

  function addOptions(select: HTMLSelectElement, values: readonly string[], labelOf?: (v: string) => string): void {
    for (const v of values) select.appendChild(el('option', { value: v, text: labelOf ? labelOf(v) : v }));
  }
  function distinct(fn: (t: PayloadTrajectory) => string | null): string[] {
    const seen = new Set<string>();
    for (const t of trajs) {
      const v = fn(t);
      if (v != null) seen.add(v);
    }
    return [...seen];
  }
  const controllerName = (c: ControllerInfo) => shownName(c.name, c.simulated);
  addOptions(
    fController,
    controllers.map((_c, i) => String(i)),
    (i) => {
      const c = controllers[+i];
      return controllerName(c) + (c.simulated ? ' (SIMULATED)' : '');
    },
  );
  addOptions(
    fFamily,
    distinct((t) => t.fam),
  );
  addOptions(
    fOutcome,
    distinct((t) => t.outcome),
    (v) => labels.outcome[v] || v,
  );
  addOptions(
    fRepeat,
    Object.keys(labels.repeat).filter((k) => trajs.some((t) => t.rc === k)),
    (v) => labels.repeat[v] || v,
  );
  const cats = Object.keys(labels.category).filter((k) => trajs.some((t) => t.cat === k));
  addOptions(fCategory, cats, (v) => labels.category[v] || v);
  if (!cats.length) fCategory.closest('label')!.hidden = true;

  let matches: number[] = [];
  let shown = 0;
  let selectedId: string | null = null;

  function matchesQuery(t: PayloadTrajectory, q: string, inDrafts: boolean): boolean {
    if (!q) return true;
    if (t.caseId.toLowerCase().includes(q) || t.run.toLowerCase().includes(q) || t.src.toLowerCase().includes(q)) return true;
    if (controllers[t.k].name.toLowerCase().includes(q)) return true;
    if (!inDrafts) return false;
    return t.rounds.some((r) => lowerOf(r.t).includes(q));
  }

  function applyFilters(): void {
    const c = fController.value;
    const f = fFamily.value;
    const o = fOutcome.value;
    const r = fRepeat.value;
    const cat = fCategory.value;
    const q = fSearch.value.trim().toLowerCase();
    const inDrafts = fDrafts.checked;
    matches = [];
    trajs.forEach((t, i) => {
      if (c !== '' && String(t.k) !== c) return;
      if (f !== '' && t.fam !== f) return;
      if (o !== '' && t.outcome !== o) return;
      if (r !== '' && t.rc !== r) return;
      if (cat !== '' && t.cat !== cat) return;
      if (matchesQuery(t, q, inDrafts)) matches.push(i);
    });
    tbody.textContent = '';
    shown = 0;
    renderMore();
  }

  function outcomeBadge(t: PayloadTrajectory): HTMLElement {
    const cls = t.outcome === 'success' ? 'ok' : t.outcome === 'failure' ? 'bad' : 'neutral';
    return el('span', { className: 'badge ' + cls, text: labels.outcome[t.outcome] || t.outcome });
  }
  function simBadge(): HTMLElement {
    return el('span', { className: 'badge sim', text: 'SIMULATED', title: 'Simulated controller: not a model\u2019s behaviour' });
  }
  function controllerCell(c: ControllerInfo): Child[] {
    return [controllerName(c), c.simulated ? ' ' : null, c.simulated ? simBadge() : null];
  }

  function rowFor(index: number): HTMLElement {
    const t = trajs[index];
    const last = t.rounds.length ? t.rounds[t.rounds.length - 1] : null;
    const tr = el('tr', { tabindex: '0', 'data-id': t.id, 'aria-selected': t.id === selectedId ? 'true' : 'false' }, [
      el('td', null, [el('code', { text: t.caseId })]),
      el('td', null, controllerCell(controllers[t.k])),
      el('td', { text: t.fam }),
      el('td', { text: t.src }),
      el('td', null, [outcomeBadge(t)]),
      el('td', { text: t.rc ? labels.repeat[t.rc] || t.rc : '' }),
      el('td', { className: 'num', text: String(Math.max(0, t.rounds.length - 1)) }),
      el('td', { className: 'num', text: energyText(last?.e), title: energyTitle(last?.e) }),
    ]);
    const open = () => openTrajectory(index, true);
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        open();
      }
    });
    return tr;
  }

  function renderMore(): void {
    const end = Math.min(matches.length, shown + PAGE);
    const frag = document.createDocumentFragment();
    for (let i = shown; i < end; i++) frag.appendChild(rowFor(matches[i]));
    tbody.appendChild(frag);
    shown = end;
    count.textContent = `Showing ${shown.toLocaleString('en')} of ${matches.length.toLocaleString('en')} matching trajectories (${trajs.length.toLocaleString('en')} in total)`;
    more.hidden = shown >= matches.length;
  }

  function draft(t: PayloadTrajectory, ri: number): HTMLElement {
    const r = t.rounds[ri];
    const prev = ri > 0 ? t.rounds[ri - 1] : null;
    return draftPane({ text: strings[r.t], prev: prev && { text: strings[prev.t], revision: prev.v }, diff: r.d, imported: !!t.imp });
  }

  function feedbackPane(t: PayloadTrajectory, r: PayloadRound): HTMLElement {
    if (r.j)
      return el('div', { className: 'pane' }, [
        el('div', { className: 'pane-title', text: 'Verifier' }),
        el('p', { text: 'Joint success: every constraint holds. The loop stops here.' }),
      ]);
    if (r.fb < 0)
      return el('div', { className: 'pane' }, [
        el('div', { className: 'pane-title', text: 'Verifier report' }),
        el('p', { className: 'empty', text: t.err || 'not available' }),
      ]);
    // An import's reports were never sent by revloop: they are its rendering of the stored state.
    if (t.imp)
      return el('div', { className: 'pane' }, [
        el('div', {
          className: 'pane-title',
          text: 'Verifier report \u2014 revloop\u2019s rendering of this state (imported: not sent by revloop)',
        }),
        el('pre', { className: 'feedback unsent', text: strings[r.fb] }),
      ]);
    return el('div', { className: 'pane' }, [
      el('div', {
        className: 'pane-title',
        text: r.sent ? 'Verifier report \u2014 sent to the model' : 'Verifier report \u2014 not sent (budget exhausted)',
      }),
      el('pre', { className: 'feedback' + (r.sent ? '' : ' unsent'), text: strings[r.fb] }),
    ]);
  }

  function openTrajectory(index: number, updateHash: boolean): void {
    const t = trajs[index];
    selectedId = t.id;
    for (const tr of tbody.querySelectorAll('tr[aria-selected="true"]')) tr.setAttribute('aria-selected', 'false');
    const row = tbody.querySelector(`tr[data-id="${cssEscape(t.id)}"]`);
    if (row) row.setAttribute('aria-selected', 'true');
    detail.textContent = '';
    detail.hidden = false;
    const head = el('h3', null, ['Case ', el('code', { text: t.caseId }), ' \u00b7 ', ...controllerCell(controllers[t.k])]);
    const facts: Array<[string, string | HTMLElement]> = [
      ['run', t.run],
      ['family', t.fam],
      ['source', t.src],
      ['outcome', outcomeBadge(t)],
      ['repeat class', t.rc ? labels.repeat[t.rc] || t.rc : t.outcome === 'failure' ? '' : 'n/a (not a failure)'],
    ];
    if (t.cat) facts.push(['failure category', labels.category[t.cat] || t.cat]);
    if (t.target != null) facts.push(['target words', String(t.target)]);
    if (t.anchors) facts.push(['anchors', t.anchors.join('; ')]);
    facts.push(['revisions used', `${Math.max(0, t.rounds.length - 1)} of ${t.budget}`]);
    if (t.status !== 'complete') facts.push(['status', t.status + (t.why ? ': ' + t.why : '')]);
    const dl = el('dl', { className: 'facts' });
    for (const [k, v] of facts) dl.append(el('dt', { text: k }), typeof v === 'string' ? el('dd', { text: v }) : el('dd', null, [v]));
    const parts: HTMLElement[] = [head, dl];
    if (t.imp)
      parts.push(
        el('p', { className: 'note import-note' }, [
          el('span', { className: 'badge neutral', text: 'IMPORTED' }),
          ` Imported trajectory (${t.imp}): its drafts are as logged by its source. revloop verified them and sent nothing to any model; the prompt and verifier reports below are revloop\u2019s renderings for this case and these states, not a record of what the source sent.`,
        ]),
      );
    if (t.p >= 0) {
      parts.push(
        el('details', { className: 'more' }, [
          el('summary', {
            text: t.imp
              ? 'Initial prompt (revloop\u2019s rendering of this case; imported run: not sent by revloop)'
              : 'Initial prompt (exactly as sent)',
          }),
          el('pre', { className: 'prompt', text: strings[t.p] }),
        ]),
      );
    }
    if (t.err) parts.push(el('p', { className: 'note', text: t.err }));
    // Equal string indices are byte-identical drafts (the payload interns every text once).
    const firstSeen = new Map<number, number>();
    t.rounds.forEach((r, ri) => {
      const badges = [
        el('strong', { text: 'Revision ' + r.v }),
        r.j ? el('span', { className: 'badge ok', text: 'joint success' }) : el('span', { className: 'badge bad', text: 'violations' }),
        el('span', { className: 'muted', text: 'energy ' + energyText(r.e), title: energyTitle(r.e) }),
      ];
      const seen = firstSeen.get(r.t);
      if (seen !== undefined) badges.push(el('span', { className: 'badge neutral', text: 'identical to revision ' + seen }));
      else firstSeen.set(r.t, r.v);
      parts.push(
        el('div', { className: 'round', 'data-revision': r.v }, [
          el('div', { className: 'round-head' }, badges),
          el('div', { className: 'cols' }, [draft(t, ri), feedbackPane(t, r)]),
        ]),
      );
    });
    if (!t.rounds.length) parts.push(el('p', { className: 'empty', text: 'No accepted drafts.' }));
    const close = el('button', { type: 'button', className: 'action no-print', text: 'Close' });
    close.addEventListener('click', () => {
      detail.hidden = true;
      selectedId = null;
      if (row) row.setAttribute('aria-selected', 'false');
      history.replaceState(null, '', location.pathname + location.search + '#drilldown');
    });
    parts.unshift(el('div', { className: 'no-print' }, [close]));
    detail.append(...parts);
    if (updateHash) history.replaceState(null, '', '#t=' + encodeURIComponent(t.id));
    detail.scrollIntoView({ block: 'start' });
  }

  function cssEscape(s: string): string {
    return s.replace(/["\\]/g, '\\$&');
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  for (const s of [fController, fFamily, fOutcome, fRepeat, fCategory, fDrafts]) s.addEventListener('change', applyFilters);
  fSearch.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(applyFilters, 150);
  });
  more.addEventListener('click', renderMore);
  byId('f-reset').addEventListener('click', () => {
    for (const s of [fController, fFamily, fOutcome, fRepeat, fCategory]) s.value = '';
    fSearch.value = '';
    applyFilters();
  });
  applyFilters();

  const m = /^#t=(.+)$/.exec(location.hash);
  if (m) {
    const id = decodeURIComponent(m[1]);
    const i = trajs.findIndex((t) => t.id === id);
    if (i >= 0) openTrajectory(i, false);
  }
  root.setAttribute('data-ready', 'true');
}

// A table wider than the page scrolls inside its box: say so above it, with the number of columns
// out of sight, and let the keyboard scroll it (the CSS adds edge shadows while there is more).
const markTables = () => markOverflow(document, 'scroll-cue no-print');

function start(): void {
  setupLegend();
  markTables();
  window.addEventListener('resize', markTables);
  window.addEventListener('beforeprint', () => {
    for (const d of document.querySelectorAll<HTMLDetailsElement>('details.more')) d.open = true;
  });
  let data: DrilldownPayload | null;
  try {
    data = readData();
  } catch (e) {
    document
      .getElementById('drilldown')
      ?.appendChild(el('p', { className: 'banner', text: 'The embedded trajectory data could not be read: ' + (e as Error)?.message }));
    return;
  }
  setupDrilldown(data);
  document.documentElement.setAttribute('data-report-ready', 'true');
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
