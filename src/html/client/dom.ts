// Browser code shared by the report's script and the viewer's app: building elements, the energy
// and controller-name formats both show, and the cue above a table wider than its box. Every
// string goes in as text (textContent, text nodes, attribute values through setAttribute), never as
// markup: model outputs are untrusted.

/** A child of `el`: a node, or text; null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false;

/** Listeners by event type. */
export type Listeners = { [K in keyof HTMLElementEventMap]?: (ev: HTMLElementEventMap[K]) => void };

/**
 * `el`'s attributes: `text` sets textContent, `className` the class, `on` event listeners; every
 * other key becomes an attribute (null, undefined and false skipped, true → empty).
 */
export interface Attrs {
  text?: string | number | null;
  className?: string | null;
  on?: Listeners;
  [attribute: string]: string | number | boolean | null | undefined | Listeners;
}

/** Builds an element with its attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  children?: readonly Child[],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = String(value);
    else if (key === 'on') {
      for (const [type, fn] of Object.entries(value as Listeners)) node.addEventListener(type, fn as EventListener);
    } else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const c of children ?? []) {
    if (c == null || c === false) continue;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}

/** Removes every child of a node. */
export function clear<N extends Node>(node: N): N {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** An energy as the reports show it: 4 significant digits (the exact value is energyTitle's tooltip). */
export function energyText(e: number | null | undefined): string {
  return e == null || !Number.isFinite(e) ? '\u2013' : String(Number(e.toPrecision(4)));
}

/** The tooltip with an energy's exact value. */
export function energyTitle(e: number | null | undefined): string | null {
  return e == null || !Number.isFinite(e) ? null : 'exact: ' + String(e);
}

/** A controller's name as shown next to its SIMULATED badge (the badge says it once). */
export function shownName(name: string, simulated: boolean): string {
  return simulated ? name.replace(/\s*\[simulated\]$/i, '') : name;
}

/**
 * Says above every table wider than its box how many columns are out of sight ("↔ 3 more columns
 * to the right: scroll the table sideways"), keeps it right while the table is scrolled, and lets
 * the keyboard scroll it; removes the cue once the table fits. Call after rendering and on resize.
 * `cueClass`: the cue's classes (they start with scroll-cue).
 */
export function markOverflow(root: ParentNode = document, cueClass = 'scroll-cue'): void {
  for (const wrap of root.querySelectorAll<HTMLElement>('.table-wrap')) {
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
      cue = el('p', { className: cueClass });
      wrap.parentNode?.insertBefore(cue, wrap);
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
function overflowText(wrap: HTMLElement): string {
  const box = wrap.getBoundingClientRect();
  const row = wrap.querySelector('thead tr:last-child') ?? wrap.querySelector('tr');
  const cells = row ? [...row.children] : [];
  const right = cells.filter((c) => c.getBoundingClientRect().right > box.right + 1).length;
  const left = cells.filter((c) => c.getBoundingClientRect().left < box.left - 1).length;
  if (right) return `\u2194 ${right} more column${right === 1 ? '' : 's'} to the right: scroll the table sideways`;
  if (left) return `\u2194 ${left} more column${left === 1 ? '' : 's'} to the left: scroll the table back`;
  return '\u2194 More columns to the right: scroll the table sideways';
}
