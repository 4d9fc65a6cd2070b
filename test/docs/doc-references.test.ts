// What comments and docs point at exists (scripts/check-doc-paths.mjs): every repository path
// mentioned in a comment or a docs page, every `docs/<page>.md §N` citation, and no citation of the
// reference specifications outside the repository. Checked on this repository, and on a small
// tree with planted mistakes to show that each kind is caught and named by file and line.
// The planted mistakes below are data, so the check itself skips this file:
// check-doc-paths: ignore-file
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../tmp.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'check-doc-paths.mjs');
const tmp = tempDir('revloop-docrefs-');

function check(root: string): { status: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  assert.equal(r.stderr, '', 'the check writes nothing to stderr');
  return { status: r.status, lines: r.stdout.trim().split('\n') };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmp, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// Two numbered pages, one of them with the real protocol page's headings.
const PAGE = '# Page\n\n## <a id="s1"></a>§1 One\n\n### <a id="s1.2"></a>§1.2 One two\n\nSee §1.2.\n';
const HEADINGS = readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8')
  .split('\n')
  .filter((l) => /^#{1,6} <a id="s[\d.]+"><\/a>§/.test(l))
  .join('\n\n');
const BASE = {
  'docs/page.md': PAGE,
  'docs/protocol.md': `# Protocol\n\n${HEADINGS}\n`,
  'docs/other.md': '# Other\n\nSection numbers (§) refer to [page.md](page.md).\n\nThe loop (§1.2) and [other](other.md) (§1).\n',
  'src/core/verify/types.ts': '// A real module.\nexport const x = 1;\n',
  'test/a.test.ts': '// ok\n',
};

test('every path and section citation in this repository resolves', () => {
  const { status, lines } = check(ROOT);
  assert.equal(status, 0, `stale references:\n${lines.join('\n')}`);
  assert.match(lines[lines.length - 1], /every path and section citation resolves/);
});

test('a tree without mistakes passes, with every supported citation form', () => {
  const root = tree({
    ...BASE,
    'src/good.ts': [
      '// Types in src/core/verify/types.ts and ./good.ts, tests in test/*.test.ts and test/{a,a}.test.ts,',
      '// outputs under test/.tmp/ and files outside such as ../shared/data are not checked.',
      '// Cites docs/page.md §1, §1.2 and docs/protocol.md §3.9, §3.1–3.2 (continued',
      '// on the next line: §1.6) and docs/protocol.md §6.1.',
      "export const help = 'paper (docs/protocol.md §1.8)';",
      '',
    ].join('\n'),
  });
  const { status, lines } = check(root);
  assert.equal(status, 0, lines.join('\n'));
});

test('planted mistakes are each reported with file and line, and the exit status is 1', () => {
  const root = tree({
    ...BASE,
    'src/bad.ts': [
      '// Moved long ago: src/loop/run.ts, and a module that never was: toolshed/nothing.ts.',
      '// A section that does not exist: docs/page.md §7, and a range end: docs/page.md §1–1.9.',
      '// The old outside citation: HARNESS §3.3, PROTOCOL.md §6.',
      "export const help = 'paper (docs/page.md §2)';",
      '// A page that does not exist: docs/nothing.md §1.',
      '',
    ].join('\n'),
    'docs/bad.md': [
      '# Bad',
      '',
      'Section numbers (§) refer to [page.md](page.md).',
      '',
      'A bare §4 here, [a broken link](missing.md), and `src/cases/index.ts`.',
      '',
      '## §3 A heading without its anchor',
      '',
    ].join('\n'),
  });
  const { status, lines } = check(root);
  assert.equal(status, 1);
  const expected = [
    'docs/bad.md:5: broken link: missing.md',
    'docs/bad.md:5: cites docs/page.md §4, but that page has no §4',
    'docs/bad.md:5: no such path: src/cases/index.ts',
    'docs/bad.md:7: heading §3 needs the anchor <a id="s3"></a>',
    'src/bad.ts:1: no such module: toolshed/nothing.ts',
    'src/bad.ts:1: no such path: src/loop/run.ts',
    'src/bad.ts:2: cites docs/page.md §1.9, but that page has no §1.9',
    'src/bad.ts:2: cites docs/page.md §7, but that page has no §7',
    'src/bad.ts:3: cites "HARNESS §", a document outside the repository; cite docs/protocol.md or docs/harness.md',
    'src/bad.ts:3: cites "PROTOCOL.md", a document outside the repository; cite docs/protocol.md or docs/harness.md',
    'src/bad.ts:4: cites docs/page.md §2, but that page has no §2',
    'src/bad.ts:5: cites docs/nothing.md §1, but there is no such page',
    'src/bad.ts:5: no such path: docs/nothing.md',
    '13 stale references',
  ];
  assert.deepEqual([...lines.slice(0, -1)].sort(), expected.slice(0, -1).sort());
  assert.equal(lines[lines.length - 1], expected[expected.length - 1]);
});

test('a docs page that numbers one section twice is reported', () => {
  const root = tree({ ...BASE, 'docs/page.md': PAGE + '\n## <a id="s1"></a>§1 Again\n' });
  const { status, lines } = check(root);
  assert.equal(status, 1);
  assert.ok(lines.includes('docs/page.md:9: §1 is numbered twice'), lines.join('\n'));
});
