// A port of Python's langdetect 1.0.9 (detector.py, detector_factory.py, utils/ngram.py), the
// detector IFEval's official checker calls: the same 55 profiles, normalisation, n-gram extraction
// and randomised naive-Bayes trials, drawn from CPython's Mersenne Twister (core/py/random.ts) so a
// given seed reproduces Python's numbers. Python's `detect()` seeds with None (fresh entropy per
// call); revloop always seeds with 0, as langdetect's README advises for reproducible results, so
// verdicts are deterministic. docs/verify.md ("Language detection") has the measured agreement.
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { PyRandom } from '../../../py/random.ts';

/** The header of profiles.bin (scripts/langdetect-data.py): the tables, and the profiles' sizes. */
interface LangdetectData {
  latin1_excluded: string;
  cjk_classes: string[];
  vi: { to_normalize: string; dmark_class: string; normalized: string[] };
  blocks: Record<string, [number, number]>;
  /** Profile names, sorted, and each profile's n-gram totals by length (1, 2, 3). */
  langs: string[];
  n_words: number[][];
  /** How many n-grams, and (language, count) pairs, follow the header. */
  grams: number;
  pairs: number;
}

/** The radix of n-gram keys: a key is k1 * R² + k2 * R + k3, k = code point + 1 (0: none), left-padded. */
const R = 65537;

/** The key of the n-gram whose code points (+ 1, 0 for none) are k1 k2 k3; see profiles.bin. */
function gramKey(k1: number, k2: number, k3: number): number {
  return (k1 * R + k2) * R + k3;
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
  /** The profiles' n-gram keys, ascending (profiles.bin). */
  private readonly keys: Float64Array;
  /** Per n-gram index, where its pairs (count * 64 + language) start in `pairs`; starts[i + 1] is where they end. */
  private readonly starts: Uint32Array;
  private readonly pairs: Uint32Array;
  /** Probabilities per language of each n-gram asked for so far, by index. */
  private readonly rows: Array<Float64Array | undefined> = [];
  readonly latin1Excluded: Set<string>;
  readonly cjkMap = new Map<string, string>();
  readonly viRe: RegExp;
  readonly vi: LangdetectData['vi'];
  readonly blocks: LangdetectData['blocks'];

  constructor(data: LangdetectData, bytes: Buffer, offset: number) {
    this.langs = data.langs;
    this.nWords = data.n_words;
    this.keys = littleEndian(bytes, offset, data.grams, Float64Array);
    this.starts = littleEndian(bytes, offset + 8 * data.grams, data.grams + 1, Uint32Array);
    this.pairs = littleEndian(bytes, offset + 12 * data.grams + 4, data.pairs, Uint32Array);
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

  /** The index of the n-gram with this key (a profile holds it: it is in DetectorFactory's word_lang_prob_map), or -1. */
  indexOf(key: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid];
      if (k < key) lo = mid + 1;
      else if (k > key) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * The n-gram's probability per language, as DetectorFactory.add_profile computes it:
   * 1.0 * count / n_words[len - 1] for the languages whose profile holds it, 0.0 for the others.
   */
  probabilities(i: number): Float64Array {
    let row = this.rows[i];
    if (row === undefined) {
      row = new Float64Array(this.langs.length);
      const key = this.keys[i];
      const length = key >= R * R ? 3 : key >= R ? 2 : 1;
      for (let p = this.starts[i]; p < this.starts[i + 1]; p++) {
        const lang = this.pairs[p] & 63;
        row[lang] = (1.0 * Math.floor(this.pairs[p] / 64)) / this.nWords[lang][length - 1];
      }
      this.rows[i] = row;
    }
    return row;
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

/** `n` little-endian values of the array type at `offset` (a view where the platform is little-endian and the offset aligned). */
function littleEndian<T extends Float64Array | Uint32Array>(
  bytes: Buffer,
  offset: number,
  n: number,
  Type: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number },
): T {
  const at = bytes.byteOffset + offset;
  if (endianness() === 'LE' && at % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer, at, n);
  const out = new Type(n);
  for (let i = 0; i < n; i++)
    out[i] = Type.BYTES_PER_ELEMENT === 8 ? bytes.readDoubleLE(offset + 8 * i) : bytes.readUInt32LE(offset + 4 * i);
  return out;
}

let model: Model | null = null;

/** The profiles and tables, loaded once per process (profiles.bin next to this module, 1.8 MB, read as it is). */
function getModel(): Model {
  if (!model) {
    const bytes = readFileSync(new URL('./profiles.bin', import.meta.url));
    if (bytes.toString('latin1', 0, 4) !== 'LDP1')
      throw new Error('langdetect/profiles.bin: not a profile file (scripts/langdetect-data.py writes it)');
    const headerLength = bytes.readUInt32LE(4);
    const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as LangdetectData;
    model = new Model(header, bytes, (8 + headerLength + 7) & ~7);
  }
  return model;
}

/** Generators as `random.seed(seed)` leaves them, one per seed: each detection starts from a copy. */
const seededBySeed = new Map<number, PyRandom>();
function seeded(seed: number): PyRandom {
  let r = seededBySeed.get(seed);
  if (r === undefined) {
    r = new PyRandom(seed);
    if (seededBySeed.size < 16) seededBySeed.set(seed, r);
  }
  return r;
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

/** An n-gram key digit: the code point + 1 of a one-unit string (profiles hold BMP characters only), or -1. */
function digit(ch: string): number {
  return ch.length === 1 ? ch.charCodeAt(0) + 1 : -1;
}

/**
 * Detector._extract_ngrams (NGram.add_char / get for n = 1..3), as indices of the model's n-grams.
 * The n-gram window is the last three normalised characters (d1 d2 d3 as key digits; 0 where the
 * window is shorter), restarted after a space, as NGram.grams is. A character outside the BMP (-1)
 * is in no profile, nor is any n-gram holding it.
 */
function extractNgrams(m: Model, chars: readonly string[]): number[] {
  const SPACE = 0x20 + 1;
  const result: number[] = [];
  let d2 = 0;
  let d3 = SPACE;
  let upper3 = false;
  let capitalword = false;
  for (const raw of chars) {
    const ch = m.normalize(raw);
    const d = digit(ch);
    const lastUpper = upper3;
    let d1: number;
    if (d3 === SPACE) {
      capitalword = false;
      if (d === SPACE) {
        d2 = 0;
        continue;
      }
      d1 = 0;
      d2 = SPACE;
    } else {
      d1 = d2;
      d2 = d3;
    }
    d3 = d;
    upper3 = isUpperChar(ch);
    if (upper3) {
      if (lastUpper) capitalword = true;
    } else capitalword = false;
    if (capitalword || d < 0) continue;
    // n = 1: the character (never a lone space); n = 2 and 3 when the window is that long.
    if (d !== SPACE) {
      const k1 = m.indexOf(gramKey(0, 0, d));
      if (k1 >= 0) result.push(k1);
    }
    if (d2 === 0) continue;
    if (d2 > 0) {
      const k2 = m.indexOf(gramKey(0, d2, d));
      if (k2 >= 0) result.push(k2);
    }
    if (d1 === 0 || d1 < 0 || d2 < 0) continue;
    const k3 = m.indexOf(gramKey(d1, d2, d));
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
  const random = new GaussRandom(null).copyFrom(seeded(seed));
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
