// What a simulated controller reads from a verifier report (the last user message): the exact-length
// report in all three wording variants, and the structured "DETERMINISTIC VERIFIER REPORT" lines of
// c05, c07, c09, c10 and c12 (docs/protocol.md §1.2–1.3). Values are shown with Python repr(), `<missing>`
// for None and lower-case booleans; this module reads them back.
import { simCount } from './limits.ts';

export interface ExactReport {
  kind: 'exact-length';
  count: number;
  target: number;
  missing: string[];
}

export interface StructuredReport {
  kind: 'structured';
  totalWords?: { observed: number; target: number };
  positions: Array<{ position: number; target: string | null; observed: string | null; correct: boolean }>;
  required: Array<{ word: string | null; present: boolean }>;
  sentences?: { observed: number; target: number };
  forbidden: Array<{ word: string | null; count: number }>;
  bounds?: { lower: number; upper: number };
  sentenceWords: Array<{ index: number; words: number; deficit: number; excess: number }>;
  lastWords: Array<{ index: number; target: string | null; observed: string | null; correct: boolean }>;
}

type SimReport = ExactReport | StructuredReport;

/**
 * Reads one Python repr() string literal (or `<missing>`) at the start of `s`. Returns the value and
 * the rest of the input, or null when `s` does not start with one.
 */
export function readPyValue(s: string): { value: string | null; rest: string } | null {
  if (s.startsWith('<missing>')) return { value: null, rest: s.slice('<missing>'.length) };
  const q = s[0];
  if (q !== "'" && q !== '"') return null;
  let out = '';
  for (let i = 1; i < s.length; i++) {
    const ch = s[i];
    if (ch === q) return { value: out, rest: s.slice(i + 1) };
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const n = s[++i];
    const simple: Record<string, string> = {
      '\\': '\\',
      "'": "'",
      '"': '"',
      n: '\n',
      t: '\t',
      r: '\r',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
      '0': '\0',
    };
    if (n in simple) out += simple[n];
    else if (n === 'x' || n === 'u' || n === 'U') {
      const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
      out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 1 + len), 16));
      i += len;
    } else out += '\\' + n;
  }
  return null;
}

const EXACT_PATTERNS: RegExp[] = [
  // baseline
  /previous response = (\d+) words; target = (\d+); required action = (?:add|remove) exactly \d+ words\. Missing required content items: ([\s\S]*?)\. Revise the complete response/,
  // concise
  /the response has (\d+) words; the target is (\d+)\. (?:Add|Remove) exactly \d+ words\. Missing required content: ([\s\S]*?)\. Revise the whole response/,
  // structured
  /CURRENT_WORDS: (\d+)\nTARGET_WORDS: (\d+)\nREQUIRED_ACTION: (?:add|remove) exactly \d+ words\nMISSING_REQUIRED_CONTENT: ([^\n]*)\n/,
];

function bool(s: string): boolean {
  return s === 'true';
}

export function parseReport(text: string): SimReport | null {
  for (const re of EXACT_PATTERNS) {
    const m = re.exec(text);
    if (m) return { kind: 'exact-length', count: simCount(m[1]), target: simCount(m[2]), missing: m[3] === 'none' ? [] : m[3].split('; ') };
  }
  if (!text.includes('DETERMINISTIC VERIFIER REPORT')) return null;
  const r: StructuredReport = { kind: 'structured', positions: [], required: [], forbidden: [], sentenceWords: [], lastWords: [] };
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^- total words: observed=(\d+), target=(\d+), residual/.exec(line))) {
      r.totalWords = { observed: simCount(m[1]), target: simCount(m[2]) };
    } else if ((m = /^- sentences: observed=(\d+), target=(\d+), residual/.exec(line))) {
      r.sentences = { observed: simCount(m[1]), target: simCount(m[2]) };
    } else if ((m = /^- allowed words per sentence: (\d+) to (\d+) inclusive$/.exec(line))) {
      r.bounds = { lower: simCount(m[1]), upper: simCount(m[2]) };
    } else if ((m = /^- sentence (\d+): words=(\d+), below-minimum-by=(\d+), above-maximum-by=(\d+)$/.exec(line))) {
      r.sentenceWords.push({ index: simCount(m[1]), words: simCount(m[2]), deficit: simCount(m[3]), excess: simCount(m[4]) });
    } else if ((m = /^- word (\d+): target=/.exec(line))) {
      const t = readPyValue(line.slice(m[0].length));
      const o = t && t.rest.startsWith(', observed=') ? readPyValue(t.rest.slice(', observed='.length)) : null;
      const c = o && /^, correct=(true|false)$/.exec(o.rest);
      if (t && o && c) r.positions.push({ position: simCount(m[1]), target: t.value, observed: o.value, correct: bool(c[1]) });
    } else if ((m = /^- sentence (\d+) final word: target=/.exec(line))) {
      const t = readPyValue(line.slice(m[0].length));
      const o = t && t.rest.startsWith(', observed=') ? readPyValue(t.rest.slice(', observed='.length)) : null;
      const c = o && /^, correct=(true|false)$/.exec(o.rest);
      if (t && o && c) r.lastWords.push({ index: simCount(m[1]), target: t.value, observed: o.value, correct: bool(c[1]) });
    } else if (line.startsWith('- required word ')) {
      const t = readPyValue(line.slice('- required word '.length));
      const c = t && /^: present=(true|false)$/.exec(t.rest);
      if (t && c) r.required.push({ word: t.value, present: bool(c[1]) });
    } else if (line.startsWith('- forbidden word ')) {
      const t = readPyValue(line.slice('- forbidden word '.length));
      const c = t && /^: observed-count=(\d+)$/.exec(t.rest);
      if (t && c) r.forbidden.push({ word: t.value, count: simCount(c[1]) });
    }
  }
  return r;
}
