// The one stylesheet of revloop's HTML: theme (light, dark, print), tables, charts, failure bars,
// SIMULATED badges, drafts, word diffs and verifier reports. The report inlines it; the viewer
// serves it as a file. Both render the same section blocks (blocks.ts), so they share its rules.
import { readFileSync } from 'node:fs';

let css: string | null = null;

/** The stylesheet's text (read once). It never contains `</style`, so it can be inlined verbatim. */
export function stylesheet(): string {
  if (css === null) {
    const text = readFileSync(new URL('./assets/revloop.css', import.meta.url), 'utf8');
    if (/<\/style/i.test(text)) throw new Error('revloop.css must not contain </style');
    css = text;
  }
  return css;
}
