// The store keeps any study's runs: two toy studies defined only in this file register their run
// kinds through the public API (`revloop/store`'s registerRunKind) and their runs are created,
// written, reduced by their own reducer, audited and read back (also after a copy to another
// store) with no file under src/store naming them. One keeps keyed records under a plan of version
// 2; the other is a trajectory study whose runs continue frozen prefixes through the engine, with
// its own plan block, which the audit checks through the kind's `frozenPrefix`. A kind nobody
// registered, a plan its study rejects and a plan of another version are refused before anything
// is written.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import type { AcceptedRound } from '../../src/engine/loop.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import {
  copyRuns,
  openStore,
  planFormat,
  registerRunKind,
  registeredRunKinds,
  type RunKind,
  type RunPlan,
  type RunPlannedPayload,
  type StoredEvent,
  type StudyPlan,
} from '../../src/store/index.ts';
import { canonicalJson, sha256Hex } from '../../src/core/util/hash.ts';
import { frozenTextsSha256 } from '../../src/store/plan.ts';
import { appendRecords, finishStudySession, openStudyRun, readRecords, startStudySession } from '../../src/store/study-runs.ts';
import { fakeModel, resolveToy, toyCases, toyFamily } from '../loop/fakes.ts';
import { STUDIES } from '../../src/studies/registry.ts';
import { tempDir } from '../tmp.ts';
import { eachBackend, rawDb } from './backends.ts';

// ---- a records study: dice rolls, tallied by its reducer ------------------------------------------

interface DiceTally {
  rolls: number;
  faces: Record<string, number>;
  /** Rolls outside 1 … sides (the audit reports them). */
  impossible: string[];
}

const DICE: RunKind<StudyPlan, DiceTally> = {
  kind: 'toy:dice',
  study: 'toy',
  planVersion: 2,
  validatePlan({ plan }) {
    const sides = (plan as StudyPlan).settings?.sides;
    return Number.isInteger(sides) && (sides as number) >= 2
      ? []
      : [`settings.sides: ${JSON.stringify(sides)}, not a whole number of at least 2`];
  },
  reduce(events: readonly StoredEvent[], planned) {
    const sides = planned.plan.settings.sides as number;
    const tally: DiceTally = { rolls: 0, faces: {}, impossible: [] };
    for (const e of events) {
      if (e.type !== 'record' || e.payload.kind !== 'roll') continue;
      const face = (e.payload.data as { face: number }).face;
      tally.rolls++;
      tally.faces[face] = (tally.faces[face] ?? 0) + 1;
      if (!Number.isInteger(face) || face < 1 || face > sides) tally.impossible.push(e.payload.key);
    }
    return tally;
  },
  audit: (tally) => tally.impossible.map((key) => `roll ${key}: not a face of the die`),
};

// ---- a trajectory study: continuations of a frozen first draft ------------------------------------

interface ContinuePlan extends RunPlan {
  continuation: { frozen: Array<{ rounds: number; sha256: string }> };
}

const CONTINUE: RunKind<ContinuePlan> = {
  kind: 'toy:continue',
  study: 'toy',
  planVersion: 1,
  validatePlan: ({ plan, cases }) =>
    plan.continuation?.frozen?.length === cases.length ? [] : ['continuation.frozen: one entry per case is required'],
  frozenPrefix: ({ plan }, i) => {
    const f = plan.continuation.frozen[i];
    return f ? { rounds: f.rounds, textsSha256: f.sha256 } : null;
  },
};

registerRunKind(DICE, CONTINUE);

const controller = { label: 'toy-model', spec: 'toy:model', simulated: true };

eachBackend('a records study registered outside src/store: created, written, reduced, audited, listed and copied', async (st) => {
  assert.ok(registeredRunKinds().includes('toy:dice'));
  const store = await openStore(st.location);
  try {
    assert.deepEqual(await openStudyRun(store, { runId: 'd1', kind: 'toy:dice', controller, settings: { sides: 6 } }), { created: true });
    const session = await startStudySession(store, 'd1', { kind: 'toy:dice', options: {}, pending: 5 });
    const faces = [3, 6, 3, 1, 5];
    await appendRecords(
      store,
      'd1',
      'roll',
      session,
      faces.map((face, i) => ({ key: `r${i}`, data: { face } })),
    );
    // A record is stored once, however often it is written.
    assert.equal(await appendRecords(store, 'd1', 'roll', session, [{ key: 'r0', data: { face: 2 } }]), 0);
    await finishStudySession(store, 'd1', { session, status: 'complete', seconds: 0, counters: { rolls: 5 } });

    // The plan carries the version its study registered.
    const planned = (await store.getPlanned('d1'))!;
    assert.equal(planned.plan.format, 'revloop.plan/2');
    // The store's reduction is the study's own.
    const reduced = (await store.reduce('d1'))!;
    assert.deepEqual(reduced.results, { rolls: 5, faces: { 1: 1, 3: 2, 5: 1, 6: 1 }, impossible: [] });
    assert.deepEqual(reduced.trajectories, []);
    // Listed like any run.
    const [summary] = await store.listRuns(['d1']);
    assert.deepEqual(
      [summary.kind, summary.controller, summary.simulated, summary.cases, summary.status],
      ['toy:dice', 'toy-model', true, 0, 'complete'],
    );
    assert.deepEqual(
      (await readRecords<{ face: number }>(store, 'd1', 'roll')).map((r) => r.data.face),
      faces,
    );
    const report = await auditRun(store, 'd1', resolveToy);
    assert.deepEqual(report.discrepancies.map(formatDiscrepancy), []);
    assert.ok(
      report.notes.some((n) => /a toy:dice run: its event chain and plan were checked/.test(n)),
      report.notes.join('\n'),
    );

    // A roll the die cannot show: the study's audit names it.
    await appendRecords(store, 'd1', 'roll', session, [{ key: 'r9', data: { face: 9 } }]);
    assert.deepEqual((await auditRun(store, 'd1', resolveToy)).discrepancies.map(formatDiscrepancy), [
      'run: results: roll r9: not a face of the die',
    ]);

    // Copied to another store, it reads back the same.
    const other = await openStore(st.another());
    try {
      await copyRuns(store, other, { runIds: ['d1'] });
      assert.deepEqual((await other.reduce('d1'))!.results, (await store.reduce('d1'))!.results);
    } finally {
      await other.close();
    }
  } finally {
    await store.close();
  }
});

eachBackend('a kind nobody registered, a plan its study rejects and a plan of another version are refused, nothing written', async (st) => {
  const store = await openStore(st.location);
  try {
    const planned = (kind: string, settings: Record<string, unknown>, format = planFormat(2)): RunPlannedPayload => {
      const plan: StudyPlan = { format, kind, controller, settings };
      return { plan, cases: [], per_case: null, plan_sha256: sha256Hex(canonicalJson({ plan, cases: [], per_case: null })) };
    };
    await assert.rejects(
      store.createRun('x', planned('toy:coin', {})),
      /run 'x': no study registered run kind 'toy:coin' \(registered: .*toy:dice/,
    );
    await assert.rejects(
      store.createRun('x', planned('toy:dice', { sides: 1 })),
      /the toy:dice plan is not one toy can run:\n {2}settings\.sides: 1/,
    );
    await assert.rejects(
      store.createRun('x', planned('toy:dice', { sides: 6 }, 'revloop.plan/1')),
      /format: 'revloop\.plan\/1', but toy writes and reads 'revloop\.plan\/2' plans of kind 'toy:dice'/,
    );
    assert.deepEqual(await store.runIds(), []);
  } finally {
    await store.close();
  }
});

eachBackend('a trajectory study registered outside src/store: its frozen prefixes are written with the plan and audited', async (st) => {
  const cases = toyCases(3, 'continue');
  // Each case's frozen first draft: one word too many, verified by the family.
  const frozen: AcceptedRound[][] = cases.map((c) => {
    const text = Array.from({ length: (c.target ?? 0) + 1 }, (_, i) => `f${i}`).join(' ');
    const state = toyFamily.verify(text, c);
    return [
      { revision: 0, text, state, energy: toyFamily.energy(state), joint: false, feedback: toyFamily.feedback(state, c, 'baseline') },
    ];
  });
  const block = { frozen: frozen.map((rounds) => ({ rounds: rounds.length, sha256: frozenTextsSha256(rounds.map((r) => r.text)) })) };
  const store = await openStore(st.location);
  try {
    await executeRun({
      store,
      runId: 'c1',
      cases,
      caseSet: { format: 'toy', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
      model: fakeModel(),
      protocol: { ...PAPER_PROTOCOL, budget: 3 },
      resolveFamily: resolveToy,
      kind: 'toy:continue',
      studyPlan: { continuation: block },
      frozenRounds: (i) => frozen[i],
      concurrency: 1,
    });
    const planned = (await store.getPlanned('c1')) as RunPlannedPayload<ContinuePlan>;
    assert.equal(planned.plan.kind, 'toy:continue');
    assert.deepEqual(planned.plan.continuation, block);
    const ts = await store.loadTrajectories(['c1']);
    assert.deepEqual(
      ts.map((t) => t.rounds[0].text),
      frozen.map((r) => r[0].text),
    );
    assert.ok(ts.every((t) => t.status === 'complete'));
    const report = await auditRun(store, 'c1', resolveToy, { replay: () => null });
    assert.deepEqual(report.discrepancies.map(formatDiscrepancy), []);
    // A study key that is one of the engine's is refused.
    await assert.rejects(
      executeRun({
        store,
        runId: 'c2',
        cases,
        caseSet: { format: 'toy', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
        model: fakeModel(),
        protocol: PAPER_PROTOCOL,
        resolveFamily: resolveToy,
        kind: 'toy:continue',
        studyPlan: { protocol: {} },
      }),
      /studyPlan: protocol are the engine's keys of a plan/,
    );
  } finally {
    await store.close();
  }
  // A frozen round rewritten in the log: the audit names the prefix the plan hashed.
  const db = await rawDb(st.location);
  try {
    await db.liftGuard();
    await db.run(
      "UPDATE events SET payload = replace(payload, ?, ?) WHERE run_id = 'c1' AND type = 'draft_accepted' AND case_index = 0 AND revision = 0",
      'f0 ',
      'g0 ',
    );
  } finally {
    await db.close();
  }
  const again = await openStore(st.location, { readonly: true });
  try {
    const lines = (await auditRun(again, 'c1', resolveToy, { replay: () => null })).discrepancies.map(formatDiscrepancy);
    assert.ok(
      lines.some((l) => /frozen: the frozen rounds' texts differ from the ones the plan hashed/.test(l)),
      lines.join('\n'),
    );
  } finally {
    await again.close();
  }
});

test("every registered study's kinds are registered with the store, and the store's kinds each have a study", () => {
  const kinds = registeredRunKinds();
  for (const study of STUDIES) for (const kind of study.kinds) assert.ok(kinds.includes(kind), `${study.id}: ${kind}`);
  const owned = new Set(STUDIES.flatMap((s) => s.kinds));
  assert.deepEqual(
    kinds.filter((k) => !owned.has(k) && !k.startsWith('toy:') && k !== 'dice'),
    [],
  );
});

/** The example of docs/store.md "Adding a study", loaded once (as an ES module, so it registers with this process's store). */
let docExample: Promise<unknown> | null = null;
function loadDocExample(): Promise<unknown> {
  if (docExample) return docExample;
  const doc = readFileSync(new URL('../../docs/store.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Adding a study\n'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'the section has a TypeScript example');
  const file = join(tempDir('revloop-doc-example-'), 'dice.mts');
  const store = new URL('../../src/store/index.ts', import.meta.url).pathname;
  writeFileSync(file, code.replace("'revloop/store'", JSON.stringify(store)));
  docExample = import(pathToFileURL(file).href);
  return docExample;
}

eachBackend('the example of docs/store.md "Adding a study" registers its kind, and its runs reduce to its tally', async (st) => {
  await loadDocExample();
  assert.ok(registeredRunKinds().includes('dice'));
  const s = await openStore(st.location);
  try {
    await openStudyRun(s, { runId: 'd', kind: 'dice', controller, settings: { sides: 6 } });
    await appendRecords(
      s,
      'd',
      'roll',
      null,
      [4, 6, 6].map((face, i) => ({ key: String(i), data: { face } })),
    );
    assert.deepEqual((await s.reduce('d'))!.results, { 4: 1, 6: 2 });
    await assert.rejects(s.createRun('e', badDice()), /settings\.sides: a whole number is required/);
  } finally {
    await s.close();
  }
});

function badDice(): RunPlannedPayload {
  const plan: StudyPlan = { format: planFormat(1), kind: 'dice', controller, settings: {} };
  return { plan, cases: [], per_case: null, plan_sha256: sha256Hex(canonicalJson({ plan, cases: [], per_case: null })) };
}
