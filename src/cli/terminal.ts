// How wide terminal text may be. Tables, help texts and progress lines fit the terminal: its width
// when the stream is one, else $COLUMNS when set, else 80 columns. `--wide` (any command) turns
// fitting off for all of them.

/** The fewest columns anything is fitted to (a smaller $COLUMNS is taken as this). */
const MIN_COLUMNS = 40;
/** The width assumed when neither the stream nor $COLUMNS tells one. */
export const DEFAULT_COLUMNS = 80;

let wideEverywhere = false;

/** `--wide` anywhere on the command line: nothing is fitted (set once by cli/main.ts before parsing). */
export function setWide(wide: boolean): void {
  wideEverywhere = wide;
}

export interface WidthStream {
  isTTY?: boolean;
  columns?: number;
}

/** The columns of a stream: the terminal's, else $COLUMNS, else 80. */
export function terminalColumns(stream: WidthStream = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  if (stream.isTTY && stream.columns) return Math.max(stream.columns, MIN_COLUMNS);
  const n = Number(env.COLUMNS);
  return Number.isInteger(n) && n > 0 ? Math.max(n, MIN_COLUMNS) : DEFAULT_COLUMNS;
}

/** Columns to fit tables in: undefined (as wide as their contents) with `wide` or --wide. */
export function outputWidth(
  wide?: boolean,
  stream: WidthStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  return wide || wideEverywhere ? undefined : terminalColumns(stream, env);
}

/** The width help is wrapped to (Infinity with --wide). */
export function helpWidth(stream: WidthStream = process.stdout): number {
  return outputWidth(false, stream) ?? Infinity;
}

/** Words of `text` wrapped to `width` columns (existing line breaks kept; lines indented by two or more spaces, such as commands, left whole). */
export function wrapText(text: string, width: number | undefined): string {
  if (width === undefined || !Number.isFinite(width)) return text;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s{2,}\S/.test(line) || Array.from(line).length <= width) return line;
      const out: string[] = [];
      let current = '';
      for (const word of line.split(' ')) {
        if (current && Array.from(`${current} ${word}`).length > width) {
          out.push(current);
          current = word;
        } else current = current ? `${current} ${word}` : word;
      }
      if (current) out.push(current);
      return out.join('\n');
    })
    .join('\n');
}

/**
 * Terminal text fitted to `width`: every line wider is wrapped at spaces, its continuation lines
 * indented as it is (plus two); table lines (box drawing) are left as their table laid them out.
 */
export function fitText(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  const lines = text.split('\n');
  return lines
    .map((line, i) => {
      if (Array.from(line).length <= width || /^[│┌└├╞═─]/.test(line)) return line;
      // Commands to paste were laid out by cli/invocation.ts (continued with ` \`); a word longer
      // than the terminal stays whole rather than a command being cut into lines that do not run.
      if (/ \\$/.test(line) || / \\$/.test(lines[i - 1] ?? '') || /^\s+(revloop|npx revloop|node) /.test(line)) return line;
      const indent = /^ */.exec(line)![0].length;
      const words = line.trim().split(' ');
      const out: string[] = [];
      let current = '';
      for (const word of words) {
        const lead = out.length ? indent + 2 : indent;
        if (current && lead + Array.from(`${current} ${word}`).length > width) {
          out.push(' '.repeat(lead) + current);
          current = word;
        } else current = current ? `${current} ${word}` : word;
      }
      out.push(' '.repeat(out.length ? indent + 2 : indent) + current);
      return out.join('\n');
    })
    .join('\n');
}

/** A stream whose text is fitted to its width (fitText) as it is written: for lines of words, never for data. */
export function fitted(stream: NodeJS.WriteStream = process.stdout): { write(text: string): void } {
  return { write: (text) => void stream.write(fitText(text, outputWidth(false, stream))) };
}
