// What a simulated controller reads from the initial prompt: the family and its constraints. It
// understands the exact-length prompt in all three wording variants (baseline, structured,
// concise) and COLLIE task texts for c05, c07, c09, c10 and c12 (any variant wraps the same task).
import { simCount } from './limits.ts';

export type SimTask =
  | { family: 'exact-length'; target: number; anchors: string[] }
  | { family: 'c05'; words: number; positions: number[]; targetWords: string[] }
  | { family: 'c07'; required: string[] }
  | { family: 'c09'; sentences: number; forbidden: string[] }
  | { family: 'c10'; sentences: number; lower: number; upper: number }
  | { family: 'c12'; sentences: number; lastWords: string[] }
  | { family: 'unknown' };

/** Splits the unescaped quoted list COLLIE writes: `'a', 'b', 'c'` (quotes are never escaped). */
function parseQuotedList(s: string): string[] {
  const t = s.trim().replace(/,$/, '').trim();
  if (t.length < 2 || t[0] !== "'" || t[t.length - 1] !== "'") return [];
  return t.slice(1, -1).split("', '");
}

function splitAnchors(s: string): string[] {
  return s === '' ? [] : s.split('; ');
}

const EXACT_BASELINE =
  /\n\nLength constraint: write exactly (\d+) words under the deterministic word counter\. The response must explicitly retain these required content items: ([\s\S]*)\. Return only the requested response\. Do not include a preface, word-count note, analysis, or commentary\.$/;
const EXACT_CONCISE =
  /\n\nWrite exactly (\d+) words, as measured by the deterministic word counter\. Include each of these required content items explicitly: ([\s\S]*)\. Output the response only, without a preface, count, analysis, or commentary\.$/;
const EXACT_STRUCTURED = /\n\nCONSTRAINTS\nTARGET_WORDS: (\d+)\nREQUIRED_CONTENT: ([^\n]*)\nCOUNTING: deterministic word counter\n/;

const C05 = /with exactly (\d+) words;\s*\n\s*\d+\) with the ((?:\d+(?:st|nd|rd|th)(?:, )?)+) words to be ([\s\S]*?) respectively\./;
const C07 = /generate a sentence containing the word ([\s\S]*?)\.(?:\n|$)/;
const C09_COUNT = /generate a paragraph:\s*\n\s*\d+\) with exactly (\d+) sentences;\s*\n\s*\d+\) not containing the word/;
const C09_WORD = /not containing the word ('[\s\S]*?')[;.](?=\n|$)/g;
const C10 =
  /with exactly (\d+) sentences;\s*\n\s*\d+\) with all sentences having at least (\d+) words;\s*\n\s*\d+\) with all sentences having at most (\d+) words\./;
const C12 = /with exactly (\d+) sentences;\s*\n\s*\d+\) with sentences having the last word to be ([\s\S]*?), respectively\./;

export function parseTask(prompt: string): SimTask {
  let m = EXACT_BASELINE.exec(prompt) ?? EXACT_CONCISE.exec(prompt) ?? EXACT_STRUCTURED.exec(prompt);
  if (m) return { family: 'exact-length', target: simCount(m[1]), anchors: splitAnchors(m[2]) };
  if ((m = C05.exec(prompt))) {
    const positions = (m[2].match(/\d+/g) ?? []).map(Number);
    const targetWords = parseQuotedList(m[3]);
    if (positions.length && positions.length === targetWords.length)
      return { family: 'c05', words: simCount(m[1]), positions, targetWords };
  }
  if ((m = C10.exec(prompt))) return { family: 'c10', sentences: simCount(m[1]), lower: simCount(m[2]), upper: simCount(m[3]) };
  if ((m = C12.exec(prompt))) return { family: 'c12', sentences: simCount(m[1]), lastWords: parseQuotedList(m[2]) };
  if ((m = C09_COUNT.exec(prompt))) {
    const forbidden = [...prompt.matchAll(C09_WORD)].flatMap((x) => parseQuotedList(x[1]));
    return { family: 'c09', sentences: simCount(m[1]), forbidden };
  }
  if ((m = C07.exec(prompt))) {
    const required = parseQuotedList(m[1]);
    if (required.length) return { family: 'c07', required };
  }
  return { family: 'unknown' };
}
