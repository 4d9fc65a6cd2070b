// The one word-diff renderer of the report's trajectory browser and the viewer's timelines: a
// draft's pane with the diff against the previous draft (inserted words as <ins class="add">,
// removed ones as <del class="rem">, a whitespace-only change outlined by .ws) and a switch to the
// plain text. The encoded diff comes from src/html/word-diff.ts (report data, viewer API).
import { decodeWordDiff, type EncodedDiff } from './diff-segments.ts';
import { clear, el } from './dom.ts';

/** The word diff between two drafts as nodes, from the encoded [op, length, …] list. */
export function diffNodes(oldText: string, newText: string, ops: readonly number[]): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const s of decodeWordDiff(oldText, newText, ops)) {
    if (s.op === 0) frag.appendChild(document.createTextNode(s.text));
    else {
      const ws = /^\s+$/.test(s.text) ? ' ws' : '';
      frag.appendChild(
        s.op === 1 ? el('ins', { className: 'add' + ws, text: s.text }) : el('del', { className: 'rem' + ws, text: s.text }),
      );
    }
  }
  return frag;
}

/** One round's draft as a pane shows it. */
export interface DraftView {
  text: string;
  /** The previous round's draft and its revision; null for the first draft. */
  prev: { text: string; revision: number } | null;
  /** The encoded diff against `prev`: null when it was too large to compute, undefined when none was sent (identical drafts). */
  diff: EncodedDiff | undefined;
  /** An imported run: the draft is as its source logged it. */
  imported: boolean;
}

/** A draft's pane: the diff against the previous draft (switchable to the text), or the text alone. */
export function draftPane(d: DraftView): HTMLElement {
  const { prev, diff } = d;
  const pre = el('pre', { className: 'text' });
  const title = el('div', { className: 'pane-title' }, [d.imported ? 'Draft (imported, as logged by its source)' : 'Draft']);
  const tabs = el('span', { className: 'tabs' });
  const show = (mode: 'diff' | 'text') => {
    clear(pre);
    if (mode === 'diff' && prev && diff) pre.appendChild(diffNodes(prev.text, d.text, diff));
    else pre.textContent = d.text;
    if (!d.text.length) pre.appendChild(el('span', { className: 'empty', text: '(empty draft)' }));
    for (const b of tabs.querySelectorAll('button'))
      b.setAttribute('aria-pressed', b.getAttribute('data-mode') === mode ? 'true' : 'false');
  };
  if (prev && diff) {
    tabs.append(
      el('button', { type: 'button', 'data-mode': 'diff', text: `diff vs r${prev.revision}`, on: { click: () => show('diff') } }),
      el('button', { type: 'button', 'data-mode': 'text', text: 'text', on: { click: () => show('text') } }),
    );
    title.appendChild(tabs);
  } else if (prev && prev.text === d.text)
    title.appendChild(el('span', { className: 'muted', text: `(unchanged from revision ${prev.revision})` }));
  else if (prev) title.appendChild(el('span', { className: 'muted', text: '(diff too large to compute; full text shown)' }));
  show(prev && diff ? 'diff' : 'text');
  return el('div', { className: 'pane draft' }, [title, pre]);
}
