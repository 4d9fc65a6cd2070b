// Punkt parameters as data: NLTK's English model in either of its two published shapes, the JSON
// export (`../shared/data/punkt/english.json`) or an NLTK `punkt_tab/<language>/` folder.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataMissingError, InputError } from '../errors.ts';

/** The parameters PunktSentenceTokenizer reads (NLTK's PunktParameters). */
export interface PunktParams {
  /** Abbreviation types, lower-case, without the final period ("mr", "u.s"). */
  readonly abbrevTypes: ReadonlySet<string>;
  /** Collocations "type1\ttype2" (the first word ends in a period in running text). */
  readonly collocations: ReadonlySet<string>;
  /** Frequent sentence starters (types). */
  readonly sentStarters: ReadonlySet<string>;
  /** Orthographic context flags per type (absent = 0). */
  readonly orthoContext: ReadonlyMap<string, number>;
  /** Where the parameters came from (a path), for messages and records. */
  readonly source: string;
}

/** The four files of an NLTK punkt_tab language folder. */
export const PUNKT_TAB_FILES = ['abbrev_types.txt', 'collocations.tab', 'ortho_context.tab', 'sent_starters.txt'] as const;

/** The InputError of an ortho_context value that is not an integer. */
function notAnInteger(source: string, key: string, v: unknown): never {
  throw new InputError(`${JSON.stringify(key)}: expected an integer, got ${JSON.stringify(v)}`, { file: source, field: 'ortho_context' });
}

/**
 * A read-only map over the object JSON.parse built, used as it is, with nothing done to it at load
 * time (docs/performance.md#text). So a value is checked when it is read (an integer, or an
 * InputError naming the file and the type), and only own properties count (a type named
 * "constructor" is not Object.prototype's).
 */
class ObjectMap implements ReadonlyMap<string, number> {
  private count = -1;
  constructor(
    private readonly store: Record<string, unknown>,
    private readonly source: string,
  ) {}
  get(key: string): number | undefined {
    const v = this.store[key];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (v === undefined || !Object.prototype.hasOwnProperty.call(this.store, key)) return undefined;
    return notAnInteger(this.source, key, v); // out of line: get() is on the sent_tokenize hot path (docs/performance.md#text)
  }
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }
  get size(): number {
    if (this.count < 0) this.count = Object.keys(this.store).length;
    return this.count;
  }
  *entries(): MapIterator<[string, number]> {
    for (const k of Object.keys(this.store)) yield [k, this.get(k)!];
  }
  *keys(): MapIterator<string> {
    yield* Object.keys(this.store);
  }
  *values(): MapIterator<number> {
    for (const k of Object.keys(this.store)) yield this.get(k)!;
  }
  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }
  forEach(fn: (value: number, key: string, map: ReadonlyMap<string, number>) => void, thisArg?: unknown): void {
    for (const k of Object.keys(this.store)) fn.call(thisArg, this.get(k)!, k, this);
  }
}

export function collocationKey(type1: string, type2: string): string {
  return type1 + '\t' + type2;
}

/** Loads Punkt parameters from an english.json-style file or a punkt_tab language folder. */
export function loadPunktParams(path: string): PunktParams {
  if (!existsSync(path)) throw new DataMissingError(`Punkt parameters not found: ${path}`, { what: 'punkt' });
  if (statSync(path).isDirectory()) {
    // Accept both `.../punkt_tab/english` and `.../punkt_tab` (then English).
    const dir = existsSync(join(path, 'abbrev_types.txt')) || !existsSync(join(path, 'english')) ? path : join(path, 'english');
    return parsePunktTab((name) => readText(join(dir, name)), dir);
  }
  return parsePunktJson(readText(path), path);
}

function readText(path: string): string {
  if (!existsSync(path))
    throw new DataMissingError(`${path}: missing (a punkt_tab folder holds ${PUNKT_TAB_FILES.join(', ')})`, { what: 'punkt' });
  return readFileSync(path, 'utf8');
}

/** Parses the JSON shape: {abbrev_types: [], collocations: [[a, b]], sent_starters: [], ortho_context: {type: flags}}. */
export function parsePunktJson(text: string, source: string): PunktParams {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file: source });
  }
  const obj = data as Record<string, unknown>;
  const strings = (field: string): string[] => {
    const v = obj?.[field];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw new InputError('expected a list of strings', { file: source, field });
    }
    return v as string[];
  };
  const colls = obj?.collocations;
  if (!Array.isArray(colls) || colls.some((c) => !Array.isArray(c) || c.length !== 2 || c.some((x) => typeof x !== 'string'))) {
    throw new InputError('expected a list of [type, type] pairs', { file: source, field: 'collocations' });
  }
  const ortho = obj?.ortho_context;
  if (ortho === null || typeof ortho !== 'object' || Array.isArray(ortho)) {
    throw new InputError('expected an object mapping types to integer flags', { file: source, field: 'ortho_context' });
  }
  // Values are checked as they are read (ObjectMap).
  const orthoContext = new ObjectMap(ortho as Record<string, unknown>, source);
  return {
    abbrevTypes: new Set(strings('abbrev_types')),
    collocations: new Set((colls as [string, string][]).map(([a, b]) => collocationKey(a, b))),
    sentStarters: new Set(strings('sent_starters')),
    orthoContext,
    source,
  };
}

function lines(text: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line !== '') out.push([i + 1, line]);
  });
  return out;
}

/** Parses the punkt_tab shape: one type per line; tab-separated pairs in the .tab files. */
export function parsePunktTab(read: (name: (typeof PUNKT_TAB_FILES)[number]) => string, source: string): PunktParams {
  const pairs = (name: 'collocations.tab' | 'ortho_context.tab'): Array<[number, string, string]> =>
    lines(read(name)).map(([n, line]) => {
      const parts = line.split('\t');
      if (parts.length !== 2) throw new InputError('expected two tab-separated fields', { file: join(source, name), line: n });
      return [n, parts[0], parts[1]];
    });
  const store: Record<string, number> = Object.create(null);
  for (const [n, type, flags] of pairs('ortho_context.tab')) {
    if (!/^\d+$/.test(flags))
      throw new InputError(`expected an integer, got ${JSON.stringify(flags)}`, {
        file: join(source, 'ortho_context.tab'),
        line: n,
        field: 'flags',
      });
    store[type] = Number(flags);
  }
  const orthoContext = new ObjectMap(store, join(source, 'ortho_context.tab'));
  return {
    abbrevTypes: new Set(lines(read('abbrev_types.txt')).map(([, l]) => l)),
    collocations: new Set(pairs('collocations.tab').map(([, a, b]) => collocationKey(a, b))),
    sentStarters: new Set(lines(read('sent_starters.txt')).map(([, l]) => l)),
    orthoContext,
    source,
  };
}

/** Serialises parameters as punkt_tab files (sorted lines, "\n"-joined, no final newline, as NLTK's files are). */
export function punktTabFiles(params: PunktParams): Record<(typeof PUNKT_TAB_FILES)[number], string> {
  const sorted = (xs: Iterable<string>): string[] => [...xs].sort(codePointCompare);
  return {
    'abbrev_types.txt': sorted(params.abbrevTypes).join('\n'),
    'collocations.tab': sorted(params.collocations).join('\n'),
    'ortho_context.tab': [...params.orthoContext.keys()]
      .sort(codePointCompare)
      .map((k) => `${k}\t${params.orthoContext.get(k)}`)
      .join('\n'),
    'sent_starters.txt': sorted(params.sentStarters).join('\n'),
  };
}

/** Python's string order (by code point), not JavaScript's default UTF-16 order. */
export function codePointCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}
