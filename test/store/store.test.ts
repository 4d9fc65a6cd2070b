// The store suite, run against every backend (SQLite always; PostgreSQL when REVLOOP_TEST_PG is
// set, see backends.ts): runs as events, resume, crash at every commit boundary, provider faults,
// history policies, interruption, and tamper detection by the audit.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHistoryWindow } from '../../src/remedy/history-window.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import { openCrashingStore, SimulatedCrash } from '../../src/test/index.ts';
import { UserError } from '../../src/core/errors.ts';
import { resolveToy, toyCases } from '../loop/fakes.ts';
import { normalisedEvents, runToyIn, tempDir, toyRun } from './toy-run.ts';
import { eachBackend, rawDb } from './backends.ts';

eachBackend('a run is stored as events; trajectories reduce identically from tables and events', async (s) => {
  const path = s.location;
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

eachBackend('a completed run resumes as a no-op; a different plan under the same id is refused, naming the parts', async (st) => {
  const path = st.location;
  await toyRun(path);
  const r0 = await openStore(path, { readonly: true });
  const before = (await r0.readEvents('toy')).length;
  await r0.close();
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

eachBackend("fault injection is revloop/test's: openStore ignores crashAfterAppends, openCrashingStore honours it", async (st) => {
  const cases = toyCases(2, 'hook');
  // Not an option of StoreOptions any more; a JavaScript caller passing it anyway gets an ordinary store.
  const plain = await openStore(st.another(), { crashAfterAppends: 0 } as never);
  try {
    assert.equal((await runToyIn(plain, { cases, concurrency: 1 })).progress.done, 2);
  } finally {
    await plain.close();
  }
  const crashing = await openCrashingStore(st.another(), 0);
  try {
    await assert.rejects(runToyIn(crashing, { cases, concurrency: 1 }), SimulatedCrash);
  } finally {
    await crashing.close().catch(() => undefined);
  }
  assert.throws(() => openCrashingStore(st.another(), -1), /afterAppends must be a whole number/);
});

eachBackend('resuming after a crash at each event boundary ends in the same store as an uninterrupted run', async (st) => {
  const cases = toyCases(5, 'crash');
  const refPath = st.location;
  await toyRun(refPath, { cases, concurrency: 2 });
  const ref = await openStore(refPath, { readonly: true });
  const refTrajectories = await ref.loadTrajectories(['toy']);
  const refEvents = normalisedEvents(await ref.readEvents('toy'));
  assert.equal(refEvents.lostGenerations, 0);
  await ref.close();

  // Crash after the 1st, 2nd, … committed append until a run gets through without reaching its crash point.
  let boundaries = 0;
  for (let k = 1; ; k++) {
    const path = st.another();
    const crashing = await openCrashingStore(path, k);
    const crashed = await runToyIn(crashing, { cases, concurrency: 2 }).then(
      () => false,
      (e) => {
        assert.ok(e instanceof SimulatedCrash, String(e));
        return true;
      },
    );
    await crashing.close();
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

eachBackend('provider faults leave trajectories protocol-incomplete; a resume reopens and finishes them', async (st) => {
  const path = st.location;
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
  const ref = st.another();
  await toyRun(ref, { cases, concurrency: 1 });
  const refStore = await openStore(ref, { readonly: true });
  assert.deepEqual(ts, await refStore.loadTrajectories(['toy']));
  assert.equal((await store.readEvents('toy')).filter((e) => e.type === 'trajectory_reopened').length, 1);
  assert.ok((await auditRun(store, 'toy', resolveToy)).passed);
  await store.close();
  await refStore.close();
});

eachBackend('runs under other history policies record and audit their own message lists', async (st) => {
  for (const history of ['reset', 'last:1'] as const) {
    const path = st.another();
    await toyRun(path, { protocol: { history: parseHistoryWindow(history) } });
    const store = await openStore(path, { readonly: true });
    assert.equal((await store.listRuns())[0].protocol, `paper+history=${history}`);
    assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), [], history);
    await store.close();
    // The same stored run with its plan edited to full history: the audit sees the plan edit and
    // that the messages sent were not the full-history ones.
    const db = await rawDb(path);
    await db.liftGuard();
    const [row] = await db.all<{ id: number; payload: string }>("SELECT id, payload FROM events WHERE type = 'run_planned'");
    const payload = JSON.parse(row.payload);
    payload.plan.protocol.history = 'full';
    await db.run('UPDATE events SET payload = ? WHERE id = ?', JSON.stringify(payload), row.id);
    await db.close();
    const edited = await openStore(path, { readonly: true });
    const found = (await auditRun(edited, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy);
    await edited.close();
    assert.ok(found.includes('run: plan: plan_sha256 does not match the stored plan and cases'), found.join('\n'));
    assert.ok(
      found.some((f) => /revision \d+: messages: the messages sent \(seq \d+\) are not the protocol's/.test(f)),
      found.join('\n'),
    );
  }
});

eachBackend('consecutive protocol-incomplete trajectories stop the run with a message', async (st) => {
  const result = await toyRun(st.location, {
    cases: toyCases(10),
    concurrency: 1,
    model: { faults: () => 9 },
    extra: { maxConsecutiveFailures: 3 },
  });
  assert.equal(result.stopped?.reason, 'provider-failures');
  assert.match(result.stopped!.message, /3 trajectories in a row ended protocol-incomplete/);
  assert.equal(result.progress.done, 3);
});

eachBackend('an interrupted run (abort) keeps a consistent store and resumes to the same result', async (st) => {
  const path = st.location;
  const cases = toyCases(12, 'abort');
  const ac = new AbortController();
  // Stopped once a round is stored (before that, the run would be merely 'planned').
  const first = await toyRun(path, {
    cases,
    concurrency: 4,
    model: { delayMs: 15 },
    extra: { signal: ac.signal, onProgress: (pr) => pr.rounds > 0 && ac.abort() },
  });
  assert.equal(first.stopped?.reason, 'interrupted');
  let store = await openStore(path, { readonly: true });
  assert.equal((await store.listRuns())[0].status, 'interrupted');
  assert.ok((await auditRun(store, 'toy', resolveToy)).passed);
  await store.close();
  await toyRun(path, { cases, concurrency: 4 });
  const refPath = st.another();
  await toyRun(refPath, { cases, concurrency: 4 });
  store = await openStore(path, { readonly: true });
  const ref = await openStore(refPath, { readonly: true });
  assert.deepEqual(await store.loadTrajectories(['toy']), await ref.loadTrajectories(['toy']));
  await store.close();
  await ref.close();
});

eachBackend(
  'the audit catches tampering: edited text, edited state, deleted event, continuation after success, edited tables',
  async (st) => {
    const cases = toyCases(6, 'tamper');
    const clean = st.location;
    await toyRun(clean, { cases });
    /** A store with the same run (a file copy, or the same deterministic run in a new schema). */
    const fresh = async (name: string): Promise<string> => {
      if (st.backend === 'sqlite') {
        const p = join(tempDir(), name);
        copyFileSync(clean, p);
        return p;
      }
      const p = st.another();
      await toyRun(p, { cases });
      return p;
    };
    const edited = async (name: string) => {
      const p = await fresh(name);
      const db = await rawDb(p);
      await db.liftGuard();
      return { p, db };
    };
    const auditOf = async (p: string) => {
      const s = await openStore(p, { readonly: true });
      const r = await auditRun(s, 'toy', resolveToy);
      await s.close();
      return r.discrepancies.map(formatDiscrepancy);
    };
    const firstDraft = async (db: Awaited<ReturnType<typeof rawDb>>) =>
      (
        await db.all<{ id: number; seq: number; case_index: number; revision: number; payload: string }>(
          "SELECT id, seq, case_index, revision, payload FROM events WHERE type = 'draft_accepted' AND case_index = 1 ORDER BY seq LIMIT 1",
        )
      )[0];

    // The append-only guard refuses edits through SQL.
    const guarded = await rawDb(clean);
    await assert.rejects(guarded.run("UPDATE events SET payload = '{}' WHERE seq = 3"), /append-only/);
    await assert.rejects(guarded.run('DELETE FROM events WHERE seq = 3'), /append-only/);
    await guarded.close();

    {
      const { p, db } = await edited('text.db');
      const d = await firstDraft(db);
      const payload = JSON.parse(d.payload);
      payload.text = payload.text + ' extra';
      await db.run('UPDATE events SET payload = ? WHERE id = ?', JSON.stringify(payload), d.id);
      await db.close();
      const found = await auditOf(p);
      assert.ok(
        found.some(
          (f) =>
            f ===
            `case toy-001 (#2) revision 0: events: event seq ${d.seq} (draft_accepted) was modified after it was written (hash mismatch)`,
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
      const { p, db } = await edited('state.db');
      const d = await firstDraft(db);
      const payload = JSON.parse(d.payload);
      payload.state.word_count += 1;
      await db.run('UPDATE events SET payload = ? WHERE id = ?', JSON.stringify(payload), d.id);
      await db.close();
      const found = await auditOf(p);
      assert.ok(
        found.some((f) => /^case toy-001 \(#2\) revision 0: state\.word_count: stored \d+, replayed \d+$/.test(f)),
        found.join('\n'),
      );
    }
    {
      const { p, db } = await edited('deleted.db');
      const d = await firstDraft(db);
      await db.run('DELETE FROM events WHERE id = ?', d.id);
      await db.close();
      const found = await auditOf(p);
      assert.ok(found.includes(`run: events: event seq ${d.seq} missing (deleted from the log)`), found.join('\n'));
      assert.ok(
        found.some((f) => f.startsWith('case toy-001 (#2)') && /revision|tables/.test(f)),
        found.join('\n'),
      );
    }
    {
      const p = await fresh('continued.db');
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
      const { p, db } = await edited('tables.db');
      await db.run("UPDATE rounds SET text = 'forged' WHERE case_index = 3 AND revision = 0");
      await db.close();
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
  },
);

eachBackend(
  'one writer per run: a second live process is refused; a dead holder is taken over',
  async (st) => {
    const path = st.location;
    await toyRun(path, { cases: toyCases(2) });
    const db = await rawDb(path);
    await db.run(
      "INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES ('toy', 1, ?, 'then')",
      (await import('node:os')).hostname(),
    );
    await assert.rejects(toyRun(path, { cases: toyCases(2) }), /run 'toy' is being written by process 1/);
    await db.run("UPDATE run_locks SET pid = 999999999 WHERE run_id = 'toy'");
    await db.close();
    const r = await toyRun(path, { cases: toyCases(2) });
    assert.equal(r.resumed, true);
  },
  'sqlite',
);

eachBackend('eventsAfter pages through every run in global id order', async (st) => {
  await toyRun(st.location, { runId: 'a', cases: toyCases(2, 'ea') });
  await toyRun(st.location, { runId: 'b', cases: toyCases(3, 'eb') });
  const s = await openStore(st.location, { readonly: true });
  const all = [...(await s.readEvents('a')), ...(await s.readEvents('b'))].sort((x, y) => x.id - y.id);
  const paged: number[] = [];
  let cursor = 0;
  for (;;) {
    const page = await s.eventsAfter(cursor, 5);
    if (!page.length) break;
    assert.ok(page.length <= 5);
    paged.push(...page.map((e) => e.id));
    cursor = page[page.length - 1].id;
  }
  assert.deepEqual(
    paged,
    all.map((e) => e.id),
  );
  assert.deepEqual(await s.eventsAfter(all[3].id, 2), all.slice(4, 6));
  await s.close();
});
