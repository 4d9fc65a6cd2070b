import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseHistoryWindow } from '../../src/remedy/history-window.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore, SimulatedCrash } from '../../src/store/store.ts';
import { UserError } from '../../src/core/errors.ts';
import { resolveToy, toyCases } from '../loop/fakes.ts';
import { normalisedEvents, runToyIn, tempDir, toyRun } from './toy-run.ts';

test('a run is stored as events; trajectories reduce identically from tables and events', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  const result = await toyRun(path);
  assert.equal(result.stopped, null);
  assert.equal(result.progress.done, 8);
  const store = await openStore(path, { readonly: true });
  const fromTables = await store.loadTrajectories(['toy']);
  const fromEvents = await store.loadTrajectories(['toy'], { from: 'events' });
  assert.deepEqual(fromTables, fromEvents);
  assert.deepEqual(
    (await fromTables).map((t) => t.caseIndex),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  for (const t of await fromTables) {
    assert.equal(t.status, 'complete');
    assert.ok(t.rounds.length >= 1 && t.rounds.length <= 9);
    const last = t.rounds.at(-1)!;
    assert.ok(last.joint || t.rounds.length === 9, 'stop rule');
    assert.ok(
      t.rounds.slice(0, -1).every((r) => !r.joint),
      'no round after a success',
    );
  }
  // The fake model mixes quick successes and failures at budget.
  assert.ok((await fromTables).some((t) => t.rounds.length === 9 && !t.rounds.at(-1)!.joint));
  assert.ok((await fromTables).some((t) => t.rounds.at(-1)!.joint));
  const [summary] = await store.listRuns();
  assert.equal(summary.status, 'complete');
  assert.equal(summary.cases, 8);
  assert.equal(summary.complete, 8);
  assert.equal(summary.successes, (await fromTables).filter((t) => t.rounds.at(-1)!.joint).length);
  assert.equal(
    summary.rounds,
    (await fromTables).reduce((n, t) => n + t.rounds.length, 0),
  );
  assert.equal(summary.simulated, true);
  const report = await auditRun(store, 'toy', resolveToy);
  assert.deepEqual(report.discrepancies.map(formatDiscrepancy), []);
  assert.ok(report.passed);
  await store.close();
});

test('a completed run resumes as a no-op; a different plan under the same id is refused, naming the parts', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  await toyRun(path);
  const before = (await (await openStore(path, { readonly: true })).readEvents('toy')).length;
  const again = await toyRun(path);
  assert.equal(again.resumed, true);
  assert.equal(again.progress.skipped, 8);
  assert.equal(again.progress.done, 0);
  const s = await openStore(path, { readonly: true });
  assert.equal((await s.readEvents('toy')).length, before + 1, 'only a session marker was added');
  await s.close();
  await assert.rejects(toyRun(path, { protocol: { budget: 4 } }), (e: Error) => {
    assert.ok(e instanceof UserError);
    assert.match(e.message, /run 'toy' exists with a different plan/);
    assert.match(e.message, /protocol\.budget: stored 8, requested 4/);
    return true;
  });
  await assert.rejects(toyRun(path, { cases: toyCases(8, 'other') }), /case_set\.cases_sha256: stored/);
  await assert.rejects(toyRun(path, { model: { label: 'another' } }), /controller\.label: stored "fake-toy", requested "another"/);
});

test('resuming after a crash at each event boundary ends in the same store as an uninterrupted run', async () => {
  const dir = tempDir();
  const cases = toyCases(5, 'crash');
  const refPath = join(dir, 'ref.db');
  await toyRun(refPath, { cases, concurrency: 2 });
  const ref = await openStore(refPath, { readonly: true });
  const refTrajectories = await ref.loadTrajectories(['toy']);
  const refEvents = normalisedEvents(await ref.readEvents('toy'));
  assert.equal(refEvents.lostGenerations, 0);
  ref.close();

  // Crash after the 1st, 2nd, … committed append until a run gets through without reaching its crash point.
  let boundaries = 0;
  for (let k = 1; ; k++) {
    const path = join(dir, `crash-${k}.db`);
    const crashing = await openStore(path, { crashAfterAppends: k });
    const crashed = await runToyIn(crashing, { cases, concurrency: 2 }).then(
      () => false,
      (e) => {
        assert.ok(e instanceof SimulatedCrash, String(e));
        return true;
      },
    );
    crashing.close();
    if (!crashed) break;
    boundaries++;
    const store = await openStore(path);
    const resumed = await runToyIn(store, { cases, concurrency: 2 });
    assert.equal(resumed.stopped, null);
    assert.deepEqual(await store.loadTrajectories(['toy']), refTrajectories, `trajectories after crash ${k}`);
    assert.deepEqual(await store.loadTrajectories(['toy'], { from: 'events' }), refTrajectories);
    const got = normalisedEvents(await store.readEvents('toy'));
    assert.deepEqual(got.byCase, refEvents.byCase, `event payloads after crash ${k}`);
    assert.ok(got.lostGenerations <= 2, 'at most the attempts in flight were lost');
    const report = await auditRun(store, 'toy', resolveToy);
    assert.deepEqual(report.discrepancies.map(formatDiscrepancy), [], `audit after crash ${k}`);
    await store.close();
  }
  assert.ok(boundaries > 15, `enough boundaries (${boundaries})`);
});

test('provider faults leave trajectories protocol-incomplete; a resume reopens and finishes them', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  const cases = toyCases(6, 'faults');
  // Every call of the first session fails for case 2's second generation.
  const failing = await toyRun(path, {
    cases,
    concurrency: 1,
    model: {
      faults: (m) => (m.length === 3 && m[0].content.includes('item 2.') ? 5 : m.length === 1 && m[0].content.includes('item 4.') ? 1 : 0),
    },
  });
  assert.equal(failing.progress.incomplete, 1);
  let store = await openStore(path, { readonly: true });
  let ts = await store.loadTrajectories(['toy']);
  assert.equal(ts[2].status, 'incomplete');
  assert.match(ts[2].incompleteReason!, /^revision 1: provider attempts exhausted \(3 attempts\); last error: http: HTTP 503 from fake$/);
  assert.equal(ts[2].rounds.length, 1, 'failed attempts are never scored as text');
  const [summary] = await store.listRuns();
  assert.equal(summary.status, 'incomplete');
  assert.equal(summary.failedAttempts, 3 + 1);
  assert.ok((await auditRun(store, 'toy', resolveToy)).passed);
  await store.close();

  const resumed = await toyRun(path, { cases, concurrency: 1 });
  assert.equal(resumed.progress.skipped, 5);
  assert.equal(resumed.progress.done, 1);
  store = await openStore(path, { readonly: true });
  ts = await store.loadTrajectories(['toy']);
  assert.ok((await ts).every((t) => t.status === 'complete'));
  const ref = join(dir, 'ref.db');
  await toyRun(ref, { cases, concurrency: 1 });
  const refStore = await openStore(ref, { readonly: true });
  assert.deepEqual(ts, await refStore.loadTrajectories(['toy']));
  assert.ok((await store.readEvents('toy')).some((e) => e.type === 'trajectory_reopened'));
  assert.ok((await auditRun(store, 'toy', resolveToy)).passed);
});

test('runs under other history policies record and audit their own message lists', async () => {
  for (const history of ['reset', 'last:1'] as const) {
    const dir = tempDir();
    const path = join(dir, 'runs.db');
    await toyRun(path, { protocol: { history: parseHistoryWindow(history) } });
    const store = await openStore(path, { readonly: true });
    assert.equal((await store.listRuns())[0].protocol, `paper+history=${history}`);
    assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), [], history);
    await store.close();
    // The same stored run with its plan edited to full history: the audit sees the plan edit and
    // that the messages sent were not the full-history ones.
    const db = new Database(path);
    db.exec('DROP TRIGGER events_append_only_update');
    const row = db.prepare("SELECT id, payload FROM events WHERE type = 'run_planned'").get() as { id: number; payload: string };
    const payload = JSON.parse(row.payload);
    payload.plan.protocol.history = 'full';
    db.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(payload), row.id);
    db.close();
    const edited = await openStore(path, { readonly: true });
    const found = (await auditRun(edited, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy);
    edited.close();
    assert.ok(found.includes('run: plan: plan_sha256 does not match the stored plan and cases'), found.join('\n'));
    assert.ok(
      found.some((f) => /revision \d+: messages: the messages sent \(seq \d+\) are not the protocol's/.test(f)),
      found.join('\n'),
    );
  }
});

test('consecutive protocol-incomplete trajectories stop the run with a message', async () => {
  const dir = tempDir();
  const result = await toyRun(join(dir, 'runs.db'), {
    cases: toyCases(10),
    concurrency: 1,
    model: { faults: () => 9 },
    extra: { maxConsecutiveFailures: 3 },
  });
  assert.equal(result.stopped?.reason, 'provider-failures');
  assert.match(result.stopped!.message, /3 trajectories in a row ended protocol-incomplete/);
  assert.equal(result.progress.done, 3);
});

test('an interrupted run (abort) keeps a consistent store and resumes to the same result', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  const cases = toyCases(12, 'abort');
  const ac = new AbortController();
  const p = toyRun(path, { cases, concurrency: 4, model: { delayMs: 15 }, extra: { signal: ac.signal } });
  setTimeout(() => ac.abort(), 60);
  const first = await p;
  assert.equal(first.stopped?.reason, 'interrupted');
  let store = await openStore(path, { readonly: true });
  assert.equal((await store.listRuns())[0].status, 'interrupted');
  assert.ok((await auditRun(store, 'toy', resolveToy)).passed);
  await store.close();
  await toyRun(path, { cases, concurrency: 4 });
  await toyRun(join(dir, 'ref.db'), { cases, concurrency: 4 });
  store = await openStore(path, { readonly: true });
  assert.deepEqual(
    await store.loadTrajectories(['toy']),
    await (await openStore(join(dir, 'ref.db'), { readonly: true })).loadTrajectories(['toy']),
  );
});

test('the audit catches tampering: edited text, edited state, deleted event, continuation after success, edited tables', async () => {
  const dir = tempDir();
  const clean = join(dir, 'clean.db');
  await toyRun(clean, { cases: toyCases(6, 'tamper') });
  const copy = (name: string) => {
    const p = join(dir, name);
    copyFileSync(clean, p);
    const db = new Database(p);
    db.exec('DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete;');
    return { p, db };
  };
  const auditOf = async (p: string) => {
    const s = await openStore(p, { readonly: true });
    const r = await auditRun(s, 'toy', resolveToy);
    await s.close();
    return (await r).discrepancies.map(formatDiscrepancy);
  };
  const firstDraft = (db: Database.Database) =>
    db
      .prepare("SELECT id, case_index, revision, payload FROM events WHERE type = 'draft_accepted' AND case_index = 1 ORDER BY seq LIMIT 1")
      .get() as { id: number; case_index: number; revision: number; payload: string };

  // The append-only triggers refuse edits through SQL.
  const guarded = new Database(clean);
  assert.throws(() => guarded.prepare("UPDATE events SET payload = '{}' WHERE seq = 3").run(), /append-only/);
  assert.throws(() => guarded.prepare('DELETE FROM events WHERE seq = 3').run(), /append-only/);
  guarded.close();

  {
    const { p, db } = copy('text.db');
    const d = firstDraft(db);
    const payload = JSON.parse(d.payload);
    payload.text = payload.text + ' extra';
    db.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(payload), d.id);
    db.close();
    const found = await auditOf(p);
    assert.ok(
      found.some(
        (f) =>
          f ===
          `case toy-001 (#2) revision 0: events: event seq ${seqOf(p, d.id)} (draft_accepted) was modified after it was written (hash mismatch)`,
      ),
      found.join('\n'),
    );
    assert.ok(
      found.some((f) => f.startsWith('case toy-001 (#2) revision 0: state.word_count: stored')),
      found.join('\n'),
    );
    assert.ok(
      found.some((f) => f === 'case toy-001 (#2) revision 0: text: accepted text is not the stripped text of a successful attempt'),
      found.join('\n'),
    );
  }
  {
    const { p, db } = copy('state.db');
    const d = firstDraft(db);
    const payload = JSON.parse(d.payload);
    payload.state.word_count += 1;
    db.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(payload), d.id);
    db.close();
    const found = await auditOf(p);
    assert.ok(
      found.some((f) => /^case toy-001 \(#2\) revision 0: state\.word_count: stored \d+, replayed \d+$/.test(f)),
      found.join('\n'),
    );
  }
  {
    const { p, db } = copy('deleted.db');
    const d = firstDraft(db);
    const seq = (db.prepare('SELECT seq FROM events WHERE id = ?').get(d.id) as { seq: number }).seq;
    db.prepare('DELETE FROM events WHERE id = ?').run(d.id);
    db.close();
    const found = await auditOf(p);
    assert.ok(found.includes(`run: events: event seq ${seq} missing (deleted from the log)`), found.join('\n'));
    assert.ok(
      found.some((f) => f.startsWith('case toy-001 (#2)') && /revision|tables/.test(f)),
      found.join('\n'),
    );
  }
  {
    const p = join(dir, 'continued.db');
    copyFileSync(clean, p);
    const s = await openStore(p);
    const t = (await s.loadTrajectories(['toy'])).find((x) => x.rounds.at(-1)!.joint)!;
    const next = t.rounds.length;
    await s.append('toy', [
      {
        type: 'draft_accepted',
        caseIndex: t.caseIndex,
        revision: next,
        payload: {
          text: 'more words',
          state: { joint_success: false, word_count: 2, target: 1, error: 1, violation_vector: [1] },
          energy: 1,
          joint: false,
          feedback: null,
        },
      },
    ]);
    await s.close();
    const found = await auditOf(p);
    assert.ok(
      found.some((f) => f === `case ${t.caseId} (#${t.caseIndex + 1}) revision ${next}: stop rule: continuation after success`),
      found.join('\n'),
    );
  }
  {
    const { p, db } = copy('tables.db');
    db.prepare("UPDATE rounds SET text = 'forged' WHERE case_index = 3 AND revision = 0").run();
    db.close();
    const found = await auditOf(p);
    assert.ok(
      found.some((f) => f.startsWith('case toy-003 (#4): tables: derived tables disagree with the events: rounds[0].text: events')),
      found.join('\n'),
    );
    // The derived tables are rebuildable from the events.
    const s = await openStore(p);
    await s.rebuild('toy');
    assert.ok((await auditRun(s, 'toy', resolveToy)).passed);
    await s.close();
  }
  assert.deepEqual(await auditOf(clean), []);
});

function seqOf(path: string, id: number): number {
  const db = new Database(path, { readonly: true });
  const seq = (db.prepare('SELECT seq FROM events WHERE id = ?').get(id) as { seq: number }).seq;
  db.close();
  return seq;
}

test('one writer per run: a second live process is refused; a dead holder is taken over', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  await toyRun(path, { cases: toyCases(2) });
  const db = new Database(path);
  db.prepare("INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES ('toy', 1, ?, 'then')").run(
    (await import('node:os')).hostname(),
  );
  db.close();
  await assert.rejects(toyRun(path, { cases: toyCases(2) }), /run 'toy' is being written by process 1/);
  const db2 = new Database(path);
  db2.prepare("UPDATE run_locks SET pid = 999999999 WHERE run_id = 'toy'").run();
  db2.close();
  const r = await toyRun(path, { cases: toyCases(2) });
  assert.equal(r.resumed, true);
});
