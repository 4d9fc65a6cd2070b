// The documentation's imports of the package: every `import … from 'revloop…'` statement in the
// ```ts blocks of README.md and docs/*.md. One reader for the two users: the package test
// type-checks them against the installed package, and scripts/unused-exports.mjs counts them as uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Per ```ts block that imports revloop: `where` ("docs/store.md block 2"), the document, and each
 * import statement with its subpath and the names it imports (without `type` and `as` aliases).
 */
export function documentedImports(root) {
  const docs = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const out = [];
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), 'utf8');
    for (const [i, block] of [...text.matchAll(/```ts\n([\s\S]*?)```/g)].entries()) {
      const statements = [...block[1].matchAll(/^import\s([^;]*?)\sfrom\s'(revloop(?:\/[^']*)?)';/gm)].map((m) => ({
        text: m[0],
        subpath: m[2],
        names: (/\{([^}]*)\}/.exec(m[1])?.[1] ?? '')
          .split(',')
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, '')
                .split(/\s+as\s+/)[0],
          )
          .filter(Boolean),
      }));
      if (statements.length) out.push({ where: `${doc} block ${i + 1}`, doc, statements });
    }
  }
  return out;
}
