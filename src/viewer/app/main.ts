/* revloop view: the app shell. The URL is the state (path + query), so a link reproduces a view;
   views are mounted by path and updated in place when only the query changes. One event stream
   (/api/events) keeps every view live; it reconnects by itself and misses nothing. */
import { listen, query } from './api.ts';
import { clear, el, markOverflow, put } from './dom.ts';
import { mountCompare } from './compare-page.ts';
import { mountRun } from './run-page.ts';
import { mountRuns } from './runs-page.ts';
import type { Params, Shell, View } from './view.ts';

const root = document.getElementById('view')!;
const liveBadge = document.getElementById('live')!;
let current: { key: string; view: View } | null = null;
let source: EventSource | null = null;
const timers = new Map<string, { again: boolean }>();

/** Runs `fn` at most once per `ms` for a key (the latest call wins; no call is lost). */
function throttle(key: string, fn: () => unknown, ms: number): void {
  const running = timers.get(key);
  if (running) {
    running.again = true;
    return;
  }
  const entry = { again: false };
  timers.set(key, entry);
  Promise.resolve(fn()).catch(() => {});
  setTimeout(() => {
    timers.delete(key);
    if (entry.again) throttle(key, fn, ms);
  }, ms);
}

function setCursor(cursor: number): void {
  if (source || typeof cursor !== 'number') return;
  source = listen(
    cursor,
    (e) => {
      if (current) current.view.onEvent(e);
    },
    (status, message) => {
      liveBadge.textContent = status === 'live' ? '\u25cf live' : status === 'problem' ? '\u25cf ' + message : '\u25cb reconnecting\u2026';
      liveBadge.className = 'live ' + status;
      document.documentElement.setAttribute('data-live', status);
    },
  );
}

function params(): Params {
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(location.search)) out[k] = v;
  return out;
}

function navigate(path: string, p: Params, options?: { replace?: boolean }): void {
  const url = path + query(p);
  if (url === location.pathname + location.search) return;
  if (options && options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route();
}

const shell: Shell = { navigate, throttle, setCursor };

function route(): void {
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const key = parts[0] === 'runs' && parts[1] !== undefined ? 'run:' + parts[1] : parts[0] === 'compare' ? 'compare' : 'runs';
  for (const a of document.querySelectorAll('header nav a'))
    a.setAttribute('aria-current', a.getAttribute('data-view') === key.split(':')[0] ? 'page' : 'false');
  if (current && current.key === key) {
    current.view.update(params());
    return;
  }
  if (current) current.view.destroy();
  clear(root);
  const view = key.startsWith('run:')
    ? mountRun(root, shell, parts[1])
    : key === 'compare'
      ? mountCompare(root, shell)
      : mountRuns(root, shell);
  current = { key, view };
  document.title = key === 'runs' ? 'revloop view' : key === 'compare' ? 'compare \u00b7 revloop view' : `${parts[1]} \u00b7 revloop view`;
  view.load(params()).then(
    () => document.documentElement.setAttribute('data-ready', 'true'),
    (e: Error) => {
      put(root, el('h2', { text: 'Could not load this view' }), el('p', { className: 'empty', id: 'load-error', text: e.message }));
      document.documentElement.setAttribute('data-ready', 'true');
    },
  );
}

// Same-origin links marked data-nav change the view without reloading the page.
document.addEventListener('click', (ev) => {
  const a = ev.target instanceof Element ? ev.target.closest<HTMLAnchorElement>('a[data-nav]') : null;
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  ev.preventDefault();
  history.pushState(null, '', url.pathname + url.search);
  route();
});

document.addEventListener('keydown', (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const t = ev.target;
  const typing =
    t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable);
  if (typing && ev.key !== 'Escape') return;
  if (typing && ev.key === 'Escape') {
    t.blur();
    return;
  }
  if (current && current.view.onKey(ev)) ev.preventDefault();
});

// Legend buttons of the curve charts highlight one or more controllers across every chart.
document.addEventListener('click', (ev) => {
  const b = ev.target instanceof Element ? ev.target.closest('[data-focus-controller], #clear-focus') : null;
  if (!b) return;
  const section = b.closest('#analysis') || document;
  const buttons = [...section.querySelectorAll('[data-focus-controller]')];
  if (b.id === 'clear-focus') for (const x of buttons) x.setAttribute('aria-pressed', 'false');
  else b.setAttribute('aria-pressed', b.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
  const focused = new Set(
    buttons.filter((x) => x.getAttribute('aria-pressed') === 'true').map((x) => x.getAttribute('data-focus-controller')),
  );
  document.body.classList.toggle('focus-mode', focused.size > 0);
  for (const node of section.querySelectorAll('[data-controller]'))
    node.classList.toggle('focused', focused.has(node.getAttribute('data-controller')));
});

window.addEventListener('popstate', route);
// Tables wider than their box say how many columns are out of sight; a new width changes that.
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => markOverflow(root), 100);
});
route();
