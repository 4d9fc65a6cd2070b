// The same policies in the lab: `run --harness … [--ban failed-drafts]` through the one harness
// layer, recorded in the plan, replayed by the audit, shown as their own controller by analyze, and
// `compare-policies` on simulated controllers (SIMULATED).
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { runCases } from '../../src/app/run.ts';
import { comparePolicies } from '../../src/app/compare-policies.ts';
import { renderComparison } from '../../src/revise/compare.ts';
import { analyzeStore } from '../../src/app/analyze.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { messageBuilderNamed, verbatimMessages } from '../../src/engine/round-policy.ts';
import { openStore } from '../../src/store/store.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases, structuredDemoCases } from '../../src/app/demo/cases.ts';
import { isTrajectoryPlan } from '../../src/store/plan.ts';
import { tempDir } from '../store/toy-run.ts';

const root = join(import.meta.dirname, '../..');

async function caseFile(dir: string, n = 12): Promise<string> {
  const path = join(dir, 'cases.jsonl');
  await writeCaseSet(path, [...exactLengthDemoCases(), ...structuredDemoCases()].slice(0, n));
  return path;
}

test('run --harness: the harness and ban are in the plan, the audit rebuilds every request and ban, verbatim stays the paper', async () => {
  const dir = tempDir();
  try {
    const cases = await caseFile(dir);
    const store = join(dir, 'runs.db');
    const paper = await runCases({ cases, model: 'sim:stubborn', store, runId: 'paper' });
    const abstract = await runCases({ cases, model: 'sim:stubborn', store, runId: 'abstract', harness: 'abstract' });
    const reset = await runCases({
      cases,
      model: 'sim:stubborn',
      store,
      runId: 'reset',
      harness: 'reset-on-recurrence',
      ban: 'failed-drafts',
    });
    const def = await runCases({ cases, model: 'sim:stubborn', store, runId: 'default', harness: 'revloop-default' });
    assert.ok([paper, abstract, reset, def].every((o) => o.summary.complete === 12));
    const s = await openStore(store, { readonly: true });
    try {
      const protocol = async (id: string) => {
        const p = (await s.getPlanned(id))!.plan;
        assert.ok(isTrajectoryPlan(p));
        return p.protocol;
      };
      assert.equal((await protocol('paper')).name, 'paper');
      assert.equal((await protocol('paper')).message_policy, 'verbatim');
      assert.equal((await protocol('abstract')).name, 'paper+messages=abstract');
      assert.deepEqual(
        [(await protocol('reset')).name, (await protocol('reset')).ban_provider],
        ['paper+messages=reset-on-recurrence,ban=failed-drafts', 'failed-drafts'],
      );
      // revloop-default bans nothing (docs/revise.md §5), on every backend.
      assert.equal((await protocol('default')).ban_provider, null);
      for (const id of ['paper', 'abstract', 'reset', 'default']) {
        const a = await auditRun(s, id, getFamily);
        assert.deepEqual(a.discrepancies.map(formatDiscrepancy), [], id);
        assert.ok(!a.notes.some((n) => n.includes('messages not re-derived')), id);
      }
      // The requests really differ by harness: abstract never sends a failed draft back.
      const [t] = (await s.loadTrajectories(['abstract'])).filter((x) => x.rounds.length > 2);
      const ctx = {
        case: t.case,
        family: getFamily(t.family),
        variant: 'baseline' as const,
        history: { kind: 'full' as const },
        revision: 2,
        initialPrompt: getFamily(t.family).initialPrompt(t.case),
        exchanges: t.rounds
          .slice(0, 2)
          .map((r) => ({ revision: r.revision, draft: r.text, feedback: r.feedback!, state: r.state, energy: r.energy, joint: r.joint })),
      };
      const sent = JSON.stringify(messageBuilderNamed('abstract').build(ctx));
      assert.ok(!sent.includes(JSON.stringify(t.rounds[0].text).slice(1, -1)));
      assert.ok(JSON.stringify(verbatimMessages.build(ctx)).includes(JSON.stringify(t.rounds[0].text).slice(1, -1)));
    } finally {
      await s.close();
    }
    // analyze shows each harness as its own controller.
    const doc = await analyzeStore(store, { runIds: ['paper', 'abstract'], bootstrap: 200, seed: 1 });
    const text = JSON.stringify(doc.map((r) => r.study.toJson(r.analysis)));
    assert.match(text, /sim:stubborn · abstract \[simulated\]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run --ban complete-repeats: bans earlier failed drafts as complete answers, recorded as banned_answers, audited; no exact repeat survives', async () => {
  const dir = tempDir();
  try {
    const cases = await caseFile(dir);
    const store = join(dir, 'runs.db');
    const out = await runCases({ cases, model: 'sim:stubborn', store, runId: 'cr', ban: 'complete-repeats' });
    assert.equal(out.summary.complete, 12);
    const s = await openStore(store, { readonly: true });
    try {
      const plan = (await s.getPlanned('cr'))!.plan;
      assert.ok(isTrajectoryPlan(plan));
      assert.deepEqual([plan.protocol.name, plan.protocol.ban_provider], ['paper+ban=complete-repeats', 'complete-repeats']);
      const starts = await s.readEvents('cr', { types: ['attempt_started'] });
      const banned = starts.filter((e) => e.type === 'attempt_started' && e.payload.banned_answers);
      assert.ok(banned.length > 0);
      assert.ok(starts.every((e) => e.type === 'attempt_started' && e.payload.banned_sequences === undefined));
      const a = await auditRun(s, 'cr', getFamily);
      assert.deepEqual(a.discrepancies.map(formatDiscrepancy), []);
      // The stubborn profile returns an earlier draft half the time; under this ban no draft equals an earlier one.
      let rounds = 0;
      for (const t of await s.loadTrajectories(['cr'])) {
        const texts = t.rounds.map((r) => r.text);
        rounds += texts.length;
        assert.equal(new Set(texts).size, texts.length, `case ${t.caseIndex} repeats a failed draft`);
      }
      assert.ok(rounds > 40);
    } finally {
      await s.close();
    }
    // Without the ban the same model repeats itself.
    await runCases({ cases, model: 'sim:stubborn', store, runId: 'free' });
    const s2 = await openStore(store, { readonly: true });
    try {
      const repeats = (await s2.loadTrajectories(['free'])).filter((t) => new Set(t.rounds.map((r) => r.text)).size < t.rounds.length);
      assert.ok(repeats.length > 0);
    } finally {
      await s2.close();
    }
    // A backend that cannot ban complete answers is refused before anything is written.
    await assert.rejects(
      runCases({ cases, model: 'vllm:http://127.0.0.1:9/v1#m', store, runId: 'nope', ban: 'complete-repeats' }),
      /needs a model that can ban complete answers \(gguf:, sim:\)/,
    );
    const s3 = await openStore(store, { readonly: true });
    try {
      assert.equal(await s3.getPlanned('nope'), null);
    } finally {
      await s3.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run --ban failed-drafts is refused for a backend that cannot ban, before anything is written', async () => {
  const dir = tempDir();
  try {
    const cases = await caseFile(dir, 2);
    await assert.rejects(
      runCases({ cases, model: 'openai-compatible:http://127.0.0.1:9/v1#m', store: join(dir, 'runs.db'), ban: 'failed-drafts' }),
      /needs a model with decoder bans/,
    );
    await assert.rejects(
      runCases({ cases, model: 'sim:ideal', store: join(dir, 'runs.db'), harness: 'nope' }),
      /UsageError: harness: unknown policy 'nope'/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compare-policies on simulated controllers (SIMULATED): paired McNemar + Holm, tokens, money, cycles', async () => {
  const dir = tempDir();
  try {
    const cases = await caseFile(dir, 20);
    const store = join(dir, 'runs.db');
    const c = await comparePolicies({
      cases,
      model: 'sim:stubborn',
      store,
      policies: ['verbatim-full', 'abstract', 'reset-on-recurrence', 'revloop-default'],
      budget: 6,
      pricing: { inputPerMTok: 1, outputPerMTok: 2 },
    });
    assert.equal(c.simulated, true);
    assert.deepEqual(
      c.rows.map((r) => r.policy),
      ['verbatim-full', 'abstract', 'reset-on-recurrence', 'revloop-default'],
    );
    assert.equal(c.rows[0].paired, null);
    for (const r of c.rows) {
      assert.equal(r.n, 20);
      assert.ok(r.generations >= 20 && r.generations <= 20 * 7);
      assert.equal(r.usd, (r.prompt_tokens + 2 * r.completion_tokens) / 1e6);
    }
    const p = c.rows.slice(1).map((r) => r.paired!);
    assert.ok(p.every((x) => x.n === 20 && x.p !== null && x.p_holm !== null && x.p_holm >= x.p));
    // verbatim under the stubborn profile keeps returning earlier drafts; the default uses fewer tokens.
    assert.ok(c.rows[0].recurrences > 0);
    assert.ok(c.rows[3].prompt_tokens < c.rows[0].prompt_tokens);
    const text = renderComparison(c);
    assert.match(text, /^\[SIMULATED\] policies compared on 20 cases at budget 6/);
    assert.match(text, /SIMULATED: these figures describe simulated controllers/);
    // Repeating the command resumes: every run is already complete, the numbers are the same.
    const again = await comparePolicies({
      cases,
      model: 'sim:stubborn',
      store,
      policies: ['verbatim-full', 'abstract', 'reset-on-recurrence', 'revloop-default'],
      budget: 6,
    });
    assert.deepEqual(
      again.rows.map((r) => r.successes),
      c.rows.map((r) => r.successes),
    );
    // The CLI prints the same table.
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
        '6',
        '--policies',
        'verbatim-full,abstract',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /^verbatim-full\s+\d+\/20/m);
    const bad = spawnSync(
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
        '--policies',
        'verbatim,bogus',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown policy 'bogus'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
