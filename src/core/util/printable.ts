// A name from data (a controller, run or case id) as one line of text for people: every character a
// terminal would act on, hide or break the line at (controls, newlines and tabs included, bidi and
// zero-width format characters, separators, surrogates, private use, unassigned) as `\uXXXX`. The
// CLI's guard on its streams (cli/output.ts) escapes controls in all text but the layout's own newlines
// and tabs; this is for names put into that layout, where a newline would forge a line of output.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;

/** The name with its unprintable characters as `\uXXXX` (a surrogate pair of them above U+FFFF). */
export function printable(name: string): string {
  return name.replace(UNPRINTABLE, (ch: string) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
