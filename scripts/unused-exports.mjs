#!/usr/bin/env node
// Lists the names that a module under src/ exports and that no other file uses: no import of it
// (directly or through a re-exporting index) in src/, test/, bench/ or scripts/, no
// `import … from 'revloop…'` of it in a ```ts block of README.md or docs/, and not exported by a
// public subpath (package.json `exports`). Such an export is dead: drop the `export` (or the code).
// A re-export in a module that is not a public entry is not a use. bin/revloop.mjs is not read: it
// calls `main` of src/cli/main.ts.
//
//   node scripts/unused-exports.mjs            the dead exports, file:line name
//   node scripts/unused-exports.mjs --uses     every export of src/ with where it is used (tab-separated)
//
// A tool for curating the public API (docs/library.md); it always exits 0 and is not run by CI:
// a feature may export a name one commit before its first user.
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { publicEntries } from './api-report.mjs';
import { documentedImports } from './doc-imports.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rel = (f) => relative(ROOT, f).split(sep).join('/');

function program() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  return ts.createProgram(parsed.fileNames, parsed.options);
}

function main(args) {
  const p = program();
  const checker = p.getTypeChecker();
  const resolveTarget = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  /** target symbol → set of files using it */
  const uses = new Map();
  const use = (sym, file) => {
    if (!sym) return;
    if (!uses.has(sym)) uses.set(sym, new Set());
    uses.get(sym).add(file);
  };
  const modulesOf = new Map(); // module symbol → file
  for (const sf of p.getSourceFiles()) {
    if (sf.isDeclarationFile || rel(sf.fileName).startsWith('..') || rel(sf.fileName).startsWith('node_modules')) continue;
    const file = rel(sf.fileName);
    const visit = (node) => {
      if (ts.isImportDeclaration(node) && node.importClause) {
        const c = node.importClause;
        if (c.name) use(resolveTarget(checker.getSymbolAtLocation(c.name)), file);
        if (c.namedBindings && ts.isNamedImports(c.namedBindings)) {
          for (const el of c.namedBindings.elements) use(resolveTarget(checker.getSymbolAtLocation(el.name)), file);
        }
        if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) {
          const mod = checker.getSymbolAtLocation(node.moduleSpecifier);
          if (mod) for (const e of checker.getExportsOfModule(mod)) use(resolveTarget(e), file);
        }
      }
      // import('…'): every export of that module counts as used (dynamic imports are rare and deliberate).
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
        const mod = checker.getSymbolAtLocation(node.arguments[0]);
        if (mod) for (const e of checker.getExportsOfModule(mod)) use(resolveTarget(e), file);
      }
      // typeof import('…').X and import('…').X in types
      if (ts.isImportTypeNode(node) && node.qualifier) {
        use(resolveTarget(checker.getSymbolAtLocation(ts.isQualifiedName(node.qualifier) ? node.qualifier.right : node.qualifier)), file);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    const ms = checker.getSymbolAtLocation(sf);
    if (ms) modulesOf.set(file, ms);
  }
  // Documentation examples, resolved through the public entries.
  const entries = new Map(publicEntries(ROOT).map((e) => [e.subpath, e.source]));
  for (const { doc, statements } of documentedImports(ROOT)) {
    for (const st of statements) {
      const ms = modulesOf.get(entries.get(st.subpath));
      for (const name of st.names) {
        const s = ms && checker.getExportsOfModule(ms).find((e) => e.name === name);
        if (s) use(resolveTarget(s), doc);
        else process.stderr.write(`${doc}: ${name} is not exported by ${st.subpath}\n`);
      }
    }
  }
  // What a public subpath exports is used: by the package's users.
  for (const source of entries.values()) {
    const ms = modulesOf.get(source);
    if (ms) for (const e of checker.getExportsOfModule(ms)) use(resolveTarget(e), `${source} (public)`);
  }
  const rows = [];
  for (const [file, ms] of [...modulesOf].sort()) {
    if (!file.startsWith('src/')) continue;
    for (const e of checker.getExportsOfModule(ms)) {
      if (e.flags & ts.SymbolFlags.Alias) continue; // re-exports are judged where they are declared
      const decl = e.declarations?.[0];
      if (decl && rel(decl.getSourceFile().fileName) !== file) continue; // `export *`: judged where it is declared
      const line = decl ? decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1 : 0;
      const users = [...(uses.get(e) ?? [])].filter((f) => f !== file).sort();
      const value = (e.flags & ts.SymbolFlags.Value) !== 0;
      const text = readFileSync(join(ROOT, file), 'utf8');
      const local = (text.match(new RegExp(`(?<![\\w$.])${e.name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g')) ?? []).length - 1;
      rows.push({ where: `${file}:${line}`, name: e.name, users, value, local });
    }
  }
  if (args.includes('--uses')) {
    for (const r of rows) process.stdout.write(`${r.where}\t${r.name}\t${r.users.join(' ')}\n`);
    return;
  }
  const dead = rows.filter((r) => !r.users.length);
  for (const r of dead)
    process.stdout.write(`${r.where} ${r.name} ${r.value ? 'value' : 'type'}${r.local > 0 ? '' : ', not used in its own file either'}\n`);
  process.stdout.write(`${dead.length} of ${rows.length} exports are used nowhere else\n`);
}

main(process.argv.slice(2));
