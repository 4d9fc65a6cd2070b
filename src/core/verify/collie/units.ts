// COLLIE's own units (collie/constraints.py, `Level.__call__`) beyond the word and sentence units the
// paper's families already share (structured/units.ts): characters and paragraphs. Every unit is
// `strip()`ped and then stripped of "." at both ends, exactly as COLLIE does for every level.
import { pyStrip } from '../../py/format.ts';
import { pyStripChars as stripChars } from '../../py/strings.ts';

/** COLLIE's unit clean-up: `tok.strip().strip('.')`. */
function unitStrip(token: string): string {
  return stripChars(pyStrip(token), '.');
}

/**
 * Character level: Python `list(text)` (code points, so an emoji is one character), each cleaned,
 * so a space or a "." becomes an empty string that still counts.
 */
export function characters(text: string): string[] {
  const out: string[] = [];
  for (const ch of text) out.push(unitStrip(ch));
  return out;
}

/** The number of characters COLLIE counts: Python `len(list(text))` (code points). */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Paragraph level: `text.split("\n\n")`, each cleaned (an empty paragraph stays, as ""). */
export function paragraphs(text: string): string[] {
  return text.split('\n\n').map(unitStrip);
}
