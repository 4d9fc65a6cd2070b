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

/** An energy as the report shows it: 4 significant digits (the exact value is energyTitle's tooltip). */
export function energyText(e) {
  return e == null || !Number.isFinite(e) ? '\u2013' : String(Number(e.toPrecision(4)));
}

export function energyTitle(e) {
  return e == null || !Number.isFinite(e) ? null : 'exact: ' + String(e);
}

/**
 * A case id as code that may wrap after each "__" (and, for one long run of characters, anywhere):
 * real ids such as dolly_creative_writing__0349f472e484d1632540cdbd would otherwise push the
 * columns after them out of view.
 */
export function caseIdNode(id) {
  const code = el('code', { className: 'case-id' });
  const parts = String(id).split('__');
  parts.forEach((p, i) => {
    code.appendChild(document.createTextNode(i < parts.length - 1 ? p + '__' : p));
    if (i < parts.length - 1) code.appendChild(document.createElement('wbr'));
  });
  return code;
}

/**
 * Says above every table wider than its box how many columns are out of sight ("↔ 3 more columns
 * to the right: scroll the table sideways"), as the report does, keeps it right while the table
 * is scrolled, and lets the keyboard scroll it; removes the cue once the table fits. Call after
 * rendering and on resize.
 */
export function markOverflow(root) {
  for (const wrap of (root || document).querySelectorAll('.table-wrap')) {
    const over = wrap.scrollWidth > wrap.clientWidth + 1;
    const prev = wrap.previousElementSibling;
    let cue = prev && prev.classList.contains('scroll-cue') ? prev : null;
    wrap.classList.toggle('overflows', over);
    if (!over) {
      if (cue) cue.remove();
      wrap.removeAttribute('tabindex');
      continue;
    }
    if (!cue) {
      cue = el('p', { className: 'scroll-cue' });
      wrap.parentNode.insertBefore(cue, wrap);
    }
    cue.textContent = overflowText(wrap);
    wrap.setAttribute('tabindex', '0');
    if (!wrap.getAttribute('aria-label')) wrap.setAttribute('aria-label', 'table (scrolls sideways)');
    if (!wrap.hasAttribute('data-cue')) {
      wrap.setAttribute('data-cue', '');
      wrap.addEventListener('scroll', () => {
        const c = wrap.previousElementSibling;
        if (c && c.classList.contains('scroll-cue')) c.textContent = overflowText(wrap);
      });
    }
  }
}

/** The cue's text: the columns cut off at the right edge (or, scrolled to the end, those at the left). */
function overflowText(wrap) {
  const box = wrap.getBoundingClientRect();
  const row = wrap.querySelector('thead tr:last-child') || wrap.querySelector('tr');
  const cells = row ? [...row.children] : [];
  const right = cells.filter((c) => c.getBoundingClientRect().right > box.right + 1).length;
  const left = cells.filter((c) => c.getBoundingClientRect().left < box.left - 1).length;
  if (right) return `\u2194 ${right} more column${right === 1 ? '' : 's'} to the right: scroll the table sideways`;
  if (left) return `\u2194 ${left} more column${left === 1 ? '' : 's'} to the left: scroll the table back`;
  return '\u2194 More columns to the right: scroll the table sideways';
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
