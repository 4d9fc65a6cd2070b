// Terminal tables that fit the terminal: `revloop runs` and `revloop analyze` print through this. With
// a width, the widest columns are narrowed and their cells wrapped (at spaces; a word longer than its
// column is broken, except in columns marked whole, such as run ids people copy); nothing is cut.
// When even that cannot fit, the columns a caller marks optional are left out, the first-named first,
// and named so the command can say what `--wide` would add. Without a width the table is as wide as
// its contents.
import Table from 'cli-table3';

export interface TextTableOptions {
  /** Total width to fit in (terminal columns); undefined = as wide as the contents. */
  width?: number;
  /** No separator lines between rows. */
  compact?: boolean;
  /** Headers of the columns that may be left out to fit, the first to go first. */
  optional?: readonly string[];
  /** Indexes of columns whose words are never broken (identifiers to copy); default: the first. */
  whole?: readonly number[];
}

type CellValue = string | number | null | undefined;

/** Columns and rows in; `toString()` lays them out (fitted) and records what it left out in `dropped`. */
export class TextTable {
  private readonly rows: string[][] = [];
  /** Headers of the columns left out by the last toString(). */
  dropped: string[] = [];

  constructor(
    private readonly head: readonly string[],
    private readonly options: TextTableOptions = {},
  ) {}

  push(...rows: CellValue[][]): void {
    for (const r of rows) this.rows.push(r.map((v) => (v === null || v === undefined ? '' : String(v))));
  }

  toString(): string {
    let keep = this.head.map((_, i) => i);
    const width = this.options.width;
    const whole = new Set(this.options.whole ?? [0]);
    // First without breaking any word, leaving out optional columns as needed; then, if that cannot
    // fit, with long words broken (never those of `whole` columns); else the narrowest unbroken layout.
    const fit = (breakWords: boolean) =>
      fitWidths(this.columns(keep), width!, new Set(keep.flatMap((k, j) => (whole.has(k) || !breakWords ? [j] : []))));
    let widths = width === undefined ? null : fit(false);
    for (const name of this.options.optional ?? []) {
      if (width === undefined || widths?.fits) break;
      const i = this.head.indexOf(name);
      if (i < 0 || !keep.includes(i)) continue;
      keep = keep.filter((k) => k !== i);
      widths = fit(false);
    }
    if (widths && !widths.fits) {
      const broken = fit(true);
      if (broken.fits) widths = broken;
      // Not even then (an identifier wider than the room its row leaves): one record per row instead.
      else {
        this.dropped = [];
        return this.records(width!);
      }
    }
    this.dropped = this.head.filter((_, i) => !keep.includes(i));
    const wrap = (text: string, j: number) => (widths ? wrapCell(text, widths.widths[j] - PAD) : text);
    const table = new Table({
      head: keep.map((i, j) => wrap(this.head[i], j)),
      style: { head: [], border: [], compact: this.options.compact ?? false },
      ...(this.options.compact ? { chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } } : {}),
      ...(widths ? { colWidths: widths.widths } : {}),
    });
    for (const r of this.rows) table.push(keep.map((i, j) => wrap(r[i] ?? '', j)));
    return table.toString();
  }

  /**
   * The rows as records, for a width no table fits: each row's first cell on a line of its own,
   * then `header value` fields separated by ` · `, wrapped to the width under a four-space indent.
   */
  private records(width: number): string {
    const out: string[] = [];
    for (const r of this.rows) {
      out.push(r[0] ?? '');
      const fields = this.head.slice(1).map((h, i) => `${h} ${(r[i + 1] ?? '').replace(/\s*\n\s*/g, ' ') || '—'}`);
      let line = '';
      for (const field of fields) {
        const next = line ? `${line} · ${field}` : field;
        if (line && 4 + len(next) + 2 > width) {
          out.push(`    ${line} ·`);
          line = field;
        } else line = next;
      }
      if (line) out.push(`    ${line}`);
    }
    return out.map((l) => (len(l) > width && l.startsWith('    ') ? wrapCell(l.trim(), width - 4).replace(/^/gm, '    ') : l)).join('\n');
  }

  private columns(keep: readonly number[]): string[][] {
    return keep.map((i) => [this.head[i], ...this.rows.map((r) => r[i] ?? '')]);
  }
}

const len = (s: string) => Array.from(s).length;
/** Padding (one space each side) per column, and the border characters of a row. */
const PAD = 2;

/** Shortest width a breakable column is narrowed to before columns are left out. */
const MIN_BREAKABLE = 7;

/**
 * Column widths (padding included) to fit `width`: the widest columns are narrowed first, a `whole`
 * column never below its longest word, the others never below MIN_BREAKABLE (or their longest word,
 * if shorter). `fits` is false when even the narrowest layout is wider (then that layout is returned).
 */
export function fitWidths(
  columns: readonly string[][],
  width: number,
  whole: ReadonlySet<number> = new Set([0]),
): { widths: number[]; fits: boolean } {
  const natural = columns.map((cells) => Math.max(...cells.flatMap((c) => c.split('\n')).map(len)) + PAD);
  const longestWord = columns.map((cells) => Math.max(1, ...cells.flatMap((c) => c.split(/\s+/)).map(len)));
  const floor = longestWord.map((w, i) => (whole.has(i) ? w : Math.min(w, MIN_BREAKABLE)) + PAD);
  const total = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + ws.length + 1;
  if (total(floor) > width) return { widths: floor.map((f, i) => Math.min(f, natural[i])), fits: false };
  const ws = [...natural];
  while (total(ws) > width) {
    let widest = -1;
    for (let i = 0; i < ws.length; i++) if (ws[i] > floor[i] && (widest < 0 || ws[i] > ws[widest])) widest = i;
    ws[widest]--;
  }
  return { widths: ws, fits: true };
}

/** A cell's text in lines of at most `width` characters: wrapped at spaces, longer words broken. */
export function wrapCell(text: string, width: number): string {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      let w = word;
      if (line && len(line) + 1 + len(w) <= width) {
        line += ' ' + w;
        continue;
      }
      if (line) out.push(line);
      while (len(w) > width) {
        // Break after a separator (_ - / : .) that fits, else at the width.
        const chars = Array.from(w);
        let cut = width;
        for (let k = width; k > Math.floor(width / 2); k--)
          if ('_-/:.'.includes(chars[k - 1])) {
            cut = k;
            break;
          }
        out.push(chars.slice(0, cut).join(''));
        w = chars.slice(cut).join('');
      }
      line = w;
    }
    out.push(line);
  }
  return out.join('\n');
}
