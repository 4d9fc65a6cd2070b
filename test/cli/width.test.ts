// Issue 14, first-hour friction: `runs` and `analyze` fit an 80–120-column terminal (cells wrapped at
// spaces, run ids never broken, the least important runs columns left out and named), and `--wide`
// gives every column at full width. Piped output without $COLUMNS stays wide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { TextTable, fitWidths, wrapCell } from '../../src/studies/kit/text-table.ts';
import { outputWidth } from '../../src/cli/terminal.ts';
import { tempDir } from '../tmp.ts';
import { revloop } from './cli.ts';
import { requirePunkt } from '../helpers.ts';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => Array.from(l).length));
const tableLines = (text: string) => text.split('\n').filter((l) => /^[│┌└├]/.test(l));

test('wrapCell wraps at spaces and breaks only words longer than the column, after a separator where it can', () => {
  assert.equal(wrapCell('sim:steady [SIMULATED]', 13), 'sim:steady\n[SIMULATED]');
  assert.equal(wrapCell('other_non_contraction', 12), 'other_non_\ncontraction');
  assert.equal(wrapCell('abcdefghij', 4), 'abcd\nefgh\nij');
});

test('a table fits: widest columns narrowed first, whole columns kept, optional columns left out and named', () => {
  const t = new TextTable(['run', 'status', 'model', 'rounds', 'updated'], { width: 60, optional: ['updated', 'rounds'] });
  t.push(['a-long-run-identifier-2026', 'complete', 'openai-compatible:http://localhost:8000/v1#m', '120', '2026-12-01 17:52:28']);
  const text = t.toString();
  assert.ok(widest(text) <= 60, text);
  assert.match(text, /│ a-long-run-identifier-2026 │/, 'the run id stays whole');
  assert.deepEqual(t.dropped, ['rounds', 'updated'], 'optional columns go before a long model name is broken');
  assert.equal(fitWidths([['x'.repeat(50)]], 20).fits, false, 'a whole word wider than the table cannot fit');
  const wide = new TextTable(['a', 'b'], {});
  wide.push(['x'.repeat(100), 'y']);
  assert.ok(widest(wide.toString()) > 100, 'no width: as wide as the contents');
});

test('outputWidth: the terminal, else $COLUMNS, else 80; --wide turns it off', () => {
  assert.equal(outputWidth(false, { isTTY: true, columns: 91 }, {}), 91);
  assert.equal(outputWidth(false, { isTTY: false }, { COLUMNS: '100' }), 100);
  assert.equal(outputWidth(false, { isTTY: false }, {}), 80);
  assert.equal(outputWidth(true, { isTTY: true, columns: 91 }, { COLUMNS: '80' }), undefined);
});

test('revloop runs and analyze on the demo store fit 100 and 120 columns; --wide does not fold', { skip: requirePunkt().skip }, () => {
  const dir = tempDir('revloop-width-');
  assert.equal(revloop(['demo', '--out-dir', dir]).code, 0);
  const db = join(dir, 'demo.db');
  for (const columns of [100, 120]) {
    const env = { COLUMNS: String(columns) };
    const runs = revloop(['runs', '--store', db], { env });
    assert.equal(runs.code, 0, runs.err);
    assert.ok(widest(runs.out) <= columns, `runs at ${columns}:\n${runs.out}`);
    const analyze = revloop(['analyze', '--store', db, '--bootstrap', '100', '--no-progress'], { env });
    assert.equal(analyze.code, 0, analyze.err);
    for (const line of tableLines(analyze.out)) assert.ok(Array.from(line).length <= columns, `analyze at ${columns}: ${line}`);
  }
  const wide = revloop(['runs', '--store', db, '--wide'], { env: { COLUMNS: '100' } });
  assert.ok(widest(wide.out) > 120, 'every column at full width');
  assert.match(wide.out, /│ updated +│/);
  const narrow = revloop(['runs', '--store', db], { env: { COLUMNS: '100' } });
  assert.match(narrow.out, /^\(left out to fit 100 columns: .*updated.*; --wide shows them\)$/m);
  const wideAnalyze = revloop(['analyze', '--store', db, '--bootstrap', '100', '--no-progress', '--wide'], { env: { COLUMNS: '100' } });
  assert.ok(Math.max(...tableLines(wideAnalyze.out).map((l) => Array.from(l).length)) > 120);
});
