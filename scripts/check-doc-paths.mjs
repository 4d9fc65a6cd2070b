#!/usr/bin/env node
// Checks that what the comments and docs/ point at exists, so moves and renumbering cannot leave
// stale references behind:
//
//   1. paths: every repository path mentioned in a comment (src/, test/, bench/, scripts/, bin/;
//      README.md and docs/*.md and Python files are read whole) names a file or folder that
//      exists: root paths such as `src/core/verify/types.ts` or `test/verify/parity-*.test.ts`
//      (globs and {a,b} expanded), and module paths such as `./types.ts` or `toolshed/parse.ts`
//      (relative to the file, to src/, or any file ending so); relative Markdown links resolve too;
//   2. citations: every `docs/<page>.md §N` in a comment (and `<page>.md §N` or `<page>.md#sN`
//      in docs/) names a numbered heading of that page (`## <a id="sN"></a>§N …`); a docs page
//      that says "Section numbers (§) refer to [<page>.md]" has its bare §N checked against that page;
//   3. no comment, string or page cites the reference specifications outside the repository
//      (the upper-case `HARNESS`, `PROTOCOL`, `ECOSYSTEM` and `PRODUCT` documents of the shared
//      docs folder): a fresh clone does not have them, and docs/protocol.md and docs/harness.md
//      hold the project's own version;
//   4. files: a clone with ../shared next to it can follow every file a comment of code names.
//      A name ending in .ts, .js, .py, .json, .jsonl, .yaml, .md (and their kin), with or without
//      folders, names a file of the repository (found as in 1.) or of ../shared (as the end of a
//      path there); a `../shared/…` path, in comments and docs, names what ../shared holds. A
//      file that is neither says whose it is in the same sentence: its owner's possessive
//      ("NLTK's nltk/tokenize/destructive.py"; not for a .ts name, those are ours), or "not
//      distributed" for the reference implementation's files. Not citations: command lines (in
//      backticks, or a comment line that starts with one), upper-case placeholders (IN.jsonl),
//      build outputs (dist/…). Python files are read for their comments and docstrings here.
//      Without ../shared (nor $REVLOOP_SHARED) this check is left out, and the summary says so.
//
//   node scripts/check-doc-paths.mjs [ROOT]    prints file:line: problem, exits 1 on any problem
//
// The test `test/docs/doc-references.test.ts` runs it on the repository and on planted mistakes
// (that file is skipped here through a `check-doc-paths: ignore-file` comment line).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT_DIRS = ['eslint-rules', 'src', 'packages', 'test', 'bench', 'scripts', 'bin', 'docs'];
const CODE = /\.(ts|mts|cts|mjs|cjs|js)$/;
/** Folders whose contents are generated or belong to others. */
const SKIP_DIRS = new Set(['node_modules', 'dist']);

/** A file whose comment says so (a line `// check-doc-paths: ignore-file`) is not read: test data. */
const IGNORE_FILE = /^[ \t]*(?:\/\/|#)[ \t]*check-doc-paths: ignore-file\b/m;

/** Every file the checks read: sources and docs, relative to root, sorted. */
export function scannedFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (name.startsWith('.') || SKIP_DIRS.has(name)) continue;
      const rel = join(dir, name);
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (
        (CODE.test(name) || name.endsWith('.py') || name.endsWith('.md')) &&
        !IGNORE_FILE.test(readFileSync(join(root, rel), 'utf8'))
      )
        out.push(rel);
    }
  };
  for (const d of ROOT_DIRS) if (existsSync(join(root, d))) walk(d);
  if (existsSync(join(root, 'README.md'))) out.push('README.md');
  return out.map((f) => f.split(sep).join('/'));
}

/** Every file in the repository (for globs and suffix lookups), relative, with '/' separators. */
function allFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      if (name.startsWith('.') || name === 'node_modules' || name === 'dist') continue;
      const rel = dir ? `${dir}/${name}` : name;
      if (statSync(join(root, rel)).isDirectory()) {
        out.push(rel + '/');
        walk(rel);
      } else out.push(rel);
    }
  };
  walk('');
  return out;
}

/**
 * The text a check reads, as chunks with their offset in the file: the comments of a JS/TS file
 * (consecutive line comments merged into one block, so a citation may continue on the next line)
 * and, with `strings`, its string literals (help texts and report notes cite sections too); the
 * whole file for Markdown and Python.
 */
export function textChunks(file, text, { strings = false } = {}) {
  if (!CODE.test(file)) return [{ start: 0, text }];
  const key = `${file}\0${text}`;
  if (!chunkCache.has(key)) chunkCache.set(key, parseChunks(file, text));
  return chunkCache.get(key).filter((c) => strings || c.kind === 'comment');
}

const chunkCache = new Map();

function parseChunks(file, text) {
  const kind = /\.(ts|mts|cts)$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const ranges = new Map();
  const literals = [];
  const add = (rs) => {
    for (const r of rs ?? []) ranges.set(r.pos, r.end);
  };
  const LITERALS = new Set([
    ts.SyntaxKind.StringLiteral,
    ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    ts.SyntaxKind.TemplateHead,
    ts.SyntaxKind.TemplateMiddle,
    ts.SyntaxKind.TemplateTail,
  ]);
  // Comments are the trivia around tokens, so only the leaves need asking.
  const visit = (node) => {
    if (LITERALS.has(node.kind)) literals.push({ start: node.getStart(sf), end: node.end, kind: 'string' });
    const children = node.getChildren(sf);
    if (!children.length) {
      add(ts.getLeadingCommentRanges(text, node.pos));
      add(ts.getTrailingCommentRanges(text, node.end));
    }
    for (const child of children) visit(child);
  };
  visit(sf);
  const sorted = [...ranges.entries()].sort((a, b) => a[0] - b[0]);
  const chunks = [];
  for (const [pos, end] of sorted) {
    const last = chunks[chunks.length - 1];
    if (last && /^[ \t]*\r?\n[ \t]*$/.test(text.slice(last.end, pos)) && text.startsWith('//', pos)) last.end = end;
    else chunks.push({ start: pos, end, kind: 'comment' });
  }
  return [...chunks, ...literals].map((c) => ({ start: c.start, text: text.slice(c.start, c.end), kind: c.kind }));
}

function lineOf(text, offset) {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** `a/{b,c}/d` → [`a/b/d`, `a/c/d`]. */
function expandBraces(p) {
  const m = /\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1].split(',').flatMap((alt) => expandBraces(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
}

function globRegex(p) {
  const body = p
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part.startsWith('**') ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

// A path that starts at the repository root, optionally behind ./ or ../ (docs write ../src/…).
const ROOT_PATH = new RegExp(String.raw`(?<![\w@$./-])((?:\.{1,2}/)*(?:${ROOT_DIRS.join('|')})/(?:[\w.*…-]|/|\{[\w.,*-]*\})*)`, 'g');
// A module path such as `toolshed/parse.ts` or `./types.ts`: relative to the file, to src/, or any suffix.
const MODULE_PATH = /(?<![\w@$./-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)+\.(?:ts|mts|mjs|cjs))(?![\w/])/g;

/**
 * Mentions of repository paths that do not exist. Paths under a hidden folder (test/.tmp/,
 * bench/.out/) or dist/ are outputs and are not checked; anything outside the repository
 * (`../shared/…`) is checkCitedFiles's.
 */
export function checkPaths(root) {
  const files = allFiles(root);
  const fileSet = new Set(files);
  const problems = [];
  const exists = (p) => {
    const clean = p.replace(/\/+$/, '');
    if (!clean) return true;
    if (clean.includes('*')) {
      const re = globRegex(clean);
      return files.some((f) => re.test(f.replace(/\/$/, '')));
    }
    return fileSet.has(clean) || fileSet.has(clean + '/');
  };
  for (const file of scannedFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const dir = dirname(file);
    const report = (offset, token, why) => problems.push({ file, line: lineOf(text, offset), message: `${why}: ${token}` });
    for (const chunk of textChunks(file, text)) {
      for (const m of chunk.text.matchAll(ROOT_PATH)) {
        const token = m[1].replace(/[.,:;…]+$/, '');
        const bare = token.replace(/^(?:\.{1,2}\/)+/, '').replace(/…$/, '');
        if (/(^|\/)\./.test(bare)) continue;
        for (const p of expandBraces(bare)) {
          const local = relative(root, resolve(root, dir, token.replace(/…$/, '')))
            .split(sep)
            .join('/');
          if (!exists(p) && (local.startsWith('..') || !exists(local))) report(chunk.start + m.index, token, 'no such path');
        }
      }
      for (const m of chunk.text.matchAll(MODULE_PATH)) {
        const token = m[1];
        if (new RegExp(`^(?:\\.{1,2}/)*(?:${ROOT_DIRS.join('|')})/`).test(token)) continue;
        if (/^(?:\.{1,2}\/)*dist\//.test(token)) continue; // a build output
        const local = relative(root, resolve(root, dir, token))
          .split(sep)
          .join('/');
        if (local.startsWith('..')) continue;
        const bare = token.replace(/^(?:\.{1,2}\/)+/, '');
        const ok = exists(local) || exists(`src/${bare}`) || files.some((f) => f.endsWith('/' + bare));
        if (!ok) report(chunk.start + m.index, token, 'no such module');
      }
      if (file.endsWith('.md')) {
        for (const m of chunk.text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
          const target = m[1];
          if (/^[a-z][\w+.-]*:/i.test(target)) continue;
          const local = relative(root, resolve(root, dir, target))
            .split(sep)
            .join('/');
          if (local.startsWith('..')) continue;
          if (!exists(local)) report(chunk.start + m.index, target, 'broken link');
        }
      }
    }
  }
  return problems;
}

/** Numbered sections of a docs page: `## <a id="s3.9"></a>§3.9 Title` → {'3.9', …}. */
export function pageSections(root, page) {
  const path = join(root, 'docs', page);
  if (!existsSync(path)) return null;
  const sections = new Map();
  const problems = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const h = /^#{1,6}\s+(?:<a id="([^"]*)"><\/a>)?\s*§(\d+(?:\.\d+)*)\b/.exec(line);
      if (!h) return;
      const n = h[2];
      if (sections.has(n)) problems.push({ file: `docs/${page}`, line: i + 1, message: `§${n} is numbered twice` });
      if (h[1] !== `s${n}`)
        problems.push({ file: `docs/${page}`, line: i + 1, message: `heading §${n} needs the anchor <a id="s${n}"></a>` });
      sections.set(n, i + 1);
    });
  return { sections, problems };
}

// `§3.1`, `§3.1–3.2`, `§3.2–§3.4`; a range checks both ends.
const SECTION_REF = /§\s?(\d+(?:\.\d+)*)(?:\s*[–-]\s*§?(\d+(?:\.\d+)*))?/g;
const OUTSIDE_SPEC = /\b(?:HARNESS|PROTOCOL|ECOSYSTEM|PRODUCT)(?:\.md\b|\s*§|\s+`)|shared\/docs\//g;

/**
 * Citations of numbered docs pages that do not resolve, and citations of the reference
 * specifications outside the repository.
 */
export function checkCitations(root) {
  const problems = [];
  const cache = new Map();
  const sectionsOf = (page) => {
    if (!cache.has(page)) {
      const s = pageSections(root, page);
      cache.set(page, s);
      if (s) problems.push(...s.problems);
    }
    return cache.get(page);
  };
  for (const file of scannedFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const inDocs = file.startsWith('docs/');
    const isMd = file.endsWith('.md');
    if (inDocs && isMd) sectionsOf(file.slice('docs/'.length)); // reports its heading problems
    // Bare §N in a page refer to the page it names ("Section numbers (§) refer to [<page>.md]"), else
    // to itself when it is numbered.
    let defaultPage = null;
    if (isMd) {
      const d = /Section numbers \(§\)[^\n]*?\(?((?:docs\/)?[a-z][\w-]*\.md)\)?/.exec(text);
      if (d) defaultPage = d[1].replace(/^docs\//, '');
      else if (inDocs && sectionsOf(file.slice('docs/'.length))?.sections.size) defaultPage = file.slice('docs/'.length);
    }
    // Pages are lower-case (docs/protocol.md); upper-case names are the outside documents above.
    const pageRef =
      isMd && inDocs ? /(?:docs\/)?\b([a-z][\w-]*)\.md\b(?:#s(\d+(?:\.\d+)*))?/g : /\bdocs\/([a-z][\w-]*)\.md\b(?:#s(\d+(?:\.\d+)*))?/g;
    for (const chunk of textChunks(file, text, { strings: true })) {
      const check = (offset, page, n) => {
        const s = sectionsOf(page);
        const where = { file, line: lineOf(text, chunk.start + offset) };
        if (!s) problems.push({ ...where, message: `cites docs/${page} §${n}, but there is no such page` });
        else if (!s.sections.size) problems.push({ ...where, message: `cites docs/${page} §${n}, but that page has no numbered sections` });
        else if (!s.sections.has(n)) problems.push({ ...where, message: `cites docs/${page} §${n}, but that page has no §${n}` });
      };
      for (const m of chunk.text.matchAll(OUTSIDE_SPEC)) {
        problems.push({
          file,
          line: lineOf(text, chunk.start + m.index),
          message: `cites "${m[0].trim()}", a document outside the repository; cite docs/protocol.md or docs/harness.md`,
        });
      }
      // Each line (Markdown) or comment block (code) attributes a bare §N to the nearest page
      // mentioned before it; in Markdown a line without one falls back to the page's default.
      const units = isMd ? splitLines(chunk.text) : [{ start: 0, text: chunk.text }];
      for (const unit of units) {
        // A numbered heading defines its section (pageSections checks it); it cites nothing.
        if (inDocs && isMd && /^#{1,6}\s+(?:<a id="[^"]*"><\/a>)?\s*§\d/.test(unit.text)) continue;
        // An outside citation is a mention too, so the §N after it are not blamed on another page.
        const mentions = [
          ...[...unit.text.matchAll(pageRef)].map((m) => ({ at: m.index, page: `${m[1]}.md`, anchor: m[2] })),
          ...[...unit.text.matchAll(OUTSIDE_SPEC)].map((m) => ({ at: m.index, page: null, anchor: undefined })),
        ].sort((a, b) => a.at - b.at);
        for (const mention of mentions) if (mention.anchor) check(unit.start + mention.at, mention.page, mention.anchor);
        for (const m of unit.text.matchAll(SECTION_REF)) {
          // In Markdown a link to an unnumbered page ([store.md](store.md)) is not a citation
          // target unless the § follows it directly.
          const before = mentions.filter(
            (x) =>
              x.at < m.index &&
              (!isMd || !x.page || sectionsOf(x.page)?.sections.size || /^[\w.-]*\.md[\])]*\s*$/.test(unit.text.slice(x.at, m.index))),
          );
          const page = before.length ? before[before.length - 1].page : defaultPage;
          if (!page) continue;
          for (const n of [m[1], m[2]].filter(Boolean)) check(unit.start + m.index, page, n);
        }
      }
    }
  }
  return problems;
}

function splitLines(text) {
  const out = [];
  let start = 0;
  for (const line of text.split('\n')) {
    out.push({ start, text: line });
    start += line.length + 1;
  }
  return out;
}

/** The shared reference folder next to the repository (or $REVLOOP_SHARED), or null when there is none. */
export function sharedDir(root) {
  for (const dir of [join(root, '..', 'shared'), process.env.REVLOOP_SHARED]) {
    if (dir && existsSync(dir) && statSync(dir).isDirectory()) return resolve(dir);
  }
  return null;
}

/** The comments and docstrings of a Python file, as chunks with their offset. */
function pythonChunks(text) {
  const chunks = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '#') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      chunks.push({ start: i, text: text.slice(i, stop) });
      i = stop;
    } else if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < text.length && !text.startsWith(quote, j) && (triple || text[j] !== '\n')) j += text[j] === '\\' ? 2 : 1;
      if (triple) chunks.push({ start: i, text: text.slice(i, j + 3) });
      i = j + quote.length;
    } else i++;
  }
  return chunks;
}

// A file name: optional folders, then a name that starts with a letter, digit, _ or * (a glob).
const CITED_FILE =
  /(?<![\w@$./-])((?:\.{1,2}\/)*(?:[\w*{},-][\w.*{},-]*\/)*[\w*][\w.*-]*\.(?:ts|mts|cts|js|mjs|cjs|py|json|jsonl|yaml|yml|md))(?![\w/(-])/g;
// A command line: in backticks, or a comment line that starts with one.
const COMMAND = /^(?:\$ )?(?:revloop|npx|npm|node|tsx|python3?|\/usr\/bin\/python3|git|bash|sh|-{1,2}\w|[A-Z][A-Z0-9_]*=\S*\s)/;
const SHARED_PATH = /(?<![\w@$./-])\.\.\/shared\/((?:[\w.*…-]|\/|\{[\w.,*-]*\})*)/g;

/**
 * File names in comments of code that neither the repository nor ../shared holds, and that do not
 * say whose they are; `../shared/…` paths (comments and docs) that ../shared does not hold.
 */
export function checkCitedFiles(root) {
  const shared = sharedDir(root);
  if (!shared) return { problems: [], skipped: true };
  const files = allFiles(root);
  const sharedFiles = allFiles(shared);
  const fileSet = new Set(files);
  const sharedSet = new Set(sharedFiles);
  const globbed = (list, pattern) => {
    const re = globRegex(pattern);
    return list.some((f) => re.test(f.replace(/\/$/, '')));
  };
  const inShared = (p) => {
    const clean = p.replace(/\/+$/, '');
    if (!clean) return true;
    return clean.includes('*') ? globbed(sharedFiles, clean) : sharedSet.has(clean) || sharedSet.has(clean + '/');
  };
  const problems = [];
  for (const file of scannedFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const dir = dirname(file);
    const report = (offset, message) => problems.push({ file, line: lineOf(text, offset), message });
    const isCode = CODE.test(file);
    const chunks = file.endsWith('.py') ? pythonChunks(text) : textChunks(file, text);
    for (const chunk of chunks) {
      for (const m of chunk.text.matchAll(SHARED_PATH)) {
        const token = m[1].replace(/[.,:;…]+$/, '');
        if (expandBraces(token).some((p) => !inShared(p))) report(chunk.start + m.index, `no such path in ../shared: ../shared/${token}`);
      }
      if (!isCode && !file.endsWith('.py')) continue;
      for (const m of chunk.text.matchAll(CITED_FILE)) {
        const token = m[1];
        const bare = token.replace(/^(?:\.{1,2}\/)+/, '');
        // Checked by checkPaths: root paths, module paths, ../shared paths.
        if (new RegExp(`^(?:${ROOT_DIRS.join('|')})/`).test(bare) || /^\.\.\/shared\//.test(token)) continue;
        if (bare.includes('/') && /\.(?:ts|mts|mjs|cjs)$/.test(bare) && !bare.includes('*')) continue;
        if (/(^|\/)\./.test(bare) || /^dist\//.test(bare)) continue; // outputs
        const stem = bare
          .split('/')
          .pop()
          .replace(/\.\w+$/, '');
        if (/^[A-Z][A-Z0-9_]*$/.test(stem) || /^[A-Z][a-z]+\.js$/.test(bare)) continue; // IN.jsonl, Node.js
        const at = m.index;
        if (isCommand(chunk.text, at)) continue;
        // A name in quotes is a literal the code uses ("solution.py"), not a citation.
        const quote = chunk.text[at - 1];
        if ((quote === '"' || quote === "'") && chunk.text[at + token.length] === quote) continue;
        if (resolves(files, fileSet, dir, bare, token) || expandBraces(bare).every((p) => globbed(sharedFiles, `**/${p}`))) continue;
        const sentence = sentenceAround(chunk.text, at, at + token.length);
        if (/\bnot distributed\b/i.test(sentence.text)) continue;
        const before = sentence.text.slice(0, at - sentence.start);
        const owners = [...before.matchAll(/\b([A-Za-z][\w.-]*)['’]s\b/g)].map((o) => o[1].toLowerCase());
        // The owner is the nearest possessive before the name ("as the reference's <name>.py": the reference's).
        const owner = owners[owners.length - 1];
        if (owner && !/\.(?:ts|mts|cts)$/.test(bare) && !['reference', 'implementation', 'paper'].includes(owner)) continue;
        report(
          chunk.start + at,
          `cites ${token}, which is neither in the repository nor in ../shared: point at what a clone has, name its owner ("NLTK's …"), or say "(not distributed)"`,
        );
      }
    }
  }
  return { problems, skipped: false };
}

/** Whether a file name resolves in the repository: relative to its file, the root, src/, or as the end of a path. */
function resolves(files, fileSet, dir, bare, token) {
  return expandBraces(bare).every((p) => {
    if (p.includes('*')) {
      const re = globRegex(`**/${p}`);
      return files.some((f) => re.test(f));
    }
    const local = relative('.', join(dir, token)).split(sep).join('/');
    return fileSet.has(local) || fileSet.has(p) || fileSet.has(`src/${p}`) || files.some((f) => f.endsWith('/' + p));
  });
}

/** Whether the text at `at` is part of a command line: a backtick span, or a comment line, that starts with a command. */
function isCommand(text, at) {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const line = text.slice(lineStart, at).replace(/^\s*(?:\/\/+|\*|#|\/\*\*?)?\s*/, '');
  if (COMMAND.test(line)) return true;
  const ticks = [...text.slice(0, at).matchAll(/`/g)];
  if (ticks.length % 2 === 0) return false;
  const open = ticks[ticks.length - 1].index + 1;
  return COMMAND.test(text.slice(open, at)) || /\s--?\w/.test(text.slice(open, at));
}

/** The sentence of a comment around [from, to): from the last `. ` (or blank line) before to the next after. */
function sentenceAround(text, from, to) {
  const ends = /[.!?](?=\s)|\n\s*(?:\/\/|\*|#)?\s*\n/g;
  let start = 0;
  let end = text.length;
  for (const m of text.matchAll(ends)) {
    if (m.index + m[0].length <= from) start = m.index + m[0].length;
    else if (m.index >= to) {
      end = m.index;
      break;
    }
  }
  return { start, text: text.slice(start, end) };
}

/** Every check, sorted by file and line. */
export function checkDocReferences(root) {
  return [...checkPaths(root), ...checkCitations(root), ...checkCitedFiles(root).problems].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
  const problems = checkDocReferences(root);
  for (const p of problems) console.log(`${p.file}:${p.line}: ${p.message}`);
  if (problems.length) {
    console.log(`${problems.length} stale reference${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  if (!sharedDir(root)) console.log('note: no ../shared next to the repository (nor $REVLOOP_SHARED): file citations were not checked');
  console.log('doc references: every path and section citation resolves');
}
