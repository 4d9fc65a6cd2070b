import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCaseSet } from '../../src/core/cases/index.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { exportRun } from '../../src/app/export.ts';
import { paperRow } from '../../src/studies/revision/export-paper.ts';
import { openStore } from '../../src/store/store.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { requireShared, requirePunkt } from '../helpers.ts';
import { scriptedModel } from '../loop/fakes.ts';
import { tempDir } from './toy-run.ts';

const punkt = requirePunkt();

const cases: ConstraintCase[] = [
  {
    id: 'own-lake',
    family: 'exact-length',
    source: 'own',
    instruction: 'Describe a quiet morning by the lake.',
    target: 12,
    anchors: ['lake', 'morning mist'],
    row: { meta: { source_id: 'own-1', length_band: '1-50' } },
  },
  {
    id: 'own-c07',
    family: 'c07',
    source: 'own',
    task: "Please generate a sentence containing the word 'lantern', 'harbor', 'Tuesday'.",
    targets: ['lantern', 'harbor', 'Tuesday'],
  },
  { id: 'own-fail', family: 'exact-length', source: 'own', instruction: 'Name a colour.', target: 1, anchors: [] },
];

// Expected bytes written by hand in Python's json.dumps(ensure_ascii=False) style (and checked
// once against CPython 3.11 while writing this test).
const EXPECTED = [
  '{"id": "own-lake", "source": "own", "source_id": "own-1", "length_band": "1-50", "target": 12, "required": ["lake", "morning mist"], "rounds": [' +
    '{"revision": 0, "text": "The lake was calm.", "word_count": 4, "error": -8, "exact_length": false, "missing": ["morning mist"], "joint_success": false}, ' +
    '{"revision": 1, "text": "The lake was calm and morning mist rose over the still water.", "word_count": 12, "error": 0, "exact_length": true, "missing": [], "joint_success": true}], ' +
    '"one_shot_exact": false, "one_shot_joint": false, "final_exact": true, "final_joint": true, "ever_exact": true, "revisions_used": 1}',
  '{"id": "own-c07", "family": "c07", "structure": "c07", "split": null, "source": "own", "upstream_key": null, "upstream_index": null, "targets": ["lantern", "harbor", "Tuesday"], "rounds": [' +
    '{"revision": 0, "text": "A lantern glowed by the harbor.", "joint_success": false, "violation_energy": 1.0, "verifier": {"joint_success": false, "target_words": ["lantern", "harbor", "Tuesday"], "target_present": [true, true, false], "missing_count": 1, "violation_vector": [0.0, 0.0, 1.0]}}, ' +
    '{"revision": 1, "text": "On Tuesday – a lantern glowed by the harbor.", "joint_success": true, "violation_energy": 0.0, "verifier": {"joint_success": true, "target_words": ["lantern", "harbor", "Tuesday"], "target_present": [true, true, true], "missing_count": 0, "violation_vector": [0.0, 0.0, 0.0]}}], ' +
    '"one_shot_joint": false, "final_joint": true, "ever_joint": true, "revisions_used": 1}',
  '{"id": "own-fail", "source": "own", "source_id": null, "length_band": null, "target": 1, "required": [], "rounds": [' +
    '{"revision": 0, "text": "Deep blue", "word_count": 2, "error": 1, "exact_length": false, "missing": [], "joint_success": false}], ' +
    '"one_shot_exact": false, "one_shot_joint": false, "final_exact": null, "final_joint": null, "ever_exact": false, "revisions_used": 0, ' +
    '"protocol_complete": false, "incomplete_reason": "revision 1: provider attempts exhausted (1 attempt); last error: http: 500"}',
];

test('export --format paper writes the reference per-case schema, byte for byte, in input order', { skip: punkt.skip }, async () => {
  const dir = tempDir();
  const storePath = join(dir, 'runs.db');
  const store = await openStore(storePath);
  const model = scriptedModel([
    'The lake was calm.',
    ' The lake was calm and morning mist rose over the still water.\n',
    'A lantern glowed by the harbor.',
    'On Tuesday – a lantern glowed by the harbor.',
    '  Deep blue ',
    null,
  ]);
  await executeRun({
    store,
    runId: 'x',
    cases,
    caseSet: { format: 'native', total: 3, limit: null, fileSha256: null, manifest: null, path: null },
    model,
    protocol: PAPER_PROTOCOL,
    resolveFamily: getFamily,
    concurrency: 1,
    maxConsecutiveFailures: 0,
  });
  await store.close();
  const out = join(dir, 'x.jsonl');
  await exportRun({ store: storePath, runId: 'x', format: 'paper', output: out });
  const text = readFileSync(out, 'utf8');
  assert.equal(text, EXPECTED.map((l) => l + '\n').join(''));
});

test('export refuses an unfinished run unless --partial, and unknown formats', { skip: punkt.skip }, async () => {
  const dir = tempDir();
  const storePath = join(dir, 'runs.db');
  const store = await openStore(storePath);
  const ac = new AbortController();
  ac.abort();
  await executeRun({
    store,
    runId: 'x',
    cases,
    caseSet: { format: 'native', total: 3, limit: null, fileSha256: null, manifest: null, path: null },
    model: scriptedModel([]),
    protocol: PAPER_PROTOCOL,
    resolveFamily: getFamily,
    signal: ac.signal,
    abandonAfterMs: 1,
  });
  await store.close();
  await assert.rejects(
    exportRun({ store: storePath, runId: 'x', format: 'paper', output: join(dir, 'o.jsonl') }),
    /run 'x' has 3 unfinished trajectories; resume it first, or pass --partial/,
  );
  await assert.rejects(
    exportRun({ store: storePath, runId: 'x', format: 'csv' as 'paper', output: join(dir, 'o.jsonl') }),
    /unknown export format 'csv'/,
  );
  await assert.rejects(
    exportRun({ store: storePath, runId: 'nope', format: 'paper', output: join(dir, 'o.jsonl') }),
    /no run 'nope' in .*; runs: x/,
  );
  await exportRun({ store: storePath, runId: 'x', format: 'paper', output: join(dir, 'o.jsonl'), partial: true });
  assert.equal(readFileSync(join(dir, 'o.jsonl'), 'utf8'), '');
});

const lexical = requireShared('paper-cases', 'lexical_constraints_combined480.jsonl');
test('structured rows of the paper case set keep the reference case fields and key order', { skip: lexical.skip }, async () => {
  const set = await loadCaseSet(lexical.path!, { skipWitnessChecks: true });
  const c = set.cases[0];
  const family = getFamily(c.family);
  const state = family.verify(c.witness!, c);
  const row = paperRow({
    runId: 'r',
    caseIndex: 0,
    caseId: c.id,
    controller: 'x',
    simulated: false,
    family: c.family,
    source: c.source,
    case: c,
    rounds: [{ revision: 0, text: c.witness!, state, energy: family.energy(state), joint: true }],
    status: 'complete',
    budget: 8,
  });
  assert.deepEqual(Object.keys(row), [
    'id',
    'family',
    'structure',
    'split',
    'source',
    'upstream_key',
    'upstream_index',
    'targets',
    'rounds',
    'one_shot_joint',
    'final_joint',
    'ever_joint',
    'revisions_used',
    'domain',
    'benchmark_partition',
  ]);
  assert.equal(row.family, (c.row as Record<string, unknown>).family);
  assert.deepEqual((row.rounds as Array<Record<string, unknown>>)[0].verifier, (c.row as Record<string, unknown>).initial_verifier_state);
});
