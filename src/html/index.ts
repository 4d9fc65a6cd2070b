// Sections of typed blocks (src/studies/kit/sections.ts) to HTML, and what every HTML view of
// revloop shares: escaping, number formats, tables, SVG charts, word diffs between drafts and the
// stylesheet. The report (a file) and the viewer (a live app) both render through this layer, so
// a study's sections look and escape the same in both.
export { sectionHtml, blockHtml, dataTableHtml } from './blocks.ts';
export { escapeHtml, jsonForScript } from './escape.ts';
export { encodeWordDiff, decodeWordDiff, type EncodedDiff, type DiffSegment, type DiffOp } from './word-diff.ts';
export { stylesheet } from './stylesheet.ts';
export { SIMULATED, simBadge } from './tables.ts';
