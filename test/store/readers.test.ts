// Readers verify what they read (issue 36): analyze, report and export refuse a run whose chain or
// derived rows disagree with its events (exit 1, the run and the problem named), read it with
// --allow-unverified saying so on every output, and print each run's head, which
// `audit --expect-head` holds a later log against. Both backends, through the real CLI.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hasStack, revloop } from '../cli/cli.ts';
import { eachBackend, rawDb } from './backends.ts';
import { tempDir } from './toy-run.ts';
import { openStore } from '../../src/store/store.ts';
import { viewerBackend } from '../../src/app/view.ts';

eachBackend('analyze, report and export refuse a tampered run, read it with --allow-unverified, print heads', async (s) => {
  const dir = tempDir();
  // A small simulated run through the real CLI.
  const cases = join(dir, 'cases.jsonl');
  writeFileSync(
    cases,
    [1, 2, 3]
      .map((i) =>
        JSON.stringify({
          id: `c${i}`,
          family: 'exact-length',
          source: 'own',
          instruction: `Write about item ${i}.`,
          target: 8 + i,
          anchors: ['item'],
        }),
      )
      .join('\n') + '\n',
  );
  const r = revloop([
    'run',
    '--cases',
    cases,
    '--format',
    'native',
    '--model',
    'sim:steady',
    '--store',
    s.location,
    '--run-id',
    'sim1',
    '--budget',
    '2',
  ]);
  assert.equal(r.code, 0, r.err);
  // The finished run prints its head; the audit passes against it and prints it again.
  const runHead = /run 'sim1': log head seq (\d+) sha256 ([0-9a-f]{64})/.exec(r.out);
  assert.ok(runHead, r.out);
  const first = revloop(['audit', '--store', s.location, '--run', 'sim1', '--expect-head', runHead[2]]);
  assert.equal(first.code, 0, first.out + first.err);
  assert.ok(first.out.includes(`run 'sim1': log head seq ${runHead[1]} sha256 ${runHead[2]}`), first.out);
  // store copy holds the source against a kept head: refused (nothing written) unless a copied run holds it.
  const copyTo = join(dir, 'copy.db');
  const refusedCopy = revloop(['store', 'copy', '--from', s.location, '--to', copyTo, '--expect-head', 'e'.repeat(64)]);
  assert.equal(refusedCopy.code, 2, refusedCopy.err);
  assert.match(
    refusedCopy.err,
    /no run copied holds the expected head eeeeeeeeeeeeeeee…: the source's log was shortened or rewritten since/,
  );
  assert.ok(!existsSync(copyTo));
  const badHead = revloop(['store', 'copy', '--from', s.location, '--to', copyTo, '--expect-head', 'abc']);
  assert.equal(badHead.code, 2, badHead.err);
  const copy = revloop(['store', 'copy', '--from', s.location, '--to', copyTo, '--expect-head', runHead[2]]);
  assert.equal(copy.code, 0, copy.err);
  assert.ok(
    copy.out.includes(`sim1: copied (${runHead[1]} of ${runHead[1]} events written); log head seq ${runHead[1]} sha256 ${runHead[2]}`),
    copy.out,
  );

  // Clean: export prints the head; audit holds the log against it.
  const out = join(dir, 'out.jsonl');
  const e = revloop(['export', '--store', s.location, '--run', 'sim1', '-o', out]);
  assert.equal(e.code, 0, e.err);
  const head = /run 'sim1': log head seq (\d+) sha256 ([0-9a-f]{64})/.exec(e.out);
  assert.ok(head, e.out);
  const a = revloop(['audit', '--store', s.location, '--run', 'sim1', '--expect-head', head[2]]);
  assert.equal(a.code, 0, a.out + a.err);
  const wrong = revloop(['audit', '--store', s.location, '--run', 'sim1', '--expect-head', 'f'.repeat(64)]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.out, /run: head: the log does not hold the expected head ffffffffffffffff…/);
  const html = join(dir, 'r.html');
  const rep = revloop(['report', '--store', s.location, '-o', html, '--bootstrap', '0', '--no-progress']);
  assert.equal(rep.code, 0, rep.err);
  assert.ok(rep.out.includes(`run 'sim1': log head seq ${head[1]} sha256 ${head[2]}`), rep.out);
  assert.ok(readFileSync(html, 'utf8').includes(head[2]), 'the report carries the head');

  const listed = revloop(['runs', '--store', s.location]);
  assert.equal(listed.code, 0, listed.err);
  assert.ok(!/DISAGREES/.test(listed.out + listed.err), listed.out);

  // Tamper with a derived column, as someone with database access can.
  const db = await rawDb(s.location);
  if (s.backend === 'postgres') await db.run('ALTER TABLE runs DISABLE TRIGGER USER');
  await db.run(`UPDATE runs SET simulated = ${s.backend === 'postgres' ? 'false' : '0'}, controller = 'gpt-5'`);
  await db.close();

  for (const args of [
    ['analyze', '--store', s.location, '--bootstrap', '0', '--no-progress'],
    ['report', '--store', s.location, '-o', join(dir, 'r2.html'), '--bootstrap', '0', '--no-progress'],
    ['export', '--store', s.location, '--run', 'sim1', '-o', join(dir, 'o2.jsonl')],
  ]) {
    const refused = revloop(args);
    assert.equal(refused.code, 1, `${args[0]}: ${refused.err}`);
    assert.match(
      refused.err,
      /a run disagrees with its own events in .*; nothing was read:\nrun 'sim1':\n {2}runs\.controller: the events say "sim:steady \[simulated\]", the table holds "gpt-5"/,
    );
    assert.match(refused.err, /--allow-unverified reads it anyway/);
    assert.ok(!hasStack(refused.err));
    const allowed = revloop([...args, '--allow-unverified']);
    assert.equal(allowed.code, 0, `${args[0]} --allow-unverified: ${allowed.err}`);
    assert.match(allowed.err, /UNVERIFIED: run 'sim1' disagrees with its own events \(runs\./);
  }
  // `runs` checks each row against its plan event: marked, named on stderr, exit 1.
  const runs = revloop(['runs', '--store', s.location]);
  assert.equal(runs.code, 1, runs.err);
  assert.match(runs.out, /sim1 +│ complete DISAGREES │ gpt-5/);
  assert.match(
    runs.err,
    /run 'sim1': its runs row disagrees with its own events \(runs\.controller: the events say "sim:steady \[simulated\]", the table holds "gpt-5"; runs\.simulated: the events say true, the table holds false\)/,
  );
  const runsJson = revloop(['runs', '--store', s.location, '--json']);
  assert.equal(runsJson.code, 1);
  assert.match(JSON.parse(runsJson.out)[0].unverified.join('\n'), /runs\.simulated: the events say true/);
  // The viewer's first listing marks it too, before the full check in the background is known.
  const store = await openStore(s.location, { readonly: true });
  try {
    const first = await viewerBackend(store).runs();
    assert.match((first.runs[0].unverified ?? []).join('\n'), /runs\.controller: the events say "sim:steady \[simulated\]"/);
  } finally {
    await store.close();
  }

  const an = revloop(['analyze', '--store', s.location, '--bootstrap', '0', '--no-progress', '--allow-unverified']);
  assert.match(an.out, /^UNVERIFIED: run 'sim1'/);
  const js = revloop(['analyze', '--store', s.location, '--bootstrap', '0', '--no-progress', '--allow-unverified', '--json']);
  assert.match(JSON.parse(js.out).unverified[0], /UNVERIFIED: run 'sim1'/);
  assert.match(
    readFileSync(join(dir, 'r2.html'), 'utf8'),
    /<p class="banner" role="alert">UNVERIFIED: run &#39;sim1&#39;|<p class="banner" role="alert">UNVERIFIED: run 'sim1'/,
  );
});
