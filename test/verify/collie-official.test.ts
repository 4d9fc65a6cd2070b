// Verdicts of all 13 COLLIE structures against COLLIE's own checker (collie/constraints.py and the
// constraint objects of all_data.dill), from the fixtures scripts/collie-fixtures.py writes:
// our own synthetic texts, seven deterministic edits of every witness, and every draft of COLLIE's
// released gpt-3.5-turbo multi-round log (real model outputs, read from ../shared at run time).
// Also: every one of the 2,080 witnesses passes, and each state's energy is 0 exactly when it passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requirePunkt, requireShared } from '../helpers.ts';
import { getFamily, type ConstraintCase } from '../../src/core/verify/index.ts';
import { pyStrip } from '../../src/core/py/format.ts';

const FIXTURES = new URL('../fixtures/collie/', import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
const punkt = requirePunkt();
const collie = requireShared('collie', 'collie_all.jsonl');
const log = requireShared('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');

interface Row {
  id: string;
  structure: string;
  source: string;
  prompt: string;
  witness: string;
  targets: unknown;
}

function rows(): Row[] {
  return readFileSync(collie.path!, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function verdict(structure: string, text: string, targets: unknown): boolean {
  const family = getFamily(structure);
  const c: ConstraintCase = { id: 'x', family: structure, source: 'test', task: 'task', targets };
  const state = family.verify(text, c);
  // The energy is 0 exactly when the verdict is a pass, for every state.
  assert.equal(family.energy(state) === 0, state.joint_success, `${structure}: energy ${family.energy(state)} vs joint_success`);
  assert.ok(
    state.violation_vector.every((v) => v >= 0),
    `${structure}: negative violation`,
  );
  return state.joint_success;
}

function report(mismatches: string[], total: number): void {
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${total} verdicts differ from COLLIE's checker`);
}

test('COLLIE official verdicts on our own synthetic texts, all 13 structures', { skip: punkt.skip }, () => {
  const { cases } = fixture('synthetic.json');
  const mismatches: string[] = [];
  const structures = new Set<string>();
  for (const c of cases) {
    structures.add(c.structure);
    const ours = verdict(c.structure, c.text, c.targets);
    if (ours !== c.official) mismatches.push(`${c.structure} ${JSON.stringify(c.text)} ${JSON.stringify(c.targets)}: ours ${ours}`);
  }
  assert.equal(structures.size, 13);
  assert.ok(cases.some((c: any) => c.official) && cases.some((c: any) => !c.official));
  report(mismatches, cases.length);
});

// The edits of scripts/collie-fixtures.py, on code points as Python slices them.
const EDITS: Record<string, (t: string) => string> = {
  witness: (t) => t,
  append: (t) => t + ' And then it ended.',
  prepend: (t) => 'Well, ' + t,
  'first-half': (t) => {
    const cps = [...t];
    return cps.slice(0, Math.floor(cps.length / 2)).join('');
  },
  'drop-last-char': (t) => [...t].slice(0, -1).join(''),
  'join-paragraphs': (t) => t.split('\n\n').join(' '),
  double: (t) => t + '\n\n' + t,
  exclaim: (t) => t.split('. ').join('! '),
};

test(
  'every witness passes and edits of every witness get the official verdict (2,080 rows × 8)',
  { skip: punkt.skip || collie.skip },
  () => {
    const { edits, verdicts } = fixture('witness-edits.json');
    assert.deepEqual(edits, Object.keys(EDITS));
    const all = rows();
    assert.equal(all.length, 2080);
    const mismatches: string[] = [];
    let compared = 0;
    for (const r of all) {
      const expected: string = verdicts[r.id];
      assert.ok(expected, `${r.id}: no fixture verdicts`);
      edits.forEach((name: string, i: number) => {
        const ours = verdict(r.structure, EDITS[name](r.witness), r.targets);
        compared++;
        if (ours !== (expected[i] === '1')) mismatches.push(`${r.id} ${name}: ours ${ours}`);
      });
      assert.ok(
        getFamily(r.structure).verify(r.witness, { id: r.id, family: r.structure, source: r.source, targets: r.targets }).joint_success,
      );
    }
    report(mismatches, compared);
  },
);

test(
  "COLLIE's released gpt-3.5-turbo drafts get the official verdict (raw and stripped)",
  { skip: punkt.skip || collie.skip || log.skip },
  () => {
    const data = JSON.parse(readFileSync(log.path!, 'utf8'));
    const byId = new Map(rows().map((r) => [r.id, r]));
    const { rounds, entries } = fixture('log-verdicts.json');
    const mismatches: string[] = [];
    const structures = new Set<string>();
    let compared = 0;
    entries.forEach((entry: string[], i: number) => {
      const row = byId.get(entry[0])!;
      assert.equal(row.prompt, data.prompts[i], `entry ${i}: prompt of ${entry[0]}`);
      structures.add(row.structure);
      rounds.forEach((key: string, k: number) => {
        const expected = entry[k + 1];
        if (expected === '-') return;
        const text: string = data[key][i];
        const raw = verdict(row.structure, text, row.targets);
        const stripped = verdict(row.structure, pyStrip(text), row.targets);
        compared += 2;
        if (raw !== (expected[0] === '1')) mismatches.push(`${i} ${row.id} ${key} raw: ours ${raw}`);
        if (stripped !== (expected[1] === '1')) mismatches.push(`${i} ${row.id} ${key} stripped: ours ${stripped}`);
      });
    });
    assert.equal(structures.size, 13);
    assert.equal(compared, 2 * 2970);
    report(mismatches, compared);
  },
);
