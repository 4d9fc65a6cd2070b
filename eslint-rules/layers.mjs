// The layering of src/, enforced by `npm run lint` (rule `revloop/layers`). This file is the one
// place revloop's layer table lives; another tree (the revise package, packages/revise/src) passes
// its own table as the rule's options (`layers`, `onlyBelow`, `sharedSiblings`, `rootEntries`, `noImporters`).
//
//   1. A layer imports only the layers below it (`src/index.ts`, the package root, is exempt).
//   2. The sub-folders of `studies` and `envs` are separate modules: a sibling may import only the
//      shared kit named in SHARED_SIBLINGS.
//   3. A layer in ONLY_BELOW imports only the layers listed there.
//   4. No two folders import each other, directly or around a longer loop (a folder and one inside
//      it are exempt: an index re-exporting its children, a child importing its parent's types).
//   5. Nothing imports a layer in NO_IMPORTERS (`test`, the doubles of revloop/test).
//
// Every kind of import counts: static, `import type`, `export … from`, dynamic `import('…')` with a
// literal path, and `import('…')` in type positions. Imports are read with TypeScript's own import
// scanner (ts.preProcessFile), so comments and strings never count. Rule 4 needs the whole tree: it
// is read once per lint process, with the file being linted taken from its current text.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Top to bottom; names in one inner list share a level and may not import each other. `test`
 * (revloop/test: test doubles and hooks for users' tests) shares the top level with `cli`: it may
 * import every layer below, and nothing in src imports it.
 */
export const LAYERS = [
  ['cli', 'test'],
  'app',
  ['viewer', 'report'],
  'html',
  'studies',
  'revise',
  'engine',
  'envs',
  'remedy',
  'store',
  'models',
  'core',
];

/** Layers whose sub-folders are independent modules, and the one sibling each may share. */
export const SHARED_SIBLINGS = { studies: ['kit'], envs: ['items'] };

/** Layers that may import only some of the layers below them (remedy is for anyone's agent loop). */
export const ONLY_BELOW = { remedy: ['models', 'core'] };

/** Layers nothing else in the tree may import (revloop/test's doubles are for users' tests only). */
export const NO_IMPORTERS = ['test'];

/** Files directly in src/ that may import anything (the package root). */
export const ROOT_ENTRIES = ['index.ts'];

const SOURCE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

/** A layer table's lookups: each layer's level and the order in words. */
function tableOf(options = {}) {
  const layers = options.layers ?? LAYERS;
  return {
    LEVEL: new Map(layers.flatMap((entry, level) => (Array.isArray(entry) ? entry : [entry]).map((name) => [name, level]))),
    ORDER: layers.map((e) => (Array.isArray(e) ? e.join(' | ') : e)).join(' > '),
    ONLY_BELOW: options.onlyBelow ?? (options.layers ? {} : ONLY_BELOW),
    SHARED_SIBLINGS: options.sharedSiblings ?? (options.layers ? {} : SHARED_SIBLINGS),
    ROOT_ENTRIES: options.rootEntries ?? ROOT_ENTRIES,
    NO_IMPORTERS: options.noImporters ?? (options.layers ? [] : NO_IMPORTERS),
  };
}

const posix = (p) => p.split(sep).join('/');

/** Relative import specifiers of a source text, with their offsets. */
function importsOf(text) {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((f) => f.fileName.startsWith('./') || f.fileName.startsWith('../'))
    .map((f) => ({ specifier: f.fileName, pos: f.pos, end: f.end }));
}

/** The file an import names, relative to the src root (`models/types.ts`), or null outside it. */
function target(root, fromFile, specifier) {
  let abs = resolve(dirname(fromFile), specifier);
  if (!extname(abs) && existsSync(abs) && statSync(abs).isDirectory()) abs = join(abs, 'index.ts');
  const rel = posix(relative(root, abs));
  return rel.startsWith('../') || rel === '..' ? null : rel;
}

const folderOf = (rel) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
const related = (a, b) => a === b || a.startsWith(b + '/') || b.startsWith(a + '/') || a === '' || b === '';

function walk(dir, out = []) {
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    if (name.name.startsWith('.') || name.name === 'node_modules') continue;
    const p = join(dir, name.name);
    if (name.isDirectory()) walk(p, out);
    else if (SOURCE.test(name.name) && !name.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Folder graph of the whole tree: edges folder → folder with one witness file pair each. */
const graphs = new Map();
function treeEdges(root) {
  let g = graphs.get(root);
  if (!g) {
    g = new Map(); // file (rel) → [{ to: rel }]
    for (const file of walk(root)) {
      const rel = posix(relative(root, file));
      const text = readFileSync(file, 'utf8');
      g.set(
        rel,
        importsOf(text)
          .map((i) => target(root, file, i.specifier))
          .filter((t) => t !== null),
      );
    }
    graphs.set(root, g);
  }
  return g;
}

/** Folder → outgoing folder edges (each with one witness file import), folders inside each other left out. */
function folderEdges(fileEdges) {
  const byFolder = new Map();
  for (const [file, targets] of fileEdges) {
    const d = folderOf(file);
    for (const t of targets) {
      const td = folderOf(t);
      if (related(d, td)) continue;
      if (!byFolder.has(d)) byFolder.set(d, []);
      byFolder.get(d).push({ file, target: t, folder: td });
    }
  }
  return byFolder;
}

/** The shortest chain of file imports from folder `from` to folder `to`, or null (breadth first). */
function chain(byFolder, from, to) {
  const via = new Map([[from, null]]);
  const queue = [from];
  while (queue.length && !via.has(to)) {
    for (const e of byFolder.get(queue.shift()) ?? []) {
      if (via.has(e.folder)) continue;
      via.set(e.folder, e);
      queue.push(e.folder);
    }
  }
  if (!via.has(to)) return null;
  const steps = [];
  for (let d = to; via.get(d); d = folderOf(via.get(d).file)) steps.unshift(via.get(d));
  return steps;
}

/** @type {import('eslint').Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Layers import downward only; sibling modules stay apart; no two folders import each other.' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          // Another tree's table (default: revloop's, above).
          layers: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
          onlyBelow: { type: 'object' },
          sharedSiblings: { type: 'object' },
          rootEntries: { type: 'array', items: { type: 'string' } },
          noImporters: { type: 'array', items: { type: 'string' } },
          // Known violations being worked off, as "<importing file> -> <imported file>" (paths from the root); an entry that no longer
          // matches an import of its file is reported, so the list can only shrink.
          known: { type: 'array', items: { type: 'string', pattern: '^\\S+ -> \\S+$' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      upward: '{{from}} (layer {{fromLayer}}) imports {{to}} (layer {{toLayer}}): layers import downward only ({{order}}).',
      sameLevel:
        '{{from}} (layer {{fromLayer}}) imports {{to}} (layer {{toLayer}}): these layers share a level and stay apart ({{order}}).',
      only: '{{from}} (layer {{fromLayer}}) imports {{to}} (layer {{toLayer}}): {{fromLayer}} may import only {{allowed}}.',
      sibling: '{{from}} imports {{to}}: {{layer}}/{{a}} and {{layer}}/{{b}} are separate modules; they may share only {{shared}}.',
      rootImport: '{{from}} imports {{to}}: nothing inside src imports the package root.',
      noImporters: '{{from}} imports {{to}}: nothing else inside src imports {{toLayer}} (test doubles and hooks, for tests only).',
      noLayer: '{{from}} is in src/{{layer}}, which is not a layer; add it to the table in eslint-rules/layers.mjs ({{order}}).',
      cycle: 'folder cycle: {{from}} imports {{to}}, and {{back}} ({{folders}}); no two folders may import each other.',
      stale: 'known layering violation "{{entry}}" no longer occurs: remove it from the revloop/layers options in eslint.config.js.',
    },
  },
  create(context) {
    // Relative to the repository (this file's parent folder), wherever eslint was started.
    const rootOption = context.options[0]?.root ?? 'src';
    const root = resolve(REPO, rootOption);
    const { LEVEL, ORDER, ONLY_BELOW, SHARED_SIBLINGS, ROOT_ENTRIES, NO_IMPORTERS } = tableOf(context.options[0]);
    const file = context.filename;
    const rel = posix(relative(root, file));
    if (rel.startsWith('../') || !SOURCE.test(rel)) return {};
    const src = (r) => `${posix(rootOption)}/${r}`;
    const known = new Set(context.options[0]?.known ?? []);
    const used = new Set();
    const isKnown = (to) => {
      const entry = `${src(rel)} -> ${src(to)}`;
      if (!known.has(entry)) return false;
      used.add(entry);
      return true;
    };
    return {
      Program(node) {
        const sourceCode = context.sourceCode;
        const imports = importsOf(sourceCode.text);
        const layer = rel.includes('/') ? rel.split('/')[0] : null;
        const rootEntry = layer === null && ROOT_ENTRIES.includes(rel);
        if (layer !== null && !LEVEL.has(layer)) {
          context.report({ node, messageId: 'noLayer', data: { from: src(rel), layer, order: ORDER } });
        }
        const fileEdges = treeEdges(root);
        const targets = [];
        for (const imp of imports) {
          const to = target(root, file, imp.specifier);
          if (to === null) continue;
          targets.push(to);
          const loc = { start: sourceCode.getLocFromIndex(imp.pos), end: sourceCode.getLocFromIndex(imp.end) };
          const toLayer = to.includes('/') ? to.split('/')[0] : null;
          if (toLayer === null) {
            if (!rootEntry && ROOT_ENTRIES.includes(to))
              context.report({ loc, messageId: 'rootImport', data: { from: src(rel), to: src(to) } });
            continue;
          }
          if (rootEntry || layer === null || !LEVEL.has(layer) || !LEVEL.has(toLayer)) continue;
          const data = { from: src(rel), to: src(to), fromLayer: layer, toLayer, order: ORDER };
          if (layer !== toLayer && isKnown(to)) continue;
          if (layer !== toLayer) {
            if (NO_IMPORTERS.includes(toLayer)) context.report({ loc, messageId: 'noImporters', data });
            else if (LEVEL.get(toLayer) < LEVEL.get(layer)) context.report({ loc, messageId: 'upward', data });
            else if (LEVEL.get(toLayer) === LEVEL.get(layer)) context.report({ loc, messageId: 'sameLevel', data });
            else if (ONLY_BELOW[layer] && !ONLY_BELOW[layer].includes(toLayer)) {
              context.report({ loc, messageId: 'only', data: { ...data, allowed: ONLY_BELOW[layer].join(', ') } });
            }
            continue;
          }
          const shared = SHARED_SIBLINGS[layer];
          const a = rel.split('/').length > 2 ? rel.split('/')[1] : null;
          const b = to.split('/').length > 2 ? to.split('/')[1] : null;
          if (shared && a && b && a !== b && !shared.includes(b) && !isKnown(to)) {
            context.report({
              loc,
              messageId: 'sibling',
              data: { from: src(rel), to: src(to), layer, a, b, shared: shared.map((s) => `${layer}/${s}`).join(', ') },
            });
          }
        }
        for (const entry of known) {
          if (entry.startsWith(`${src(rel)} -> `) && !used.has(entry)) context.report({ node, messageId: 'stale', data: { entry } });
        }
        // Folder cycles: this file's current imports, the rest of the tree as read.
        const byFolder = folderEdges(new Map(fileEdges).set(rel, targets));
        const here = folderOf(rel);
        for (const imp of imports) {
          const to = target(root, file, imp.specifier);
          if (to === null || related(here, folderOf(to))) continue;
          const back = chain(byFolder, folderOf(to), here);
          if (!back) continue;
          context.report({
            loc: { start: sourceCode.getLocFromIndex(imp.pos), end: sourceCode.getLocFromIndex(imp.end) },
            messageId: 'cycle',
            data: {
              from: src(rel),
              to: src(to),
              back: back.map((s) => `${src(s.file)} imports ${src(s.target)}`).join(', then '),
              folders: [here, folderOf(to), ...back.map((s) => s.folder)].map((d) => src(d)).join(' → '),
            },
          });
        }
      },
    };
  },
};

export default { rules: { layers: layersRule } };
