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
  // Which ../shared the check reads is the tree's business: never $REVLOOP_SHARED from outside.
  const env = { ...process.env };
  delete env.REVLOOP_SHARED;
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8', env });
  assert.equal(r.stderr, '', 'the check writes nothing to stderr');
  return { status: r.status, lines: r.stdout.trim().split('\n') };
}

function tree(files: Record<string, string>, shared?: Record<string, string>): string {
  // A tree with ../shared next to it lives in a folder of its own: <dir>/repo and <dir>/shared.
  const root = shared ? join(mkdtempSync(join(tmp, 'clone-')), 'repo') : mkdtempSync(join(tmp, 'tree-'));
  for (const [path, text] of Object.entries(shared ?? {})) {
    mkdirSync(join(root, '..', 'shared', dirname(path)), { recursive: true });
    writeFileSync(join(root, '..', 'shared', path), text);
  }
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

// The shared folder of the trees below: a data file, as ../shared holds the paper's case sets.
const SHARED = { 'data/cases/lexical_combined.jsonl': '{}\n', 'docs/SPEC.md': '# Spec\n' };

test('file names in comments resolve in the repository or ../shared, or say whose they are', () => {
  const root = tree(
    {
      ...BASE,
      'src/good.ts': [
        '// Types in types.ts and verify/types.ts; data in ../shared/data/cases/lexical_combined.jsonl,',
        '// found by name too (lexical_combined.jsonl, *_combined.jsonl), and the folder ../shared/data/cases/.',
        "// NLTK's nltk/tokenize/destructive.py; IFEval's instructions.py and instructions_util.py.",
        "// The reference implementation's common/exact_protocol.py (not distributed).",
        '//   npx tsx src/good.ts --json out.json',
        '// Closed pipes (`revloop verify --jsonl big.jsonl | head`) stop quietly; `--plugin a.ts` too.',
        '// Placeholders IN.jsonl and OUT.jsonl; the build writes dist/cli/main.js; Node.js 20; the',
        '// runner writes "solution.py".',
        "export const notAComment = 'missing.py';",
        '',
      ].join('\n'),
      'scripts/tool.py': ['"""Checks against COLLIE\'s collie/constraints.py."""', 'NAMES = ("not_a_comment.py",)', ''].join('\n'),
    },
    SHARED,
  );
  const { status, lines } = check(root);
  assert.equal(status, 0, lines.join('\n'));
});

test('a dangling file citation in a comment is reported with file and line', () => {
  const root = tree(
    {
      ...BASE,
      'src/bad.ts': [
        '// The derived tables are rebuilt by materialize.ts.',
        '/** Settings of record of the reference study (configs/agent_study.yaml). */',
        "// The sample is drawn as the reference's verify_scoring.py draws it.",
        "// Read from ../shared/data/cases/missing.jsonl; a TypeScript name is ours: the store's helper.ts.",
        'export const x = 1;',
        '',
      ].join('\n'),
      'scripts/tool.py': ['# --- exact length (common/exact_protocol.py) ---', 'X = 1', ''].join('\n'),
      'docs/data.md': '# Data\n\nThe cases are in `../shared/data/nothing.jsonl`; `cases.jsonl` names a file of yours.\n',
    },
    SHARED,
  );
  const { status, lines } = check(root);
  assert.equal(status, 1);
  const why = 'which is neither in the repository nor in ../shared';
  assert.deepEqual(
    lines.slice(0, -1).map((l) => l.replace(/: point at what a clone has.*$/, '')),
    [
      'docs/data.md:3: no such path in ../shared: ../shared/data/nothing.jsonl',
      `scripts/tool.py:1: cites common/exact_protocol.py, ${why}`,
      `src/bad.ts:1: cites materialize.ts, ${why}`,
      `src/bad.ts:2: cites configs/agent_study.yaml, ${why}`,
      `src/bad.ts:3: cites verify_scoring.py, ${why}`,
      'src/bad.ts:4: no such path in ../shared: ../shared/data/cases/missing.jsonl',
      `src/bad.ts:4: cites helper.ts, ${why}`,
    ],
  );
  assert.equal(lines[lines.length - 1], '7 stale references');
});

test('without ../shared the file citations are not checked, and the summary says so', () => {
  const root = tree({ ...BASE, 'src/bad.ts': '// Settings of record (configs/agent_study.yaml).\nexport const x = 1;\n' });
  const { status, lines } = check(root);
  assert.equal(status, 0, lines.join('\n'));
  assert.match(lines[0], /no \.\.\/shared next to the repository .*file citations were not checked/);
});
