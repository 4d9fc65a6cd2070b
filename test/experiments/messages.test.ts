// The first request of every history arm, crossover cell, persistence continuation and system-
// identification state, per family, byte for byte against test/fixtures/experiments/
// first-requests.json (built from the definitions without the experiment code). Each experiment
// runs through the real engine and store with a model that records what it is sent; one
// generation per trajectory (the budget ends right after it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getFamily } from '../../src/core/verify/registry.ts';
import { messagesSha256 } from '../../src/engine/loop.ts';
import { verbatimMessages } from '../../src/engine/round-policy.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import type { TrajectoryRunPlanned } from '../../src/store/events.ts';
import { parseArms } from '../../src/studies/experiments/arms.ts';
import { buildCrossover, buildHistory, buildPersist, buildSysid } from '../../src/studies/experiments/designs.ts';
import { executeExperiment, loadSourceRun } from '../../src/studies/experiments/experiment-run.ts';
import { selectStates, statesSha256 } from '../../src/studies/experiments/states.ts';
import { experimentsStudy } from '../../src/studies/experiments/study.ts';
import type { ExperimentBuild } from '../../src/studies/experiments/designs.ts';
import { requirePunkt } from '../helpers.ts';
import { tempDir } from '../tmp.ts';
import { familyCases, playbackSourceRun, recordingModel, type RecordedCall } from './helpers.ts';
import { experimentOf } from '../../src/studies/experiments/plan.ts';

const punkt = requirePunkt();
const fixture = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'experiments', 'first-requests.json'), 'utf8')) as {
  families: Record<string, { case_id: string; requests: Record<string, { messages: Array<[string, string]>; banned?: string[] }> }>;
};
const decoding = { temperature: 0, seed: null, extraBody: null };

/** Runs a build with a recording model; returns each trajectory's first request (by its first attempt's messages hash). */
async function firstRequests(
  store: Awaited<ReturnType<typeof openStore>>,
  runId: string,
  build: ExperimentBuild,
): Promise<Map<string, RecordedCall>> {
  const model = recordingModel();
  await executeExperiment({ store, runId, build, model, decoding, resolveFamily: getFamily, concurrency: 1 });
  // Full and ban send the same messages; their bans tell them apart.
  const key = (sha: string, banned: readonly string[] | undefined) => `${sha}\u001f${JSON.stringify(banned ?? null)}`;
  const byHash = new Map(model.calls.map((c) => [key(messagesSha256(c.messages), c.banned), c]));
  const out = new Map<string, RecordedCall>();
  const planned = (await store.getPlanned(runId)) as TrajectoryRunPlanned;
  const starts = await store.readEvents(runId, { types: ['attempt_started'] });
  experimentOf(planned.plan)!.trajectories.forEach((spec, i) => {
    const first = starts.find((e) => e.caseIndex === i && e.revision === spec.frozen_rounds);
    assert.ok(first && first.type === 'attempt_started', `trajectory ${i} (${spec.state_id} ${spec.arm}) made a request`);
    const call = byHash.get(key(first.payload.messages_sha256, first.payload.banned_sequences));
    assert.ok(call, `the recorded request of trajectory ${i} hashes to the stored messages_sha256`);
    out.set(`${planned.cases[i].family}|${spec.arm}|${spec.facts.command ?? ''}`, call);
  });
  const audit = await auditRun(store, runId, getFamily, { replay: (p) => experimentsStudy.replay!(p) });
  assert.deepEqual(audit.discrepancies.map(formatDiscrepancy), [], `${runId} audits clean`);
  assert.ok(!audit.notes.some((n) => /not re-derived/.test(n)), `${runId}: every request re-derived (${audit.notes.join('; ')})`);
  return out;
}

function expectRequest(
  got: RecordedCall | undefined,
  expected: { messages: Array<[string, string]>; banned?: string[] },
  what: string,
): void {
  assert.ok(got, `${what}: no request`);
  assert.deepEqual(
    got.messages.map((m) => [m.role, m.content]),
    expected.messages,
    `${what}: messages`,
  );
  assert.deepEqual(got.banned, expected.banned, `${what}: banned sequences`);
}

for (const structured of [false, true]) {
  test(
    `first requests of every arm, cell and continuation match the fixture byte for byte: ${structured ? 'structured families' : 'exact length (and sysid)'}`,
    { skip: structured ? punkt.skip : false },
    async () => {
      const dir = tempDir('revloop-exp-');
      const store = await openStore(join(dir, 'runs.db'));
      const cases = familyCases(structured).filter((c) => (structured ? c.family !== 'exact-length' : true));
      await playbackSourceRun(store, 'src', cases);
      const source = await loadSourceRun(store, 'src');
      for (const t of source.trajectories) assert.ok(!t.rounds.some((r) => r.joint), `the ${t.family} drafts all fail`);

      const hStates = selectStates(source.planned, 'src', source.trajectories, { design: 'history' });
      assert.deepEqual(
        hStates.map((s) => [s.revision, s.origin_revision]),
        cases.map(() => [3, 1]),
      );
      const history = buildHistory(
        source,
        { states: hStates, sha256: statesSha256(hStates), path: null },
        { arms: parseArms('full,reset,last:1,last:2,abstract,ban'), budget: 4, resolveFamily: getFamily },
      );
      const h = await firstRequests(store, 'h', history);
      // The audit re-derives with the run's own arms: with the verbatim policy instead, every
      // reduced arm's request and the ban arm's bans are reported.
      const wrong = await auditRun(store, 'h', getFamily, { replay: () => ({ messagePolicy: verbatimMessages }) });
      const flagged = new Set(wrong.discrepancies.map((d) => `${d.field}:${d.caseId!.replace(/^.*__r\d+__/, '')}`));
      for (const arm of ['reset', 'last1', 'last2', 'abstract']) assert.ok(flagged.has(`messages:${arm}`), `audit flags ${arm}`);
      assert.ok(flagged.has('bans:ban'), 'audit flags the bans');
      assert.ok(!flagged.has('messages:full') && !flagged.has('bans:full'), 'full is the verbatim conversation');
      const xStates = selectStates(source.planned, 'src', source.trajectories, { design: 'crossover' });
      const x = await firstRequests(
        store,
        'x',
        buildCrossover(
          source,
          { states: xStates, sha256: statesSha256(xStates), path: null },
          { controller: 'recorder', budget: 1, resolveFamily: getFamily },
        ),
      );
      const pStates = selectStates(source.planned, 'src', source.trajectories, { design: 'persist' });
      assert.equal(pStates.length, cases.length, 'every trajectory is a budget-end failure');
      const p = await firstRequests(
        store,
        'p',
        buildPersist(
          source,
          { states: pStates, sha256: statesSha256(pStates), path: null },
          { budget: 9, contextWindow: null, resolveFamily: getFamily },
        ),
      );
      for (const c of cases) {
        const want = fixture.families[c.family];
        assert.equal(want.case_id, c.id);
        for (const arm of ['full', 'reset', 'last:1', 'last:2', 'abstract', 'ban'])
          expectRequest(h.get(`${c.family}|${arm}|`), want.requests[`history:${arm}`], `${c.family} history ${arm}`);
        expectRequest(x.get(`${c.family}|crossover|`), want.requests.crossover, `${c.family} crossover`);
        expectRequest(p.get(`${c.family}|persist|`), want.requests.persist, `${c.family} persist`);
      }
      if (!structured) {
        const sysid = buildSysid(
          { cases, path: 'cases.jsonl', fileSha256: 'x', manifest: null, format: 'native' },
          { errors: [-5, 5], draftField: 'reference', split: 'both', resolveFamily: getFamily },
        );
        const s = await firstRequests(store, 's', sysid);
        for (const e of [-5, 5])
          expectRequest(s.get(`exact-length|sysid|${-e}`), fixture.families['exact-length'].requests[`sysid:e${e}`], `sysid e=${e}`);
      }
      await store.close();
    },
  );
}
