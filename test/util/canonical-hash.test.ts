// canonicalSha256 (core/util/hash.ts) hashes a value's canonical JSON part by part; its digest must
// be exactly the one-shot sha256Hex(canonicalJson(value)) that plans, audits and stored
// plan_sha256 values were made with, whatever the value holds; hashedPlan, which serialises a
// plan's cases once for both of its hashes, must give the same two digests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, canonicalSha256, sha256Hex } from '../../src/core/util/hash.ts';
import { loadCaseSet } from '../../src/core/cases/load.ts';
import { casesSha256, hashedPlan, planSha256, type RunPlan } from '../../src/store/plan.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import type { PerCase } from '../../src/store/events.ts';
import { requireShared } from '../helpers.ts';

const oneShot = (v: unknown) => sha256Hex(canonicalJson(v));

test('canonicalSha256 equals the one-shot hash on arbitrary JSON-like values', () => {
  const value = fc.letrec((tie) => ({
    leaf: fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.date({ noInvalidDate: true }),
    ),
    // Integer-like keys ("9", "10"), which every JS object orders first, and non-Latin-1 ones.
    key: fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.nat({ max: 30 }).map(String)),
    node: fc.oneof(
      { depthSize: 'small' },
      tie('leaf'),
      fc.array(tie('node'), { maxLength: 5 }),
      fc.sparseArray(tie('node'), { maxLength: 5 }),
      fc.dictionary(tie('key') as fc.Arbitrary<string>, tie('node'), { maxKeys: 5 }),
    ),
  })).node;
  fc.assert(
    fc.property(value, (v) => {
      if (v === undefined) return;
      assert.equal(canonicalSha256(v), oneShot(v), canonicalJson(v));
    }),
    { numRuns: 2000 },
  );
});

/** The array with a hole at index `at` (JSON.stringify writes null there). */
function sparse(items: unknown[], at: number): unknown[] {
  const out = [...items];
  delete out[at];
  return out;
}

test('canonicalSha256: the cases JSON.stringify omits or rewrites, sparse arrays, and many pieces', () => {
  class WithToJson {
    a = 1;
    toJSON() {
      return 'replaced';
    }
  }
  const values: unknown[] = [
    null,
    0,
    'é—“quoted”',
    [],
    {},
    { b: undefined, a: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t'), NaN, -0, Infinity] },
    { 10: 'x', 9: 'y', b: 1, a: 2, '-1': 3, '01': 4 },
    { nested: { deeper: { deepest: { 2: 'b', 1: 'a' } } } },
    JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
    { when: new Date(0), obj: new WithToJson(), arr: [new WithToJson()] },
    { big: Array.from({ length: 3000 }, (_, i) => ({ i, text: `line ${i} — “ü” ${'x'.repeat(i % 50)}` })), per: null },
    Array.from({ length: 100 }, (_, i) => 'ñ'.repeat(i * 40)),
    { lone: '\ud800', pair: '\ud83d\ude00' },
    sparse([1, 2, 3], 1),
    { holes: new Array(3), nested: [sparse([0, 'x'], 0)] },
  ];
  for (const v of values) assert.equal(canonicalSha256(v), oneShot(v), canonicalJson(v)?.slice(0, 200));
});

/**
 * hashedPlan's two digests against the one-shot hashes of the canonical JSON (the cases', and the
 * plan's `{ plan, cases, per_case }`); planSha256, which calls hashedPlan, against the same.
 */
function assertHashedPlan(cases: readonly ConstraintCase[], perCase: readonly PerCase[] | null): void {
  let seen: string | null = null;
  const { plan, plan_sha256 } = hashedPlan(cases, perCase, (casesSha) => {
    seen = casesSha;
    return { format: 'revloop.plan/1', kind: 'run', case_set: { cases_sha256: casesSha, count: cases.length } } as unknown as RunPlan;
  });
  assert.equal(seen, oneShot(cases));
  assert.equal(seen, casesSha256(cases));
  assert.equal(plan.case_set.cases_sha256, seen);
  const expected = oneShot({ plan, cases, per_case: perCase });
  assert.equal(plan_sha256, expected);
  assert.equal(planSha256(plan, cases, perCase), expected);
}

test('hashedPlan and planSha256 give the one-shot hashes of the cases and of the plan', () => {
  const caseLike = fc.array(
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.constant(null))),
    { maxLength: 8 },
  );
  const perCase = fc.oneof(fc.constant(null), fc.array(fc.record({ controller: fc.string(), budget: fc.nat() }), { maxLength: 4 }));
  fc.assert(
    fc.property(caseLike, perCase, (cases, pc) => assertHashedPlan(cases as unknown as ConstraintCase[], pc)),
    { numRuns: 500 },
  );
  // Cases long enough for many pieces, with non-Latin-1 text split across them.
  const long = Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, prompt: `“${'ñ'.repeat(i * 7)}” ${i}` }));
  assertHashedPlan(long as unknown as ConstraintCase[], null);
  assertHashedPlan(long as unknown as ConstraintCase[], [{ controller: 'a', budget: 3 }]);
});

const cases = requireShared('paper-cases', 'generation_combined480.jsonl');
test("the paper's 480 cases and a plan around them hash as before", { skip: cases.skip }, async () => {
  const loaded = await loadCaseSet(cases.path!);
  assert.equal(casesSha256(loaded.cases), oneShot(loaded.cases));
  const planLike = { plan: { kind: 'revision', case_set: { total: 480 } }, cases: loaded.cases, per_case: null };
  assert.equal(canonicalSha256(planLike), oneShot(planLike));
  assertHashedPlan(loaded.cases, null);
});
