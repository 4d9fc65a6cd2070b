// Rollouts (docs/harness.md §5.2) with scripted model turns on real ToolShed agent tasks: stop reasons,
// records, what each harness puts in the context, the ban list handed to the decoder, resume.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { agentTasks, runToolShedRollout } from '../../src/studies/agent/engine.ts';
import { STUDY_SETTINGS } from '../../src/studies/agent/defaults.ts';
import { AGENT_HARNESSES as HARNESSES } from '../../src/remedy/agent-harness.ts';
import { STUDY_HARNESSES } from '../../src/studies/agent/study-harnesses.ts';
import { runAgentTasks } from '../../src/studies/agent/agent-run.ts';
import { AgentStore } from '../../src/studies/agent/agent-store.ts';
import { turnGeneratorFor } from '../../src/studies/agent/generator.ts';
import { DEMO, NEGATIVE_INSTRUCTION } from '../../src/envs/toolshed/prompt.ts';
import { CapabilityError } from '../../src/core/errors.ts';
import { fakeModel, ScriptedGenerator } from './fakes.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-agent-');
const settings = { maxSteps: 6, maxNewTokens: 32, temperature: 0, seed: 20260808 };
const [lookup] = agentTasks(1); // agent-0000: "Look up the contact record for Aisha Moreau."
const WRONG = "find_contact(name='Nobody Here')";

test('the gold actions solve every agent task under every harness (engine, environment and predicates agree)', async () => {
  const tasks = agentTasks(12);
  for (const h of STUDY_HARNESSES) {
    for (const [i, t] of tasks.entries()) {
      const gen = new ScriptedGenerator((k) => t.gold_actions[k]);
      const r = await runToolShedRollout(t, i, HARNESSES[h], gen, settings);
      assert.equal(r.solved, true, `${t.task_id} under ${h}`);
      assert.equal(r.stop_reason, 'solved');
      assert.equal(r.n_steps, t.gold_actions.length - 1, 'solved before finish() is needed');
      assert.equal(r.n_failed_actions, 0);
      assert.equal(r.exact_repeat_rate, null);
    }
  }
});

test('a failure then the fix: record fields, tokens summed, solved at step 2', async () => {
  const gen = new ScriptedGenerator((k) => (k === 0 ? `Action: ${WRONG}\nthen more` : "find_contact(name='Aisha Moreau')"));
  const r = await runToolShedRollout(lookup, 0, HARNESSES.verbatim, gen, settings, 123);
  assert.deepEqual([r.solved, r.stop_reason, r.n_steps], [true, 'solved', 2]);
  assert.deepEqual(r.actions, [WRONG, "find_contact(name='Aisha Moreau')"]);
  assert.deepEqual(r.raw_outputs[0], `Action: ${WRONG}\nthen more`);
  assert.deepEqual(r.ok, [false, true]);
  assert.deepEqual(r.error_types, ['contact_not_found', null]);
  assert.match(r.observations[0], /^LookupError: no contact matching 'Nobody Here'\. Closest match: '/);
  assert.deepEqual(r.tools, ['find_contact', 'find_contact']);
  assert.equal(r.gen_tokens, 10);
  assert.equal(r.prompt_tokens, 100 + 2 + 100 + 4);
  assert.equal(r.prompt_tokens_per_step, r.prompt_tokens! / 2);
  assert.equal(r.model_params, 123);
  assert.equal(r.ok_call_rate, 0.5);
  // The first context: system prompt with the demo, then the goal.
  assert.equal(gen.seen[0].messages.length, 2);
  assert.ok(gen.seen[0].messages[0].content.endsWith(DEMO));
  assert.equal(gen.seen[0].messages[1].content, lookup.goal);
  assert.deepEqual(gen.seen[0].request, { maxNewTokens: 32, temperature: 0, seed: 20260808, banned: [], newlineStops: true });
});

test('finish() while unsolved ends the rollout as finish_called; the step limit with ≥ 2 canonical repeats is a loop', async () => {
  const fin = await runToolShedRollout(lookup, 0, HARNESSES.verbatim, new ScriptedGenerator(() => 'finish()'), settings);
  assert.deepEqual([fin.solved, fin.stop_reason, fin.n_steps, fin.stuck], [false, 'finish_called', 1, false]);
  const loop = await runToolShedRollout(
    lookup,
    0,
    HARNESSES.verbatim,
    new ScriptedGenerator((k) => (k % 2 ? `find_contact( name = 'Nobody Here' )` : WRONG)),
    settings,
  );
  assert.deepEqual([loop.stop_reason, loop.n_steps, loop.stuck], ['step_limit', 6, true]);
  assert.equal(loop.n_exact_repeats, 4);
  assert.equal(loop.n_canonical_repeats, 5);
  assert.equal(loop.exact_repeat_rate, 4 / 6);
});

test('what each harness shows after a failure, and the ban list it hands the decoder', async () => {
  const script = (k: number) => (k === 0 ? WRONG : k === 1 ? `  ${WRONG}  ` : 'finish()');
  const seen: Record<string, ScriptedGenerator> = {};
  for (const h of ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban'] as const) {
    const gen = new ScriptedGenerator(script);
    await runToolShedRollout(lookup, 0, HARNESSES[h], gen, settings);
    seen[h] = gen;
  }
  const third = (h: string) => seen[h].seen[2].messages;
  const note1 = '[attempt 1 failed: find_contact \u2014 no such contact; that call is not repeatable]';
  const note2 = '[attempt 2 failed: find_contact \u2014 no such contact; that call is not repeatable]';
  assert.deepEqual(
    third('verbatim')
      .slice(2)
      .map((m) => [m.role, m.content.slice(0, 40)]),
    [
      ['assistant', WRONG],
      ['user', 'Observation: LookupError: no contact mat'],
      ['assistant', WRONG],
      ['user', 'Observation: LookupError: no contact mat'],
    ],
  );
  assert.ok(third('verbatim+instr')[0].content.endsWith(`${DEMO}\n${NEGATIVE_INSTRUCTION}`));
  assert.deepEqual(third('abstract').slice(2), [
    { role: 'user', content: note1 },
    { role: 'user', content: note2 },
  ]);
  assert.deepEqual(third('drop').length, 2);
  assert.deepEqual(third('abstract+ban'), third('abstract'));
  // Bans: stripped and de-duplicated failed actions, only under +ban harnesses.
  assert.deepEqual(
    seen['verbatim+ban'].seen.map((s) => s.request.banned),
    [[], [WRONG], [WRONG]],
  );
  assert.deepEqual(
    seen['abstract+ban'].seen.map((s) => s.request.banned),
    [[], [WRONG], [WRONG]],
  );
  assert.deepEqual(
    seen.verbatim.seen.map((s) => s.request.banned),
    [[], [], []],
  );
});

test('+ban harnesses are refused on a backend that cannot ban; other harnesses run', async () => {
  await assert.rejects(
    turnGeneratorFor(fakeModel({ ban: false }), { needsBan: true }),
    (e: unknown) => e instanceof CapabilityError && /cannot ban/.test((e as Error).message) && /gguf:/.test((e as Error).message),
  );
  await turnGeneratorFor(fakeModel({ ban: false }), { needsBan: false });
});

test('runs are stored per task and resume where they stopped; settings of a run cannot change', async () => {
  const store = await AgentStore.open(join(dir, 'a.db'));
  const run = {
    env: 'toolshed',
    harness: 'verbatim' as const,
    settings: { max_steps: 6, max_new_tokens: 32, temperature: 0, seed: 20260808, task_seed: 20260808 },
  };
  const model = { spec: 'fake:scripted', label: 'scripted', capabilities: { simulated: false } };
  await store.openRun('r', run, model);
  const gen = new ScriptedGenerator(() => 'finish()');
  const controller = new AbortController();
  const first = await runAgentTasks(gen, HARNESSES.verbatim, store, 'r', 4, settings, {
    signal: controller.signal,
    onRollout: (_r, done) => done === 2 && controller.abort(),
  });
  assert.deepEqual([first.status, first.done], ['interrupted', 2]);
  const second = await runAgentTasks(gen, HARNESSES.verbatim, store, 'r', 4, settings);
  assert.deepEqual([second.status, second.done, second.present], ['complete', 2, 2]);
  assert.deepEqual(
    (await store.rollouts('r')).map((r) => r.task_id),
    ['agent-0000', 'agent-0001', 'agent-0002', 'agent-0003'],
  );
  await assert.rejects(
    store.openRun('r', { ...run, settings: { ...run.settings, max_steps: 8 } }, model),
    /run 'r' exists with a different plan[\s\S]*settings\.max_steps: stored 6, requested 8/,
  );
  // A changed model under the same run id is refused too, naming the differing parts.
  await assert.rejects(
    store.openRun('r', run, { ...model, spec: 'vllm:http://h/v1#sim:steady' }),
    /controller\.spec: stored "fake:scripted"/,
  );
  await store.close();
  assert.equal(STUDY_SETTINGS.nTasks, 24);
});
