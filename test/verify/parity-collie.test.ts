// Parity with the reference verifier on every COLLIE witness: our state, serialised as Python's
// json.dumps would write it, must equal the reference's `verifier_state` byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requireShared } from '../helpers.ts';
import { getFamily, stateJson } from '../../src/core/verify/index.ts';
import { pyJsonDumps } from '../../src/core/py/format.ts';

const collie = requireShared('collie', 'collie_all.jsonl');
const ref = requireShared('collie', 'nltk_reference.jsonl');
const skip = collie.skip || ref.skip;

function readRows(path: string): Array<{ raw: string; value: any }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((raw) => ({ raw: raw.replace(/\r$/, ''), value: JSON.parse(raw) }));
}

test('verifier_state of every nltk_reference row is reproduced byte for byte', { skip }, () => {
  const rows = new Map(readRows(collie.path!).map((r) => [r.value.id, r.value]));
  const refs = readRows(ref.path!);
  let compared = 0;
  const mismatches: string[] = [];
  for (const { raw, value } of refs) {
    if (!('verifier_state' in value)) continue;
    // The reference bytes: re-serialising the parsed line must give the line back exactly, which
    // proves pyJsonDumps(verifier_state) is the reference's own byte sequence (float/int typing included).
    assert.equal(pyJsonDumps(value), raw, `${value.id}: the reference line does not round-trip`);
    const row = rows.get(value.id);
    assert.ok(row, `${value.id}: not in collie_all.jsonl`);
    const family = getFamily(row.structure);
    const state = family.verify(row.witness, { id: row.id, family: row.structure, source: row.source, targets: row.targets });
    const ours = stateJson(state);
    const theirs = pyJsonDumps(value.verifier_state);
    compared++;
    if (ours !== theirs && mismatches.length < 5) mismatches.push(`${value.id}\n  ours:   ${ours}\n  theirs: ${theirs}`);
    else if (ours !== theirs) mismatches.push(value.id);
  }
  assert.equal(compared, 1335, 'expected 1,335 rows with a verifier_state');
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${compared} states differ:\n${mismatches.slice(0, 5).join('\n')}`);
});
