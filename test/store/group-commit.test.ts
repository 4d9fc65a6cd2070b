// The store's group commit (appendSoon) and the write-path shortcuts behind it: groups queued in one
// turn of the event loop commit together, atomically and in call order; synchronous appends keep
// that order; fault injection still dies at its n-th group; a stale cached chain head recovers; and
// a run never starts a generation before the round that announces it is committed. The hashes that
// were rewritten for speed are byte-for-byte the old definitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { messagesSha256 } from '../../src/engine/loop.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import type { NewEvent, RunPlannedPayload } from '../../src/store/events.ts';
import { openStore, type AppendOptions, type RunStore } from '../../src/store/store.ts';
import { openCrashingStore, SimulatedCrash } from '../../src/test/index.ts';
import { eventHash, verifyChain } from '../../src/store/chain.ts';
import type { ChatMessage, GenerateResult } from '../../src/models/types.ts';
import { fakeModel, resolveToy, toyCases } from '../loop/fakes.ts';
import { runToyIn, tempDir } from './toy-run.ts';
import { eachBackend } from './backends.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A planned toy run with `n` cases, through a real (tiny) run so the plan is genuine. */
async function plannedStore(path: string, n = 3): Promise<{ store: RunStore; path: string; planned: RunPlannedPayload }> {
  const store = await openStore(path);
  await runToyIn(store, { runId: 'seed', cases: toyCases(n, 'gc') });
  const planned = (await store.getPlanned('seed'))!;
  await store.createRun('r', planned);
  return { store, path, planned };
}

const started = (caseIndex: number, revision: number): NewEvent => ({
  type: 'attempt_started',
  caseIndex,
  revision,
  payload: { messages_sha256: sha(`${caseIndex}:${revision}`), message_count: 1 + 2 * revision, max_tokens: 16 },
});

eachBackend('groups queued in one turn commit together, in call order, and only then resolve', async (st) => {
  const { store, path } = await plannedStore(st.location);
  const reader = await openStore(path, { readonly: true });
  const before = (await reader.readEvents('r')).length;
  const a = store.appendSoon('r', [started(0, 0)]);
  const b = store.appendSoon('r', [started(1, 0), started(1, 1)]);
  const c = store.appendSoon('r', [started(2, 0)]);
  // (SQLite reads synchronously, before the turn ends; a PostgreSQL read may race the commit.)
  if (st.backend === 'sqlite') assert.equal((await reader.readEvents('r')).length, before, 'nothing is visible before the commit');
  await Promise.all([a, b, c]);
  const events = (await reader.readEvents('r')).slice(before);
  assert.deepEqual(
    events.map((e) => [e.caseIndex, e.revision]),
    [
      [0, 0],
      [1, 0],
      [1, 1],
      [2, 0],
    ],
  );
  assert.deepEqual(
    events.map((e) => e.seq),
    [before + 1, before + 2, before + 3, before + 4],
    'the chain has no gaps',
  );
  await reader.close();
  await store.close();
});

eachBackend('a failing group fails its whole batch: the batch is one transaction', async (st) => {
  const { store, path } = await plannedStore(st.location);
  const before = (await store.readEvents('r')).length;
  // The second group belongs to a run that has no plan: appending it throws inside the transaction.
  const ok = store.appendSoon('r', [started(0, 0)]);
  const bad = store.appendSoon('no-such-run', [started(0, 0)]);
  await assert.rejects(ok, /first event must be run_planned/);
  await assert.rejects(bad, /first event must be run_planned/);
  assert.equal((await store.readEvents('r')).length, before, 'the valid group was rolled back with the batch');
  // The store carries on.
  await store.appendSoon('r', [started(0, 0)]);
  assert.equal((await store.readEvents('r')).length, before + 1);
  await store.close();
  const s = await openStore(path, { readonly: true });
  assert.equal((await s.readEvents('r')).length, before + 1);
  await s.close();
});

eachBackend('a group the database refuses (a key written twice) fails its batch, and the store carries on', async (st) => {
  const { store, path } = await plannedStore(st.location);
  const completed: NewEvent = { type: 'trajectory_completed', caseIndex: 0, payload: { stop: 'budget', rounds: 0, final_joint: false } };
  await store.append('r', [completed]);
  const before = await store.rawEventRows('r');
  // Refused by the unique key inside the commit (on PostgreSQL, with COMMIT already written behind it).
  const ok = store.appendSoon('r', [started(1, 0)]);
  const twice = store.appendSoon('r', [completed]);
  await assert.rejects(twice, /written twice under the same key/);
  await assert.rejects(ok, /written twice under the same key/);
  assert.deepEqual(await store.rawEventRows('r'), before, 'nothing of the batch was stored');
  // The same connection pool carries on, and the chain continues where it was.
  await store.append('r', [started(1, 0)]);
  await store.appendSoon('r', [started(2, 0)]);
  await store.close();
  const s = await openStore(path, { readonly: true });
  const rows = await s.rawEventRows('r');
  assert.deepEqual(
    rows.slice(before.length).map((r) => [r.seq, r.case_index]),
    [
      [before.length + 1, 1],
      [before.length + 2, 2],
    ],
  );
  assert.deepEqual(verifyChain(rows).problems, []);
  await s.close();
});

eachBackend('a synchronous append commits the queued groups first; close commits what is still queued', async (st) => {
  const { store, path } = await plannedStore(st.location);
  const before = (await store.readEvents('r')).length;
  const queued = store.appendSoon('r', [started(0, 0)]);
  await store.append('r', [started(1, 0)]);
  await queued;
  assert.deepEqual(
    (await store.readEvents('r')).slice(before).map((e) => e.caseIndex),
    [0, 1],
  );
  const last = store.appendSoon('r', [started(2, 0)]);
  await store.close();
  await last;
  const s = await openStore(path, { readonly: true });
  assert.deepEqual(
    (await s.readEvents('r')).slice(before).map((e) => e.caseIndex),
    [0, 1, 2],
  );
  await s.close();
});

eachBackend('fault injection: the store dies right after its n-th committed group, whatever the batching', async (st) => {
  const { store: setup, path } = await plannedStore(st.location);
  const base = (await setup.readEvents('r')).length;
  await setup.close();
  const crashing = await openCrashingStore(path, 2);
  const groups = [0, 1, 2, 3].map((i) => crashing.appendSoon('r', [started(i, 0)]));
  const outcomes = await Promise.allSettled(groups);
  assert.ok(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof SimulatedCrash));
  await assert.rejects(crashing.append('r', [started(0, 1)]), SimulatedCrash);
  await crashing.close();
  const s = await openStore(path, { readonly: true });
  assert.deepEqual(
    (await s.readEvents('r')).slice(base).map((e) => e.caseIndex),
    [0, 1],
    'exactly two groups were committed',
  );
  await s.close();
});

eachBackend(
  'a cached chain head made stale by another writer is re-read; the chain stays valid',
  async (st) => {
    const { store: a, path } = await plannedStore(st.location);
    const b = await openStore(path);
    a.append('r', [started(0, 0)]);
    b.append('r', [started(1, 0)]); // a's cached head is now stale
    a.append('r', [started(2, 0)]);
    await a.appendSoon('r', [started(0, 1)]);
    b.append('r', [started(1, 1)]);
    a.close();
    b.close();
    const s = await openStore(path, { readonly: true });
    const rows = await s.rawEventRows('r');
    (await rows).forEach((r, i) => {
      assert.equal(r.seq, i + 1);
      assert.equal(r.prev_hash, i ? rows[i - 1].hash : '0'.repeat(64));
      assert.equal(eventHash(r.prev_hash, r.run_id, r.seq, r.type, r.case_index, r.revision, r.at, r.payload), r.hash);
    });
    assert.deepEqual(
      (await rows).slice(-5).map((r) => [r.case_index, r.revision]),
      [
        [0, 0],
        [1, 0],
        [2, 0],
        [0, 1],
        [1, 1],
      ],
    );
    await s.close();
  },
  'sqlite',
);

eachBackend('a run starts no generation before the round announcing it is committed', async (st) => {
  const path = st.location;
  const store = await openStore(path);
  const reader = await openStore(path, { readonly: true });
  const inner = fakeModel({ delayMs: 2 });
  const violations: string[] = [];
  let checked = 0;
  const model = {
    ...inner,
    async generate(messages: ChatMessage[], options: Parameters<typeof inner.generate>[1]): Promise<GenerateResult> {
      // Every generation's attempt_started (the hash of exactly these messages) is already durable.
      const want = messagesSha256(messages);
      const found = (await reader.readEvents('toy')).some((e) => e.type === 'attempt_started' && e.payload.messages_sha256 === want);
      if (!found) violations.push(`generation with ${messages.length} messages started before its attempt_started was committed`);
      checked++;
      return inner.generate(messages, options);
    },
  };
  const result = await runToyIn(store, { cases: toyCases(12, 'durable'), concurrency: 6, extra: { model } });
  assert.equal(result.progress.done, 12);
  assert.ok(checked > 12, `generations checked: ${checked}`);
  assert.deepEqual(violations, []);
  assert.deepEqual((await auditRun(reader, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
  await reader.close();
  await store.close();
});

test("a slot's next trajectory starts in the group commit of the previous one's last round, and the run waits for that commit", async () => {
  const store = await openStore(join(tempDir(), 'runs.db'));
  // The groups of each group commit: appendSoon calls made before the store's flush (a setImmediate
  // the first call of a turn schedules) share its transaction; this wrapper's own setImmediate,
  // scheduled just before the store's, marks where one commit ends.
  const commits: string[][] = [];
  let open: string[] | null = null;
  const spied = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== 'appendSoon') return typeof value === 'function' ? value.bind(target) : value;
      return (runId: string, events: NewEvent[], options?: AppendOptions) => {
        if (!open) {
          const batch: string[] = (open = []);
          commits.push(batch);
          setImmediate(() => {
            if (open === batch) open = null;
          });
        }
        open.push(events.map((e) => `${e.caseIndex}:${e.type}`).join(' '));
        return store.appendSoon(runId, events, options);
      };
    },
  });
  const result = await runToyIn(spied, { cases: toyCases(4, 'boundary'), concurrency: 1 });
  assert.equal(result.progress.done, 4);
  // The trajectories run one after another (one slot): each one's last round and the next one's
  // first start are one commit.
  for (let k = 0; k < 3; k++) {
    const boundary = commits.filter((c) => c.some((g) => g.includes(`${k}:trajectory_completed`)));
    assert.equal(boundary.length, 1);
    assert.deepEqual(boundary[0].at(-1), `${k + 1}:attempt_started`, `case ${k}'s last commit: ${JSON.stringify(boundary[0])}`);
  }
  // Every round reached the store and the progress counted it; the audit holds.
  const trajectories = await store.loadTrajectories(['toy']);
  assert.equal(trajectories.filter((t) => t.status === 'complete').length, 4);
  assert.equal(
    result.progress.rounds,
    trajectories.reduce((n, t) => n + t.rounds.length, 0),
  );
  assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
  await store.close();
});

test("a last round's failed commit fails the run, though its slot has moved on", async () => {
  const store = await openStore(join(tempDir(), 'runs.db'));
  // The commit of case 0's last round fails (nothing of it is stored); every other write goes through.
  const failing = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== 'appendSoon') return typeof value === 'function' ? value.bind(target) : value;
      return (runId: string, events: NewEvent[], options?: AppendOptions) =>
        events.some((e) => e.caseIndex === 0 && e.type === 'trajectory_completed')
          ? Promise.reject(new Error('disk full'))
          : store.appendSoon(runId, events, options);
    },
  });
  await assert.rejects(runToyIn(failing, { cases: toyCases(3, 'fail'), concurrency: 1 }), /disk full/);
  const [first, second] = await store.loadTrajectories(['toy'], { cases: [0, 1] });
  assert.equal(first.status, 'pending', 'the failed round is not on record');
  // The slot had taken case 1 before the failure was known (its first start is on record, an attempt
  // lost in flight as after a kill), and the run stopped there: case 2 never started.
  const starts = (await store.readEvents('toy')).filter((e) => e.type === 'attempt_started').map((e) => e.caseIndex);
  assert.ok(starts.includes(1), `attempt starts by case: ${JSON.stringify(starts)}`);
  assert.ok(!starts.includes(2));
  assert.equal(second.status, 'pending');
  await store.close();
});

test('the rewritten hashes are the old definitions byte for byte', () => {
  const message = fc.record({
    role: fc.constantFrom<ChatMessage['role']>('user', 'assistant', 'system'),
    content: fc.string({ unit: 'binary' }),
  });
  fc.assert(
    fc.property(fc.array(message, { maxLength: 10 }), (messages) => {
      assert.equal(messagesSha256(messages), sha(JSON.stringify(messages.map((m) => [m.role, m.content]))));
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(
      fc.tuple(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }),
        fc.string(),
        fc.nat(),
        fc.string(),
        fc.option(fc.nat()),
        fc.option(fc.nat()),
        fc.string(),
        fc.string({ unit: 'binary' }),
      ),
      ([prev, runId, seq, type, caseIndex, revision, at, payload]) => {
        const old = sha([prev, runId, seq, type, caseIndex ?? '', revision ?? '', at, payload].join('\n'));
        assert.equal(eventHash(prev, runId, seq, type, caseIndex, revision, at, payload), old);
      },
    ),
    { numRuns: 300 },
  );
  // A payload above eventHash's large-payload threshold (a run's plan) is encoded another way: the
  // same bytes, lone surrogates included (both write U+FFFD).
  const large = JSON.stringify({ cases: Array.from({ length: 3000 }, (_, i) => ({ id: i, text: `“Ünïcode” — ${i} 😀 \ud800 x` })) });
  assert.ok(large.length > 1 << 16);
  assert.equal(
    eventHash('0'.repeat(64), 'r', 1, 'run_planned', null, null, 'at', large),
    sha(['0'.repeat(64), 'r', 1, 'run_planned', '', '', 'at', large].join('\n')),
  );
});
