// Parity with the paper's frozen case files: every row's initial_verifier_state and
// corruption_checks are reproduced byte for byte (960 rows), and every exact-length reference has
// exactly `target` words, keeps every anchor and matches its reference_sha256 (480 rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requireShared } from '../helpers.ts';
import { getFamily, stateJson } from '../../src/core/verify/index.ts';
import { exactLengthFamily } from '../../src/core/verify/exact-length.ts';
import { pyJsonDumps } from '../../src/core/py/format.ts';
import { sha256Hex } from '../../src/core/util/hash.ts';

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
}

for (const domain of ['lexical', 'compositional'] as const) {
  const file = requireShared('paper-cases', `${domain}_constraints_combined480.jsonl`);
  test(`${domain}: initial_verifier_state and corruption_checks of all 480 rows are reproduced`, { skip: file.skip }, () => {
    const rows = lines(file.path!);
    assert.equal(rows.length, 480);
    const bad: string[] = [];
    const byStructure: Record<string, number> = {};
    for (const raw of rows) {
      const row = JSON.parse(raw);
      // The file's own bytes round-trip through pyJsonDumps, so comparing pyJsonDumps output is a byte comparison.
      assert.equal(pyJsonDumps(row), raw, `${row.id}: row does not round-trip`);
      const family = getFamily(row.structure);
      const c = { id: row.id, family: row.structure, source: row.source, task: row.task, targets: row.targets, witness: row.witness };
      const state = family.verify(row.witness, c);
      const checks = family.corruptionChecks!(c);
      if (stateJson(state) !== pyJsonDumps(row.initial_verifier_state))
        bad.push(`${row.id} state\n  ours:   ${stateJson(state)}\n  theirs: ${pyJsonDumps(row.initial_verifier_state)}`);
      if (pyJsonDumps(checks) !== pyJsonDumps(row.corruption_checks))
        bad.push(`${row.id} corruption ours ${pyJsonDumps(checks)} theirs ${pyJsonDumps(row.corruption_checks)}`);
      assert.ok(Object.values(checks).every(Boolean), `${row.id}: a corruption went undetected`);
      byStructure[row.structure] = (byStructure[row.structure] ?? 0) + 1;
    }
    assert.deepEqual(bad, [], `${bad.length} mismatches:\n${bad.slice(0, 5).join('\n')}`);
    assert.deepEqual(byStructure, domain === 'lexical' ? { c05: 240, c07: 120, c12: 120 } : { c09: 240, c10: 240 });
  });
}

const exact = requireShared('paper-cases', 'generation_combined480.jsonl');
test(
  'exact-length: all 480 references have exactly target words, keep every anchor and match reference_sha256',
  { skip: exact.skip },
  () => {
    const rows = lines(exact.path!);
    assert.equal(rows.length, 480);
    const bad: string[] = [];
    let anchors = 0;
    for (const raw of rows) {
      const row = JSON.parse(raw);
      assert.equal(sha256Hex(row.reference), row.reference_sha256, `${row.id}: reference_sha256`);
      const state = exactLengthFamily.verify(row.reference, {
        id: row.id,
        family: 'exact-length',
        source: row.source,
        target: row.target,
        anchors: row.anchors,
      });
      anchors += row.anchors.length;
      if (state.word_count !== row.target || state.missing.length || !state.joint_success) {
        bad.push(`${row.id}: ${state.word_count} words (target ${row.target}), missing ${JSON.stringify(state.missing)}`);
      }
      assert.equal(
        stateJson(state),
        pyJsonDumps({
          word_count: row.target,
          error: 0,
          exact_length: true,
          missing: [],
          joint_success: true,
          violation_vector: [0, ...row.anchors.map(() => 0)],
        }),
      );
    }
    assert.deepEqual(bad, []);
    assert.equal(anchors, 1907, 'the paper reports 1,907 anchors');
  },
);
