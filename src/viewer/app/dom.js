/* revloop view: DOM helpers. Every string goes in as text (textContent, text nodes, attribute
   values through setAttribute), never as markup: model outputs are untrusted. The one exception
   is the analysis sections, which the server renders through the report's escaping renderer
   (src/html/blocks.ts) and which `trustedSections` inserts. */

/**
 * Builds an element. attrs: `text` sets textContent, `className` the class, `on` an object of
 * event listeners; every other key becomes an attribute (null/false skipped, true → empty).
 */
export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = value;
    else if (key === 'on') for (const [type, fn] of Object.entries(value)) node.addEventListener(type, fn);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const c of children || []) {
    if (c == null || c === false) continue;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** Replaces a node's children with the given ones, skipping null and false (Element.append would write "null"). */
export function put(node, ...children) {
  clear(node);
  for (const c of children) if (c != null && c !== false) node.append(c);
  return node;
}

/** The server-rendered, escaped HTML of analysis sections (no scripts; the CSP forbids any). */
export function trustedSections(html) {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

export const SIMULATED = 'SIMULATED';

export function simBadge() {
  return el('span', {
    className: 'badge sim',
    text: SIMULATED,
    title: 'Simulated controller: these numbers are not a language model\u2019s behaviour',
  });
}

/** A controller's name as shown next to its SIMULATED badge (the badge says it once). */
export function shownName(name, simulated) {
  return simulated ? name.replace(/\s*\[simulated\]$/i, '') : name;
}

export function modelCell(name, simulated) {
  return [el('span', { className: 'ctl', text: shownName(name, simulated) }), simulated ? ' ' : null, simulated ? simBadge() : null];
}

const OUTCOME_CLASS = { success: 'ok', failure: 'bad', incomplete: 'neutral', pending: 'neutral' };

export function outcomeBadge(outcome, labels) {
  return el('span', {
    className: 'badge ' + (OUTCOME_CLASS[outcome] || 'neutral'),
    text: (labels && labels.outcome && labels.outcome[outcome]) || outcome,
  });
}

export function num(x, digits) {
  if (x == null || !Number.isFinite(x)) return '\u2013';
  return digits == null ? x.toLocaleString('en') : x.toFixed(digits);
}

export function pct(k, n) {
  return n ? ((100 * k) / n).toFixed(1) + '%' : '\u2013';
}

export function shortTime(iso) {
  return typeof iso === 'string' ? iso.replace('T', ' ').slice(0, 19) : '';
}

/** A p-value as the analysis prints it. */
export function pValue(p) {
  if (p == null || !Number.isFinite(p)) return '\u2013';
  if (p < 0.0001) return p.toExponential(2);
  return p.toFixed(4);
}

/** A <select> with an "all" option and the given [value, label] pairs; `value` selected. */
export function select(id, label, options, value, onChange) {
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

/** Renders the word diff between two drafts from the encoded [op, length, …] list (src/html/word-diff.ts). */
export function diffNodes(oldText, newText, ops) {
  const frag = document.createDocumentFragment();
  let i = 0;
  let j = 0;
  for (let k = 0; k < ops.length; k += 2) {
    const op = ops[k];
    const len = ops[k + 1];
    if (op === 1) {
      const s = newText.slice(j, j + len);
      frag.appendChild(el('ins', { className: 'add' + (/^\s+$/.test(s) ? ' ws' : ''), text: s }));
      j += len;
    } else if (op === -1) {
      const s = oldText.slice(i, i + len);
      frag.appendChild(el('del', { className: 'rem' + (/^\s+$/.test(s) ? ' ws' : ''), text: s }));
      i += len;
    } else {
      frag.appendChild(document.createTextNode(newText.slice(j, j + len)));
      i += len;
      j += len;
    }
  }
  return frag;
}
