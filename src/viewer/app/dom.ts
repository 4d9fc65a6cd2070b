/* revloop view: DOM helpers. Every string goes in as text (textContent, text nodes, attribute
   values through setAttribute), never as markup: model outputs are untrusted. The one exception
   is the analysis sections, which the server renders through the report's escaping renderer
   (src/html/blocks.ts) and which `trustedSections` inserts. The helpers the report's script uses
   too (el, energies, names, the overflow cue, word diffs) are src/html/client's. */
import type { DrilldownLabels } from '../../studies/kit/report-model.ts';
import { clear, el, shownName, type Child } from '../../html/client/dom.ts';

export { clear, el, energyText, energyTitle, markOverflow, shownName, type Child } from '../../html/client/dom.ts';

/** Replaces a node's children with the given ones, skipping null and false (Element.append would write "null"). */
export function put<N extends Node>(node: N, ...children: Child[]): N {
  clear(node);
  for (const c of children)
    if (c != null && c !== false) node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  return node;
}

/** The server-rendered, escaped HTML of analysis sections (no scripts; the CSP forbids any). */
export function trustedSections(html: string): DocumentFragment {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

export const SIMULATED = 'SIMULATED';

export function simBadge(): HTMLElement {
  return el('span', {
    className: 'badge sim',
    text: SIMULATED,
    title: 'Simulated controller: these numbers are not a language model\u2019s behaviour',
  });
}

/** A controller's name, with its SIMULATED badge when simulated. */
export function modelCell(name: string, simulated: boolean): Child[] {
  return [el('span', { className: 'ctl', text: shownName(name, simulated) }), simulated ? ' ' : null, simulated ? simBadge() : null];
}

const OUTCOME_CLASS: Record<string, string> = { success: 'ok', failure: 'bad', incomplete: 'neutral', pending: 'neutral' };

/** Display names of outcome, repeat-class and category values (as the API sends them). */
export type Labels = DrilldownLabels;

/** No display names yet (before the first listing). */
export const NO_LABELS: Labels = { outcome: {}, repeat: {}, category: {} };

export function outcomeBadge(outcome: string, labels: Labels | null | undefined): HTMLElement {
  return el('span', {
    className: 'badge ' + (OUTCOME_CLASS[outcome] || 'neutral'),
    text: labels?.outcome?.[outcome] || outcome,
  });
}

/**
 * A case id as code that may wrap after each "__" (and, for one long run of characters, anywhere):
 * real ids such as dolly_creative_writing__0349f472e484d1632540cdbd would otherwise push the
 * columns after them out of view.
 */
export function caseIdNode(id: string): HTMLElement {
  const code = el('code', { className: 'case-id' });
  const parts = String(id).split('__');
  parts.forEach((p, i) => {
    code.appendChild(document.createTextNode(i < parts.length - 1 ? p + '__' : p));
    if (i < parts.length - 1) code.appendChild(document.createElement('wbr'));
  });
  return code;
}

export function num(x: number | null | undefined, digits?: number): string {
  if (x == null || !Number.isFinite(x)) return '\u2013';
  return digits == null ? x.toLocaleString('en') : x.toFixed(digits);
}

export function pct(k: number, n: number): string {
  return n ? ((100 * k) / n).toFixed(1) + '%' : '\u2013';
}

export function shortTime(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('T', ' ').slice(0, 19) : '';
}

/** A p-value as the analysis prints it. */
export function pValue(p: number | null | undefined): string {
  if (p == null || !Number.isFinite(p)) return '\u2013';
  if (p < 0.0001) return p.toExponential(2);
  return p.toFixed(4);
}

/** A <select> with an "all" option and the given [value, label] pairs; `value` selected. */
export function select(
  id: string,
  label: string,
  options: ReadonlyArray<readonly [string, string]>,
  value: string | undefined,
  onChange: (value: string) => void,
): HTMLElement {
  const s = el('select', { id, 'aria-label': label, on: { change: () => onChange(s.value) } }, [
    el('option', { value: '', text: 'all' }),
    ...options.map(([v, text]) => el('option', { value: v, text })),
  ]);
  s.value = value || '';
  if (value && s.value !== value) {
    // A value from the URL that the run does not have (yet): keep it selectable.
    s.appendChild(el('option', { value, text: value + ' (0)' }));
    s.value = value;
  }
  return el('label', null, [label, s]);
}
