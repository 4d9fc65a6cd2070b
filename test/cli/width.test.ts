// Issue 14, first-hour friction, and issue 37 #12: what revloop prints for people fits the terminal
// (its width, else $COLUMNS, else 80): tables (cells wrapped at spaces, run ids never broken, the
// least important columns left out and named, a record per row when no table fits), help, progress
// lines and printed commands; `--wide` gives every column at full width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { TextTable, fitWidths, wrapCell } from '../../src/studies/kit/text-table.ts';
import { outputWidth } from '../../src/cli/terminal.ts';
import { fitLine } from '../../src/cli/progress.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { tempDir } from '../tmp.ts';
import { allCommands, revloop } from './cli.ts';
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

test('fitLine: a progress line drops its rates first, then its last fields, then ends in …', () => {
  const line = 'demo-stubborn-history: [SIMULATED] 48/48 done · success 10.4% · 128 traj/s · 807.5 rounds/s · ETA 0s';
  assert.equal(fitLine(line, 120), line);
  assert.equal(fitLine(line, 80), 'demo-stubborn-history: [SIMULATED] 48/48 done · success 10.4% · ETA 0s');
  assert.equal(fitLine(line, 66), 'demo-stubborn-history: [SIMULATED] 48/48 done · success 10.4%');
  assert.equal(fitLine(line, 40), 'demo-stubborn-history: [SIMULATED] 48/4…');
  assert.equal(fitLine(line, undefined), line);
});

/** Issue 37 #12: everything a command prints for people fits 80 and 120 columns ($COLUMNS), and --wide folds nothing. */
test(
  'runs, analyze, the demo (tables, progress lines, next commands) and every help fit 80 and 120 columns',
  { skip: requirePunkt().skip },
  async () => {
    // Run in the folder with relative paths, as a user would (a path longer than the terminal is one word no layout can fit).
    const cwd = tempDir('revloop-width-');
    const dir = join(cwd, 'd');
    const db = join(dir, 'demo.db');
    for (const columns of [80, 120]) {
      const o = { env: { COLUMNS: String(columns) }, cwd };
      const fits = (what: string, text: string) => assert.ok(widest(text) <= columns, `${what} at ${columns} columns:\n${text}`);
      const demo = revloop(['demo', '--out-dir', 'd'], o);
      assert.equal(demo.code, 0, demo.err);
      fits('demo', demo.out);
      fits('demo progress', demo.err);
      const runs = revloop(['runs', '--store', 'd/demo.db'], o);
      assert.equal(runs.code, 0, runs.err);
      fits('runs', runs.out);
      const analyze = revloop(['analyze', '--store', 'd/demo.db', '--bootstrap', '100', '--no-progress'], o);
      assert.equal(analyze.code, 0, analyze.err);
      fits('analyze', analyze.out);
      const run = revloop(['run', '--cases', 'd/demo-cases.jsonl', '--model', 'sim:instant', '--store', 'd/demo.db', '--limit', '3'], o);
      assert.equal(run.code, 0, run.err);
      fits('run', run.out + run.err);
      // #12: compare-policies printed 150–160 columns whatever the terminal.
      const compare = revloop(
        ['compare-policies', '--cases', 'd/demo-cases.jsonl', '--model', 'sim:overshoot', '--store', 'd/compare.db', '--limit', '6'],
        o,
      );
      assert.equal(compare.code, 0, compare.err);
      fits('compare-policies', compare.out + compare.err);
      assert.match(compare.out, /^reset-on-recurrence\s+\d+\/\d+/m, 'policy names whole, in a table');
      assert.match(compare.out, /Holm p/, 'the adjusted p-value kept');
      // The closing lines of agent and probe (a run id, counts and the store: 145–170 columns).
      for (const args of [
        ['agent', '--model', 'sim:steady', '--harness', 'verbatim,abstract+ban', '--tasks', '2', '--store', 'd/agent.db'],
        ['probe', '--model', 'sim:steady', '--build', '3', '--store', 'd/probe.db'],
      ]) {
        const r = revloop(args, o);
        assert.equal(r.code, 0, r.err);
        fits(args[0], r.out + r.err);
      }
      // Narrower than every column: success and cost as two tables, each within the width.
      assert.match(compare.out, /^policy\s+drafts\s+failed\s+tok in\s+tok out/m, 'the cost columns in a table of their own');
    }
    // Every command's whole help (the text added after the options included), in this process.
    const program = await buildProgram();
    const saved = process.env.COLUMNS;
    try {
      for (const columns of [80, 120]) {
        process.env.COLUMNS = String(columns);
        for (const { path, cmd } of [{ path: '', cmd: program }, ...allCommands(program)]) {
          let help = '';
          cmd.configureOutput({ ...cmd.configureOutput(), writeOut: (s: string) => (help += s) });
          cmd.outputHelp();
          assert.match(help, /^Usage: revloop/, path);
          assert.ok(widest(help) <= columns, `revloop ${path} --help at ${columns} columns:\n${help}`);
        }
      }
    } finally {
      if (saved === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = saved;
    }
    const wide = revloop(['runs', '--store', db, '--wide'], { env: { COLUMNS: '80' } });
    assert.ok(widest(wide.out) > 120, 'every column at full width');
    assert.match(wide.out, /│ updated +│/);
    const narrow = revloop(['runs', '--store', db], { env: { COLUMNS: '120' } });
    assert.match(narrow.out.replace(/\n(?!\n|\(|[A-Z│┌└├])/g, ' '), /\(left out to fit 120 columns: .*updated.*; --wide shows them\)/);
    const wideAnalyze = revloop(['analyze', '--store', db, '--bootstrap', '100', '--no-progress', '--wide'], { env: { COLUMNS: '80' } });
    assert.ok(Math.max(...tableLines(wideAnalyze.out).map((l) => Array.from(l).length)) > 120);
    const wideCompare = revloop(
      [
        'compare-policies',
        '--cases',
        join(dir, 'demo-cases.jsonl'),
        '--model',
        'sim:overshoot',
        '--store',
        join(dir, 'compare.db'),
        '--limit',
        '6',
        '--wide',
      ],
      { env: { COLUMNS: '80' } },
    );
    assert.match(wideCompare.out, /tokens in\/out.*USD.*cycle stops/, 'every column with --wide');
    const wideHelp = revloop(['analyze', '--help', '--wide'], { env: { COLUMNS: '80' } });
    assert.ok(widest(wideHelp.out) > 120, 'help at full width');
  },
);
