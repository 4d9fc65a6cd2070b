// A seeded generator of `revloop verify --jsonl` input that looks like what language models actually
// return: preambles ("Sure! Here is…"), Markdown headings, bullet and numbered lists, bold text,
// straight and curly quotes, apostrophes (’), dashes, ellipses, abbreviations (Dr., U.S., e.g.),
// numbers, emoji, non-breaking spaces, accented and non-Latin words, sign-offs ("Let me know…",
// "(Word count: 118)") and long rambling multi-paragraph answers, over all six families.
//
// Every text is written here, from our own vocabulary. Targets come from one of two places:
//   --targets shared     (default) the paper's exact-length cases and the COLLIE rows in
//                        ../shared/data, read at run time (the texts then contain their anchors and
//                        target words, so the output file stays out of the repository: bench/.out/);
//   --targets synthetic  targets drawn from our own vocabulary (no reference data needed).
// Same seed, same options, same bytes (Python's Mersenne Twister, src/core/py/random.ts).
//
//   npx tsx bench/messy-outputs.ts [--rows 11500] [--seed 13] [--targets shared|synthetic] [--out FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PyRandom } from '../src/core/py/random.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';

export type TargetSource = 'shared' | 'synthetic';
export const MESSY_FAMILIES = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12'] as const;
export type MessyFamily = (typeof MESSY_FAMILIES)[number];

export interface MessyOptions {
  rows?: number;
  seed?: number;
  targets?: TargetSource;
}

export interface MessyRow {
  id: string;
  family: MessyFamily;
  target?: number;
  anchors?: string[];
  targets?: unknown;
  text: string;
}

export const DEFAULT_ROWS = 11_500;
export const DEFAULT_SEED = 13;

// ---------------------------------------------------------------------------------------------
// Vocabulary (ours).

const SUBJECTS = [
  'the committee',
  'our team',
  'the old lighthouse keeper',
  'a curious student',
  'the city council',
  'my grandmother',
  'the new policy',
  'this approach',
  'the research group',
  'a small startup',
  'the river',
  'the orchestra',
  'most farmers',
  'the engineers',
  'every volunteer',
  'the museum',
  'the spacecraft',
  'the local bakery',
  'the author',
  'a stray cat',
  'the market',
  'the software update',
  'the garden',
  'the hikers',
  'the teacher',
  'the report',
  'the festival',
  'the bridge',
  'the village',
  'the algorithm',
  'the board',
  'the recipe',
  'the children',
  'the startup’s founder',
  'the neighbourhood',
  'the storm',
  'the library',
  'the court',
  'Dr. Alvarez',
  'Mr. Okafor',
  'Mrs. Lindqvist',
  'Prof. Tanaka',
  'St. Brendan’s choir',
  'the U.S. delegation',
  'Zoë',
  'the café owner',
  'Señora Núñez',
  'François',
  'the naïve intern',
  'Ólafur',
  'the Ministry',
];
const VERBS = [
  'announced',
  'built',
  'questioned',
  'explored',
  'repaired',
  'described',
  'celebrated',
  'ignored',
  'measured',
  'designed',
  'rejected',
  'welcomed',
  'tested',
  'improved',
  'discovered',
  'planted',
  'painted',
  'reviewed',
  'funded',
  'delayed',
  'shared',
  'opened',
  'studied',
  'organised',
  'organized',
  'simplified',
  'translated',
  'protected',
  'predicted',
  'rebuilt',
  'collected',
  'explained',
  'recommended',
  'challenged',
  'launched',
  'borrowed',
  'returned',
  'documented',
  'rewrote',
  'visited',
  'considered',
  'finished',
  'abandoned',
];
const OBJECTS = [
  'a plan',
  'the budget',
  'the harbour',
  'several proposals',
  'the roof',
  'an idea',
  'the data',
  'the schedule',
  'a quiet garden',
  'the final chapter',
  'new equipment',
  'the wooden bridge',
  'the results',
  'a community fund',
  'the map',
  'the evidence',
  'a safer route',
  'the prototype',
  'the old mill',
  'the menu',
  'fresh bread',
  'the archive',
  'a short film',
  'the water supply',
  'the solar panels',
  'the manuscript',
  'a winter market',
  'the contract',
  'three options',
  'the well-known trail',
  'a 45-day trial',
  'the north wing',
  'the e-mail',
  'the “green” initiative',
  'the so-called shortcut',
  'the 1990s archive',
  'a ½-acre plot',
  'the co-op’s books',
];
const ADVERBS = [
  'quickly',
  'carefully',
  'reluctantly',
  'finally',
  'quietly',
  'openly',
  'eventually',
  'gradually',
  'boldly',
  'unexpectedly',
  'patiently',
  'suddenly',
  'honestly',
  'frankly',
  'rarely',
  'often',
  'almost',
  'nearly',
];
const CLAUSES = [
  'because the weather turned',
  'after a long debate',
  'despite the cost',
  'before the deadline',
  'while everyone watched',
  'as the sun went down',
  'without any warning',
  'once the funding arrived',
  'although nobody expected it',
  'when the rain stopped',
  'in the middle of the night',
  'during the winter',
  'after months of planning',
  'for reasons nobody explained',
  'with help from neighbours',
  'at 9 a.m. sharp',
  'by the end of Jan. 2021',
  'under the old rules',
  'in roughly 3.5 hours',
  'at a cost of $1,200',
  'for about 12,000 people',
  'within 48 hours',
  'at 100% capacity',
  'on p. 42 of the report',
];
const ADJECTIVES = [
  'remarkable',
  'simple',
  'fragile',
  'ambitious',
  'practical',
  'strange',
  'familiar',
  'costly',
  'gentle',
  'essential',
  'surprising',
  'modest',
  'crowded',
  'elegant',
  'noisy',
  'reliable',
  'uncertain',
  'vivid',
];
const NOUNS = [
  'idea',
  'question',
  'answer',
  'season',
  'journey',
  'problem',
  'lesson',
  'balance',
  'pattern',
  'story',
  'decision',
  'habit',
  'memory',
  'tradition',
  'method',
  'risk',
  'benefit',
  'detail',
  'reason',
  'choice',
];
const TOPICS = [
  'renewable energy',
  'urban gardening',
  'the history of tea',
  'remote work',
  'ocean tides',
  'public libraries',
  'bread baking',
  'bird migration',
  'chess openings',
  'volcanoes',
  'the printing press',
  'sleep',
  'bicycles',
  'coral reefs',
  'jazz',
  'recycling',
  'mountain rescue',
  'the Roman roads',
  'tax policy',
  'street food',
];
const CONNECTIVES = [
  'However,',
  'Meanwhile,',
  'In fact,',
  'Still,',
  'As a result,',
  'On the other hand,',
  'Honestly,',
  'Of course,',
  'That said,',
  'Interestingly,',
  'Later,',
  'In short,',
  'For example,',
  'Even so,',
  'Overall,',
  'Besides,',
];
const OPENERS = [
  'It’s worth noting that',
  'Don’t forget that',
  'We’ve seen that',
  'I’m sure that',
  'They’re saying that',
  'You’ll notice that',
  'That’s because',
  'Here’s the thing:',
  'Let’s be honest:',
  'It isn’t clear whether',
  'You can’t deny that',
  'In my view,',
  'To be fair,',
  'As the saying goes,',
];
const EXOTIC = ['naïve', 'café', 'résumé', 'jalapeño', 'Ærøskøbing', 'İstanbul', 'Straße', 'Σοφία', 'Москва', '東京', 'x²', 'déjà vu'];
const EMOJI = ['😊', '🚀', '🌱', '✅', '📚', '👍', '🙂', '✨'];
const SYNTHETIC_ANCHORS = [
  'solar panels',
  'community fund',
  'quiet garden',
  'winter market',
  'old mill',
  'water supply',
  'final chapter',
  'safer route',
  'North Wing',
  'budget',
  'harbour',
  'prototype',
  'evidence',
  'manuscript',
  'schedule',
  'archive',
];

const PREAMBLES = [
  'Sure! Here is {what}:\n\n',
  'Sure, here’s {what}:\n\n',
  'Certainly. Below is {what}.\n\n',
  'Of course! Here’s {what} that follows all of your constraints:\n\n',
  'Here is {what}:\n\n',
  'Absolutely — here is {what}.\n\n',
  'Okay, let me think about this. The request asks for {what}, so I will keep it tight and check each constraint as I go.\n\nHere it is:\n\n',
  '**Response:**\n\n',
  'Here\'s my attempt at {what}:\n\n"',
  'I’d be happy to help! Here’s {what}:\n\n---\n\n',
];
const WHATS = ['the paragraph', 'a short passage', 'the revised response', 'a response', 'the text you asked for', 'a draft'];
const CLOSINGS = [
  '\n\nLet me know if you’d like me to adjust the tone or length!',
  '\n\n(Word count: {n})',
  '\n\n---\n\n**Note:** I kept every required word and checked the count twice.',
  '\n\nI hope this helps! 😊',
  '\n\nWord count: {n} words.',
  '\n\nWould you like a shorter version?',
  '\n\n*Total: {n} words*',
  '"\n\nFeel free to ask for changes.',
];

// ---------------------------------------------------------------------------------------------
// Text building.

class Writer {
  constructor(readonly rng: PyRandom) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rng.random() * xs.length)];
  }
  chance(p: number): boolean {
    return this.rng.random() < p;
  }
  int(a: number, b: number): number {
    return a + Math.floor(this.rng.random() * (b - a + 1));
  }

  /** One sentence of roughly `words` words (without final punctuation), in a few shapes. */
  clause(words: number): string {
    const parts: string[] = [];
    const shape = this.int(0, 5);
    if (shape === 0) parts.push(this.pick(CONNECTIVES));
    else if (shape === 5 && this.chance(0.6)) parts.push(this.pick(OPENERS));
    parts.push(this.pick(SUBJECTS));
    if (this.chance(0.3)) parts.push(this.pick(ADVERBS));
    parts.push(this.pick(VERBS), this.pick(OBJECTS));
    if (shape === 1) parts.push(this.pick(CLAUSES));
    if (shape === 2) parts.push('—', 'a', this.pick(ADJECTIVES), this.pick(NOUNS), '—', 'and', this.pick(SUBJECTS), this.pick(VERBS), 'it');
    if (shape === 3) parts.push(`(${this.pick(['e.g.', 'i.e.', 'see', 'roughly', 'about'])} ${this.pick(OBJECTS)})`);
    if (shape === 4 && this.chance(0.5)) parts.push(`“${this.pick(ADJECTIVES)} ${this.pick(NOUNS)},” as ${this.pick(SUBJECTS)} put it,`);
    let s = parts.join(' ');
    let n = s.split(' ').length;
    while (n < words) {
      const extra = this.chance(0.5) ? `and ${this.pick(ADVERBS)} ${this.pick(VERBS)} ${this.pick(OBJECTS)}` : this.pick(CLAUSES);
      s = s.replace(/,$/u, '') + (this.chance(0.3) ? ', ' : ' ') + extra;
      n = s.split(' ').length;
    }
    if (n > words + 3) s = s.split(' ').slice(0, Math.max(words, 3)).join(' ');
    s = s.replace(/[,—(]+$/u, '').trimEnd();
    if (this.chance(0.05)) s += ' ' + this.pick(EXOTIC);
    if (this.chance(0.03)) s += ' ' + this.pick(EMOJI);
    return s.charAt(0).toUpperCase() + s.slice(1);
  }

  end(): string {
    const r = this.rng.random();
    return r < 0.8 ? '.' : r < 0.88 ? '!' : r < 0.93 ? '?' : r < 0.97 ? '…' : '...';
  }

  sentence(words: number): string {
    let s = this.clause(words) + this.end();
    const r = this.rng.random();
    if (r < 0.06) s = `“${s}”`;
    else if (r < 0.09) s = `"${s}"`;
    else if (r < 0.1) s = `‘${s}’`;
    else if (r < 0.11) s = `«${s}»`;
    if (this.chance(0.04)) s = s.replace(' ', '\u00a0');
    if (this.chance(0.04)) s = s.replace(/ (\w+)$/u, ' **$1**');
    return s;
  }

  /** Sentences joined into paragraphs, sometimes with Markdown structure. */
  prose(sentences: string[], paragraphLen: number): string {
    const out: string[] = [];
    let para: string[] = [];
    for (const s of sentences) {
      para.push(s);
      if (para.length >= paragraphLen) {
        out.push(para.join(this.chance(0.05) ? '  ' : ' '));
        para = [];
      }
    }
    if (para.length) out.push(para.join(' '));
    return out.join(this.chance(0.85) ? '\n\n' : '\n');
  }

  /** A Markdown list block of a few short items. */
  list(): string {
    const k = this.int(2, 6);
    const style = this.int(0, 3);
    const items: string[] = [];
    for (let i = 0; i < k; i++) {
      const marker = style === 0 ? '-' : style === 1 ? '*' : style === 2 ? `${i + 1}.` : '•';
      const body = this.chance(0.4)
        ? `**${this.pick(ADJECTIVES)} ${this.pick(NOUNS)}:** ${this.clause(this.int(4, 12))}.`
        : this.sentence(this.int(4, 14));
      items.push(`${marker} ${body}`);
    }
    return items.join('\n');
  }

  heading(): string {
    return `${this.pick(['#', '##', '###'])} ${this.pick(ADJECTIVES).replace(/^./u, (c) => c.toUpperCase())} ${this.pick(NOUNS)}s and ${this.pick(TOPICS)}`;
  }

  /** A long, rambling multi-paragraph answer with lists and headings. */
  ramble(words: number): string {
    const blocks: string[] = [];
    let n = 0;
    while (n < words) {
      const r = this.rng.random();
      let b: string;
      if (r < 0.12) b = this.heading();
      else if (r < 0.3) b = this.list();
      else {
        const k = this.int(2, 7);
        b = this.prose(
          Array.from({ length: k }, () => this.sentence(this.int(6, 28))),
          k,
        );
      }
      blocks.push(b);
      n += b.split(/\s+/u).length;
    }
    return blocks.join('\n\n');
  }

  /**
   * Wraps a body like a chatty model: preamble, sign-off, or both. Most models write ASCII apostrophes
   * and quotes, some typographic ones, consistently within one answer.
   */
  wrap(body: string, words: number, p: number): string {
    let text = body;
    if (this.chance(p)) text = this.pick(PREAMBLES).replace('{what}', this.pick(WHATS)) + text;
    if (this.chance(p * 0.6)) text += this.pick(CLOSINGS).replace('{n}', String(words + this.int(-3, 3)));
    if (this.chance(0.15)) text = (this.chance(0.5) ? '\n\n' : '  ') + text + (this.chance(0.5) ? '\n' : ' \n\n');
    if (this.chance(0.6)) text = text.replace(/’/gu, "'").replace(/[“”]/gu, '"');
    return text;
  }

  /** Some words of `s`, with capitalisation changed the way models do. */
  caseVariant(s: string): string {
    const r = this.rng.random();
    if (r < 0.1) return s.toUpperCase();
    if (r < 0.25) return s.replace(/^./u, (c) => c.toUpperCase());
    if (r < 0.35) return s.toLowerCase();
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// Targets.

interface TargetPools {
  exact: Array<{ target: number; anchors: string[] }>;
  c05: unknown[];
  c07: unknown[];
  c09: unknown[];
  c10: unknown[];
  c12: unknown[];
}

function readJsonl(path: string): any[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

function sharedPools(): TargetPools {
  const gen = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
  const collie = sharedDataFile('collie', 'collie_all.jsonl');
  if (!gen || !collie) {
    throw new Error(
      'messy-outputs: --targets shared needs ../shared/data/paper-cases/generation_combined480.jsonl and collie/collie_all.jsonl (or $REVLOOP_SHARED); use --targets synthetic without them',
    );
  }
  const pools: TargetPools = { exact: [], c05: [], c07: [], c09: [], c10: [], c12: [] };
  for (const r of readJsonl(gen)) pools.exact.push({ target: r.target, anchors: r.anchors });
  for (const r of readJsonl(collie)) if (r.structure in pools && r.structure !== 'exact') (pools as any)[r.structure].push(r.targets);
  return pools;
}

function syntheticPools(rng: PyRandom): TargetPools {
  const w = new Writer(rng);
  const word = () => w.pick([...VERBS, ...ADJECTIVES, ...NOUNS, 'the', 'and', 'of', 'river', 'garden', 'bridge']);
  const pools: TargetPools = { exact: [], c05: [], c07: [], c09: [], c10: [], c12: [] };
  for (let i = 0; i < 200; i++) {
    pools.exact.push({ target: w.int(40, 320), anchors: Array.from({ length: w.int(1, 5) }, () => w.pick(SYNTHETIC_ANCHORS)) });
    pools.c05.push([w.int(11, 40), [word(), word(), word()]]);
    pools.c07.push(Array.from({ length: w.int(2, 4) }, word));
    pools.c09.push([w.int(2, 6), ...Array.from({ length: w.int(1, 3) }, word)]);
    const lo = w.int(5, 15);
    pools.c10.push([w.int(2, 6), lo, lo + w.int(2, 12)]);
    const n = w.int(2, 6);
    pools.c12.push([n, Array.from({ length: n }, word)]);
  }
  return pools;
}

// ---------------------------------------------------------------------------------------------
// Per-family texts: roughly what a model attempting the constraint writes, with realistic misses.

function wordsOf(s: string): number {
  return s.split(/\s+/u).filter(Boolean).length;
}

function exactText(w: Writer, target: number, anchors: string[]): string {
  const long = w.chance(0.12);
  const goal = long ? target + w.int(150, 900) : Math.max(3, Math.round(target * (0.85 + w.rng.random() * 0.3)) + w.int(-3, 3));
  const keep = anchors.filter(() => w.chance(0.85)).map((a) => w.caseVariant(a));
  const sentences: string[] = [];
  let n = 0;
  while (n < goal) {
    let s = w.sentence(Math.min(w.int(8, 26), Math.max(4, goal - n)));
    if (keep.length && w.chance(0.5)) {
      const a = keep.shift()!;
      const r = w.rng.random();
      s =
        r < 0.4
          ? s.replace(/[.!?…]+$/u, '') + `, including ${a}.`
          : r < 0.7
            ? `${a.replace(/^./u, (c) => c.toUpperCase())} matters here: ${s}`
            : `${s} (${a})`;
    }
    sentences.push(s);
    n += wordsOf(s);
  }
  if (keep.length) sentences.push(`Finally, ${keep.join(', ')}, and more.`);
  const body = long ? w.ramble(goal - n) + '\n\n' + w.prose(sentences, w.int(3, 6)) : w.prose(sentences, w.int(2, 6));
  return w.wrap(body, target, 0.35);
}

function asWord(x: unknown): string {
  return typeof x === 'string' ? x : JSON.stringify(x);
}

function c05Text(w: Writer, targets: any): string {
  const count = Number(targets[0]);
  const positions: string[] = (targets[1] as unknown[]).map(asWord);
  const n = Math.max(11, count + (w.chance(0.5) ? 0 : w.int(-4, 6)));
  const words = w.clause(n + 4).split(' ');
  while (words.length < n) words.push(w.pick(NOUNS));
  words.length = n;
  if (w.chance(0.6)) [3, 7, 10].forEach((p, i) => (words[p] = w.chance(0.85) ? positions[i] : w.caseVariant(positions[i])));
  let body = words.join(' ') + w.end();
  if (w.chance(0.15)) body = w.sentence(w.int(6, 14)) + ' ' + body;
  if (w.chance(0.1)) body += '\n\n' + w.ramble(w.int(100, 400));
  return w.wrap(body, count, 0.3);
}

function c07Text(w: Writer, targets: any): string {
  const required = (targets as unknown[]).map(asWord);
  const k = w.chance(0.1) ? w.int(20, 60) : w.int(2, 8);
  const sentences = Array.from({ length: k }, () => w.sentence(w.int(6, 24)));
  for (const word of required) {
    if (!w.chance(0.8)) continue;
    const i = w.int(0, sentences.length - 1);
    sentences[i] = sentences[i].replace(/ (\S+)$/u, ` ${w.caseVariant(word)} $1`);
  }
  return w.wrap(w.prose(sentences, w.int(2, 5)), 0, 0.35);
}

function c09Text(w: Writer, targets: any): string {
  const n = Math.max(1, Number(targets[0]) + (w.chance(0.6) ? 0 : w.int(-2, 3)));
  const forbidden = (targets as unknown[]).slice(1).map(asWord);
  const sentences = Array.from({ length: n }, () => w.sentence(w.int(5, 22)));
  for (const f of forbidden) if (w.chance(0.2)) sentences[w.int(0, n - 1)] += ` ${w.caseVariant(f)} again.`;
  if (w.chance(0.1)) sentences.push(w.ramble(w.int(150, 600)));
  return w.wrap(w.prose(sentences, w.int(2, 4)), 0, 0.35);
}

function c10Text(w: Writer, targets: any): string {
  const [count, lo, hi] = (targets as unknown[]).map(Number);
  const n = Math.max(1, count + (w.chance(0.6) ? 0 : w.int(-2, 2)));
  const sentences = Array.from({ length: n }, () => w.sentence(Math.max(2, w.int(lo - 2, hi + 2))));
  if (w.chance(0.1)) sentences.push(w.ramble(w.int(150, 600)));
  return w.wrap(w.chance(0.2) ? sentences.map((s, i) => `${i + 1}. ${s}`).join('\n') : w.prose(sentences, w.int(2, 5)), 0, 0.35);
}

function c12Text(w: Writer, targets: any): string {
  const count = Number(targets[0]);
  const finals: string[] = (targets[1] as unknown[]).map(asWord);
  const n = Math.max(1, count + (w.chance(0.7) ? 0 : w.int(-1, 2)));
  const sentences = Array.from({ length: n }, (_, i) => {
    const s = w.clause(w.int(6, 20));
    const last = i < finals.length && w.chance(0.75) ? w.caseVariant(finals[i]) : null;
    return last === null ? s + w.end() : `${s} ${last}${w.end()}`;
  });
  if (w.chance(0.08)) sentences.push(w.ramble(w.int(150, 500)));
  return w.wrap(w.prose(sentences, w.int(2, 5)), 0, 0.35);
}

// ---------------------------------------------------------------------------------------------

/** Family of each row: exact-length gets a larger share (about 26%), the five COLLIE families the rest. */
function familyOf(i: number, rows: number): MessyFamily {
  const exactRows = Math.round(rows * (3000 / 11500));
  if (i < exactRows) return 'exact-length';
  return MESSY_FAMILIES[1 + ((i - exactRows) % 5)];
}

/** The rows, in a seeded shuffled order. */
export function messyRows(options: MessyOptions = {}): MessyRow[] {
  const rows = options.rows ?? DEFAULT_ROWS;
  const rng = new PyRandom(options.seed ?? DEFAULT_SEED);
  const pools = (options.targets ?? 'shared') === 'shared' ? sharedPools() : syntheticPools(rng);
  const w = new Writer(rng);
  const out: MessyRow[] = [];
  for (let i = 0; i < rows; i++) {
    const family = familyOf(i, rows);
    let row: MessyRow;
    if (family === 'exact-length') {
      const c = w.pick(pools.exact);
      row = { id: '', family, target: c.target, anchors: c.anchors, text: exactText(w, c.target, c.anchors) };
    } else {
      const targets = w.pick(pools[family]);
      const make = { c05: c05Text, c07: c07Text, c09: c09Text, c10: c10Text, c12: c12Text }[family];
      row = { id: '', family, targets, text: make(w, targets) };
    }
    out.push(row);
  }
  rng.shuffle(out);
  out.forEach((r, i) => (r.id = `m${String(i).padStart(5, '0')}-${r.family}`));
  return out;
}

/** The rows as JSON Lines (keys in a fixed order: id, family, target/anchors or targets, text). */
export function messyJsonl(options: MessyOptions = {}): string {
  return messyRows(options)
    .map((r) => JSON.stringify(r))
    .join('\n')
    .concat('\n');
}

function main(argv: string[]): void {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const rows = Number(arg('--rows') ?? DEFAULT_ROWS);
  const seed = Number(arg('--seed') ?? DEFAULT_SEED);
  const targets = (arg('--targets') ?? 'shared') as TargetSource;
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`--rows: expected a positive whole number, got ${arg('--rows')}`);
  if (!Number.isInteger(seed)) throw new Error(`--seed: expected a whole number, got ${arg('--seed')}`);
  if (targets !== 'shared' && targets !== 'synthetic') throw new Error(`--targets: expected shared or synthetic, got ${targets}`);
  const out = arg('--out') ?? fileURLToPath(new URL(`./.out/messy-${targets}-${rows}-s${seed}.jsonl`, import.meta.url));
  const jsonl = messyJsonl({ rows, seed, targets });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, jsonl);
  const list = jsonl.trimEnd().split('\n');
  const counts: Record<string, number> = {};
  let words = 0;
  for (const l of list) {
    const r = JSON.parse(l) as MessyRow;
    counts[r.family] = (counts[r.family] ?? 0) + 1;
    words += wordsOf(r.text);
  }
  process.stderr.write(
    `messy-outputs: ${list.length} rows (${Object.entries(counts)
      .map(([f, n]) => `${f} ${n}`)
      .join(
        ', ',
      )}), ${(Buffer.byteLength(jsonl) / 1e6).toFixed(2)} MB, ${Math.round(words / list.length)} words per text on average → ${out}\n`,
  );
  process.stdout.write(out + '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
