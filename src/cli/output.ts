// What revloop writes for people never carries a terminal's control characters from data: a
// controller, run or case named "\x1b]0;pwned\x07" would otherwise set the terminal's title,
// colour, or hide text. Every string written to standard output or error goes through
// `terminalSafe` (installed once by cli/main.ts), whatever command writes it. Two kinds of writes
// pass untouched: a command's data on standard output (`-o -`, verify's JSON Lines: bytes that must
// equal the file's), declared with `dataOnStdout`, and the progress line's own cursor controls
// (`writeRaw`, after escaping the line's text).

/**
 * Characters a terminal would act on or hide: controls other than tab and newline (a carriage
 * return before a newline is kept), format characters (bidi overrides, zero-width), line and
 * paragraph separators, surrogates, private use and unassigned code points.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;

/**
 * Text safe for a terminal: unsafe characters written as `\uXXXX` (a surrogate pair of them above
 * U+FFFF), which is also how JSON escapes them, so JSON text stays valid and means the same.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (ch: string, at: number, whole: string) => {
    if (ch === '\n' || ch === '\t' || (ch === '\r' && whole[at + 1] === '\n')) return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
const ORIGINAL = Symbol('revloop.rawWrite');
type Guarded = NodeJS.WritableStream & { [ORIGINAL]?: Write; isTTY?: boolean };

let stdoutIsData = false;

/** Standard output carries this command's data from now on (written as is); notes go to standard error. */
export function dataOnStdout(): void {
  stdoutIsData = true;
}

/** Makes every later string written to these streams terminal-safe (cli/main.ts, once per process). */
export function guardTerminalOutput(streams: Guarded[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (stream[ORIGINAL]) continue;
    const original = stream.write.bind(stream) as Write;
    stream[ORIGINAL] = original;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      original(
        typeof chunk === 'string' && !(stdoutIsData && stream === process.stdout) ? terminalSafe(chunk) : chunk,
        ...rest,
      )) as Guarded['write'];
  }
}

/** Writes `text` as is (cursor controls of a progress line; its text escaped by the caller). */
export function writeRaw(stream: { write(s: string): unknown }, text: string): void {
  const original = (stream as Guarded)[ORIGINAL];
  if (original) original(text);
  else stream.write(text);
}
