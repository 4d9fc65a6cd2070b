// compare-policies over seeds (SIMULATED controllers): one run per policy and seed, pairs by
// (seed, case), Newcombe's interval on each difference, Holm over the comparisons, a table within
// 80 columns (or --wide), JSON with snake_case keys, and clear refusals of bad --seeds/--policies.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { comparePolicies, parsePolicyEntry, parseSeeds, seededModel } from '../../src/app/compare-policies.ts';
import { layoutTable, renderComparison, seedsText } from '../../src/revise/compare.ts';
import { mcnemarExact } from '../../src/core/stats/binomial.ts';
import { newcombePairedDifference } from '../../src/core/stats/paired-difference.ts';
import { openStore } from '../../src/store/store.ts';
import { isTrajectoryPlan } from '../../src/store/plan.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases, structuredDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../store/toy-run.ts';

const root = join(import.meta.dirname, '../..');

function keysOf(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) x.forEach((v) => keysOf(v, out));
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      out.push(k);
      keysOf(v, out);
    }
  return out;
}

test('compare-policies --seeds: one run per policy and seed, paired by (seed, case), with the interval and Holm', async () => {
  const dir = tempDir();
  try {
    const cases = join(dir, 'cases.jsonl');
    await writeCaseSet(cases, [...exactLengthDemoCases().slice(0, 5), ...structuredDemoCases().slice(0, 3)]);
    const store = join(dir, 'runs.db');
    const policies = ['verbatim-full', 'revloop-default', 'revloop-default+ban=failed-drafts'];
    const c = await comparePolicies({ cases, model: 'sim:stubborn', store, policies, seeds: [1, 2, 3], budget: 4 });
    assert.equal(c.simulated, true);
    assert.deepEqual(c.seeds, [1, 2, 3]);
    assert.equal(c.cases, 8);
    assert.equal(c.model, 'sim:stubborn');
    assert.deepEqual(c.interval, { method: 'newcombe-hybrid-score', confidence: 0.95 });
    for (const r of c.rows) {
      assert.equal(r.n, 24, 'eight cases under three seeds');
      assert.equal(r.run_ids.length, 3);
      assert.ok(
        r.run_ids.every((id, k) => id.endsWith(`__seed${k + 1}__T4`)),
        r.run_ids.join(),
      );
    }
    const s = await openStore(store, { readonly: true });
    try {
      // Each seed's run really ran that seed, and the ban variant really bans.
      for (const [k, id] of c.rows[1].run_ids.entries()) {
        const plan = (await s.getPlanned(id))!.plan;
        assert.ok(isTrajectoryPlan(plan));
        assert.equal(plan.controller.label, `sim:stubborn?seed=${k + 1} [simulated]`);
        assert.equal(plan.protocol.ban_provider, null);
      }
      const banned = (await s.getPlanned(c.rows[2].run_ids[0]))!.plan;
      assert.ok(isTrajectoryPlan(banned));
      assert.equal(banned.protocol.ban_provider, 'failed-drafts');
      assert.equal(banned.protocol.message_policy, 'revloop-default');
      // The pairs recomputed by hand from the stored trajectories: (seed, case) → success.
      const outcome = async (ids: string[]) => {
        const m = new Map<string, boolean>();
        for (const [k, id] of ids.entries())
          for (const t of await s.loadTrajectories([id])) m.set(`${k}:${t.caseIndex}`, t.rounds.at(-1)!.joint);
        return m;
      };
      const ref = await outcome(c.rows[0].run_ids);
      const ps: number[] = [];
      for (const row of c.rows.slice(1)) {
        const other = await outcome(row.run_ids);
        let [both, b, cc, neither] = [0, 0, 0, 0];
        for (const [key, first] of ref) {
          const o = other.get(key)!;
          if (first && o) both++;
          else if (first) b++;
          else if (o) cc++;
          else neither++;
        }
        assert.deepEqual([row.paired!.n, row.paired!.b, row.paired!.c], [24, b, cc]);
        assert.equal(row.paired!.p, mcnemarExact(b, cc));
        const d = newcombePairedDifference({ both, firstOnly: b, secondOnly: cc, neither })!;
        assert.deepEqual([row.paired!.difference, row.paired!.difference_low, row.paired!.difference_high], [d.estimate, d.lower, d.upper]);
        assert.ok(d.lower <= d.estimate && d.estimate <= d.upper);
        // With seeds, the bootstrap over cases (a case's seeds kept together) gives an interval too.
        const lo = row.paired!.difference_by_case_low;
        const hi = row.paired!.difference_by_case_high;
        assert.ok(lo !== null && hi !== null && lo <= hi && lo >= -1 && hi <= 1);
        ps.push(mcnemarExact(b, cc));
      }
      // Holm over two comparisons: the smaller p doubled, the larger at least that.
      const [lo, hi] = ps[0] <= ps[1] ? [0, 1] : [1, 0];
      assert.equal(c.rows[1 + lo].paired!.p_holm, Math.min(1, 2 * ps[lo]));
      assert.equal(c.rows[1 + hi].paired!.p_holm, Math.max(Math.min(1, 2 * ps[lo]), ps[hi]));
    } finally {
      await s.close();
    }
    // The text fits 80 columns; --wide is one wider table; both say SIMULATED.
    const narrow = renderComparison(c);
    assert.ok(
      narrow.split('\n').every((l) => [...l].length <= 80),
      narrow,
    );
    assert.match(narrow, /^\[SIMULATED\] policies compared on 8 cases × 3 seeds \(1–3\) at budget 4/);
    assert.match(narrow, /SIMULATED: these figures describe simulated controllers/);
    assert.match(narrow, /revloop-default\+ban=failed-drafts\s+\d+\/24/);
    const wide = renderComparison(c, { wide: true });
    assert.ok(wide.split('\n').some((l) => l.length > 80));
    assert.match(wide, /by case \[95% CI\]\s+b\/c\s+McNemar p\s+Holm p\s+generations/);

    // The CLI: the same runs resumed, JSON with snake_case keys only.
    const cli = spawnSync(
      process.execPath,
      [
        join(root, 'bin/revloop.mjs'),
        'compare-policies',
        '--cases',
        cases,
        '--model',
        'sim:stubborn',
        '--store',
        store,
        '--budget',
        '4',
        '--seeds',
        '1-3',
        '--policies',
        policies.join(','),
        '--json',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cli.status, 0, cli.stderr);
    const json = JSON.parse(cli.stdout);
    assert.deepEqual(
      json.rows.map((r: { successes: number }) => r.successes),
      c.rows.map((r) => r.successes),
    );
    const bad = keysOf(json).filter((k) => !/^[a-z][a-z0-9_]*$/.test(k));
    assert.deepEqual(bad, [], 'every JSON key is snake_case');
    assert.ok('difference_low' in json.rows[1].paired && 'run_ids' in json.rows[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--seeds and --policies entries: parsing and refusals', () => {
  assert.deepEqual(parseSeeds('1-3,7, 9-10'), [1, 2, 3, 7, 9, 10]);
  assert.throws(() => parseSeeds('3-1'), /runs backwards/);
  assert.throws(() => parseSeeds('1-3,2'), /seed 2 is listed twice/);
  assert.throws(() => parseSeeds('x'), /'x' is not a seed or a range/);
  assert.equal(seedsText([1, 2, 3, 4, 7, 9, 10]), '1–4, 7, 9, 10');
  assert.deepEqual(seededModel('sim:steady', undefined, 4), { model: 'sim:steady?seed=4', modelOptions: undefined });
  assert.equal(seededModel('sim:steady?gain=0.7', undefined, 4).model, 'sim:steady?gain=0.7&seed=4');
  assert.throws(() => seededModel('sim:steady?seed=2', undefined, 4), /already sets seed=/);
  assert.throws(() => seededModel('openai:gpt-4o-mini', {}, 4), /at temperature 0 every seed gives the same trajectories/);
  assert.deepEqual(seededModel('openai:gpt-4o-mini', { temperature: 0.7 }, 4).modelOptions, { temperature: 0.7, seed: 4 });
  assert.deepEqual(parsePolicyEntry('revloop-default+ban=none'), {
    entry: 'revloop-default+ban=none',
    harness: 'revloop-default',
    ban: 'none',
  });
  assert.deepEqual(parsePolicyEntry('verbatim-full'), { entry: 'verbatim-full', harness: 'verbatim', ban: undefined });
  assert.throws(() => parsePolicyEntry('verbatim+ban=sometimes'), /'verbatim\+ban=sometimes': after '\+' use ban=/);
  assert.throws(() => parsePolicyEntry('verbatim+ban=none+ban=none'), /names the ban twice/);
  assert.throws(() => parsePolicyEntry('bogus+ban=none'), /unknown policy 'bogus'/);
});

test('the table keeps within its width: a name too long for it goes on its own line', () => {
  const text = layoutTable(
    ['policy', 'success', 'p'],
    [
      ['short', '1/2', '0.5'],
      ['a-policy-name-far-too-long-for-the-room-left', '2/2', '1'],
    ],
    30,
  );
  const lines = text.split('\n');
  assert.ok(
    lines.every((l) => l.length <= 30 || l === 'a-policy-name-far-too-long-for-the-room-left'),
    text,
  );
  assert.deepEqual(lines.slice(2), ['a-policy-name-far-too-long-for-the-room-left', '                  2/2      1']);
  assert.match(lines[1], /^short\s+1\/2\s+0\.5$/);
});
