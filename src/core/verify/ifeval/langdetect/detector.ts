// A port of Python's langdetect 1.0.9 (detector.py, detector_factory.py, utils/ngram.py), the
// detector IFEval's official checker calls: the same 55 profiles, normalisation, n-gram extraction
// and randomised naive-Bayes trials, drawn from CPython's Mersenne Twister (core/py/random.ts) so a
// given seed reproduces Python's numbers. Python's `detect()` seeds with None (fresh entropy per
// call); revloop always seeds with 0, as langdetect's README advises for reproducible results, so
// verdicts are deterministic. docs/verify.md ("Language detection") has the measured agreement.
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { PyRandom } from '../../../py/random.ts';
import { zlib } from '../../../util/lazy-builtin.ts';

/** data.json.gz, as scripts/langdetect-data.py writes it (the profiles in a shape that loads fast). */
interface LangdetectData {
  latin1_excluded: string;
  cjk_classes: string[];
  vi: { to_normalize: string; dmark_class: string; normalized: string[] };
  blocks: Record<string, [number, number]>;
  /** Profile names, sorted, and each profile's n-gram totals by length (1, 2, 3). */
  langs: string[];
  n_words: number[][];
  /** Every n-gram of the profiles, joined by "\n". */
  ngrams: string;
  /** Base64 of uint32 LE: per n-gram in `ngrams` order, m, then m pairs (language index, count). */
  freq: string;
}

const ALPHA_DEFAULT = 0.5;
const ALPHA_WIDTH = 0.05;
const ITERATION_LIMIT = 1000;
const PROB_THRESHOLD = 0.1;
const CONV_THRESHOLD = 0.99999;
const BASE_FREQ = 10000;
const N_TRIAL = 7;
const MAX_TEXT_LENGTH = 10000;
const UNKNOWN_LANG = 'unknown';

const URL_RE = /https?:\/\/[-_.?&~;+=/#0-9A-Za-z]{1,2076}/g;
const MAIL_RE = /[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}/g;
const UPPER = /^\p{Uppercase}$/u;

/** Thrown where Python raises LangDetectException (a text without any n-gram of the profiles). */
export class LangDetectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LangDetectError';
  }
}

interface LanguageProbability {
  lang: string;
  prob: number;
}

class Model {
  readonly langs: string[];
  private readonly nWords: number[][];
  /** The n-grams, and n-gram → its index. */
  private readonly grams: string[];
  private readonly index = new Map<string, number>();
  /** Per n-gram index, where its (language, count) pairs start in `pairs` (and `starts[i + 1]` where they end). */
  private readonly starts: Uint32Array;
  private readonly pairs: Uint32Array;
  /** Probabilities per language of each n-gram asked for so far, by index. */
  private readonly rows: Array<Float64Array | undefined> = [];
  readonly latin1Excluded: Set<string>;
  readonly cjkMap = new Map<string, string>();
  readonly viRe: RegExp;
  readonly vi: LangdetectData['vi'];
  readonly blocks: LangdetectData['blocks'];

  constructor(data: LangdetectData) {
    this.langs = data.langs;
    this.nWords = data.n_words;
    const grams = (this.grams = data.ngrams.split('\n'));
    const bytes = Buffer.from(data.freq, 'base64');
    const words = littleEndianWords(bytes);
    this.pairs = words;
    this.starts = new Uint32Array(grams.length + 1);
    let at = 0;
    for (let i = 0; i < grams.length; i++) {
      this.index.set(grams[i], i);
      this.starts[i] = at + 1;
      at += 1 + 2 * words[at];
    }
    this.starts[grams.length] = at + 1;
    this.latin1Excluded = new Set(data.latin1_excluded);
    for (const list of data.cjk_classes) {
      const chars = [...list];
      for (const ch of chars) this.cjkMap.set(ch, chars[0]);
    }
    const cls = (s: string) => [...s].map((c) => c.replace(/[\]\\^-]/g, '\\$&')).join('');
    this.viRe = new RegExp(`([${cls(data.vi.to_normalize)}])([${cls(data.vi.dmark_class)}])`, 'gu');
    this.vi = data.vi;
    this.blocks = data.blocks;
  }

  /** The n-gram's index (a profile holds it: it is in DetectorFactory's word_lang_prob_map), or -1. */
  indexOf(gram: string): number {
    return this.index.get(gram) ?? -1;
  }

  /**
   * The n-gram's probability per language, as DetectorFactory.add_profile computes it:
   * 1.0 * count / n_words[len - 1] for the languages whose profile holds it, 0.0 for the others.
   */
  probabilities(i: number): Float64Array {
    let row = this.rows[i];
    if (row === undefined) {
      row = new Float64Array(this.langs.length);
      const end = this.starts[i + 1] - 1;
      const length = this.codePoints(i);
      for (let p = this.starts[i]; p < end; p += 2) row[this.pairs[p]] = (1.0 * this.pairs[p + 1]) / this.nWords[this.pairs[p]][length - 1];
      this.rows[i] = row;
    }
    return row;
  }

  /** Code points of the n-gram at index i (1 to 3). */
  private codePoints(i: number): number {
    const gram = this.grams[i];
    let n = 0;
    for (let j = 0; j < gram.length; j++) {
      const c = gram.charCodeAt(j);
      if (c < 0xdc00 || c > 0xdfff) n++;
    }
    return n;
  }

  private inBlock(cp: number, name: string): boolean {
    const [start, end] = this.blocks[name];
    return cp >= start && cp <= end;
  }

  /** NGram.normalize. */
  normalize(ch: string): string {
    const cp = ch.codePointAt(0)!;
    if (cp <= 0x7f) return ch < 'A' || (ch > 'Z' && ch < 'a') || ch > 'z' ? ' ' : ch;
    if (this.inBlock(cp, 'latin_1_supplement')) return this.latin1Excluded.has(ch) ? ' ' : ch;
    if (this.inBlock(cp, 'latin_extended_b')) return ch === '\u0219' ? '\u015f' : ch === '\u021b' ? '\u0163' : ch;
    if (this.inBlock(cp, 'general_punctuation')) return ' ';
    if (this.inBlock(cp, 'arabic')) return ch === '\u06cc' ? '\u064a' : ch;
    if (this.inBlock(cp, 'latin_extended_additional')) return cp >= 0x1ea0 ? '\u1ec3' : ch;
    if (this.inBlock(cp, 'hiragana')) return '\u3042';
    if (this.inBlock(cp, 'katakana')) return '\u30a2';
    if (this.inBlock(cp, 'bopomofo') || this.inBlock(cp, 'bopomofo_extended')) return '\u3105';
    if (this.inBlock(cp, 'cjk_unified_ideographs')) return this.cjkMap.get(ch) ?? ch;
    if (this.inBlock(cp, 'hangul_syllables')) return '\uac00';
    return ch;
  }

  /** NGram.normalize_vi: letter + combining mark → the precomposed letter. */
  normalizeVi(text: string): string {
    const { to_normalize, dmark_class, normalized } = this.vi;
    const letters = [...to_normalize];
    const marks = [...dmark_class];
    return text.replace(this.viRe, (_, a: string, m: string) => [...normalized[marks.indexOf(m)]][letters.indexOf(a)]);
  }

  isLatinExtendedAdditional(cp: number): boolean {
    return this.inBlock(cp, 'latin_extended_additional');
  }
}

/** The buffer's uint32 LE values (a view where the platform is little-endian and the buffer aligned). */
function littleEndianWords(bytes: Buffer): Uint32Array {
  const n = bytes.length >>> 2;
  if (endianness() === 'LE' && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
  const words = new Uint32Array(n);
  for (let i = 0; i < n; i++) words[i] = bytes.readUInt32LE(4 * i);
  return words;
}

let model: Model | null = null;

/** The profiles and tables, loaded once per process (a 1 MB gzipped file next to this module). */
function getModel(): Model {
  if (!model) {
    const raw = zlib().gunzipSync(readFileSync(new URL('./data.json.gz', import.meta.url)));
    model = new Model(JSON.parse(raw.toString('utf8')) as LangdetectData);
  }
  return model;
}

/** CPython `random.gauss` (with its cached second value) on top of PyRandom. */
class GaussRandom extends PyRandom {
  private next: number | null = null;
  gauss(mu = 0.0, sigma = 1.0): number {
    let z = this.next;
    this.next = null;
    if (z === null) {
      const x2pi = this.random() * 2 * Math.PI;
      const g2rad = Math.sqrt(-2.0 * Math.log(1.0 - this.random()));
      z = Math.cos(x2pi) * g2rad;
      this.next = Math.sin(x2pi) * g2rad;
    }
    return mu + z * sigma;
  }
}

/** Detector.append + cleaning_text: the text the n-grams are read from, as code points. */
function prepare(m: Model, input: string): string[] {
  let text = input.replace(URL_RE, ' ').replace(MAIL_RE, ' ');
  text = m.normalizeVi(text);
  const chars: string[] = [];
  let pre = '';
  let i = 0;
  for (const ch of text) {
    if (i++ >= MAX_TEXT_LENGTH) break;
    if (ch !== ' ' || pre !== ' ') chars.push(ch);
    pre = ch;
  }
  let latin = 0;
  let nonLatin = 0;
  for (const ch of chars) {
    if (ch >= 'A' && ch <= 'z') latin++;
    else if (ch >= '\u0300' && !m.isLatinExtendedAdditional(ch.codePointAt(0)!)) nonLatin++;
  }
  if (latin * 2 < nonLatin) return chars.filter((ch) => ch < 'A' || ch > 'z');
  return chars;
}

/** Whether the one-character string is upper-case (`ch.isupper()` in NGram.add_char). */
function isUpperChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 0x41 && c <= 0x5a;
  return UPPER.test(ch);
}

/**
 * Detector._extract_ngrams (NGram.add_char / get for n = 1..3), as indices of the model's n-grams.
 * The n-gram window is the last three normalised characters (a1 a2 a3; '' where the window is
 * shorter), restarted after a space, as NGram.grams is.
 */
function extractNgrams(m: Model, chars: readonly string[]): number[] {
  const result: number[] = [];
  let a2 = '';
  let a3 = ' ';
  let capitalword = false;
  for (const raw of chars) {
    const ch = m.normalize(raw);
    const last = a3;
    let a1: string;
    if (last === ' ') {
      capitalword = false;
      if (ch === ' ') {
        a2 = '';
        continue;
      }
      a1 = '';
      a2 = ' ';
    } else {
      a1 = a2;
      a2 = a3;
    }
    a3 = ch;
    if (isUpperChar(ch)) {
      if (isUpperChar(last)) capitalword = true;
    } else capitalword = false;
    if (capitalword) continue;
    // n = 1: the character; n = 2 and 3 when the window is that long (a2/a1 are '' before).
    const k1 = ch !== ' ' ? m.indexOf(ch) : -1;
    if (k1 >= 0) result.push(k1);
    if (a2 === '') continue;
    const k2 = m.indexOf(a2 + ch);
    if (k2 >= 0) result.push(k2);
    if (a1 === '') continue;
    const k3 = m.indexOf(a1 + a2 + ch);
    if (k3 >= 0) result.push(k3);
  }
  return result;
}

/** Language probabilities above 0.1, highest first (Detector.get_probabilities). */
export function detectLangs(text: string, seed = 0): LanguageProbability[] {
  const m = getModel();
  const ngrams = extractNgrams(m, prepare(m, text));
  if (!ngrams.length) throw new LangDetectError('No features in text.');
  const size = m.langs.length;
  const langprob = new Float64Array(size);
  const random = new GaussRandom(seed);
  for (let t = 0; t < N_TRIAL; t++) {
    const prob = new Float64Array(size).fill(1.0 / size);
    const alpha = ALPHA_DEFAULT + random.gauss(0.0, 1.0) * ALPHA_WIDTH;
    const weight = alpha / BASE_FREQ;
    for (let i = 0; ; i++) {
      const probs = m.probabilities(random.choice(ngrams));
      for (let k = 0; k < size; k++) prob[k] *= weight + probs[k];
      if (i % 5 === 0) {
        // _normalize_prob: Python's sum() of floats (3.11: plain left-to-right addition)
        let sump = 0.0;
        for (let k = 0; k < size; k++) sump += prob[k];
        let maxp = 0.0;
        for (let k = 0; k < size; k++) {
          const p = prob[k] / sump;
          if (maxp < p) maxp = p;
          prob[k] = p;
        }
        if (maxp > CONV_THRESHOLD || i >= ITERATION_LIMIT) break;
      }
    }
    for (let k = 0; k < size; k++) langprob[k] += prob[k] / N_TRIAL;
  }
  const out: LanguageProbability[] = [];
  for (let k = 0; k < size; k++) if (langprob[k] > PROB_THRESHOLD) out.push({ lang: m.langs[k], prob: langprob[k] });
  // list.sort(reverse=True) is stable: equal probabilities keep profile order.
  return out.sort((a, b) => b.prob - a.prob);
}

/** Python `langdetect.detect(text)` with the seed fixed: the most probable language or "unknown". Throws LangDetectError. */
export function detectLanguage(text: string, seed = 0): string {
  const langs = detectLangs(text, seed);
  return langs.length ? langs[0].lang : UNKNOWN_LANG;
}
