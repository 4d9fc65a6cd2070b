// Rollouts over HTTP against serve-sim (simulated controllers; the numbers mean nothing): the ban
// travels as vLLM `bad_words`, token counts come from `usage`, and a plain OpenAI-compatible
// backend is refused for +ban harnesses.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../src/models/index.ts';
import { startSimServer, type SimServer } from '../../src/models/sim/server.ts';
import { agentTasks, runToolShedRollout } from '../../src/studies/agent/engine.ts';
import { AGENT_HARNESSES as HARNESSES } from '../../src/remedy/agent-harness.ts';
import { turnGeneratorFor } from '../../src/studies/agent/generator.ts';
import { CapabilityError } from '../../src/core/errors.ts';

let sim: SimServer;
before(async () => {
  sim = await startSimServer({ port: 0 });
});
after(async () => {
  await sim.close();
});

test('vllm: a +ban rollout sends bad_words and records usage tokens; the model is labelled simulated', async () => {
  const model = await createModel(`vllm:${sim.url}#sim:steady`);
  const gen = await turnGeneratorFor(model, { needsBan: true });
  const bodies: Array<Record<string, unknown>> = [];
  const orig = model.generate.bind(model);
  model.generate = async (messages, options) => {
    const res = await orig(messages, options);
    bodies.push({
      banned: options.bannedSequences,
      stopTokenIds: options.stopTokenIds,
      maxTokens: options.maxTokens,
      sent: res.attempts[0].request,
    });
    return res;
  };
  const [task] = agentTasks(1);
  const r = await runToolShedRollout(task, 0, HARNESSES['verbatim+ban'], gen, {
    maxSteps: 3,
    maxNewTokens: 32,
    temperature: 0,
    seed: 20260808,
  });
  assert.equal(r.simulated, true);
  assert.equal(r.n_steps, 3);
  assert.ok(r.gen_tokens! > 0 && r.prompt_tokens! > 0);
  assert.equal(bodies[0].banned, undefined);
  assert.deepEqual(bodies[1].banned, [r.actions[0].trim()]);
  assert.equal((bodies[0].stopTokenIds as number[] | undefined)?.length, 2, 'single-token "\\n" and "\\n\\n" stop ids');
  assert.deepEqual((bodies[0].sent as { stop_token_ids?: number[] }).stop_token_ids, bodies[0].stopTokenIds, 'sent as vLLM stop_token_ids');
  assert.equal(bodies[0].maxTokens, 32);
  assert.ok(sim.stats.byPath['/v1/chat/completions'] >= 3);
});

test('a plain OpenAI-compatible backend runs harnesses without a ban and refuses +ban ones', async () => {
  const plain = await createModel(`openai-compatible:${sim.url}#sim:steady`);
  await assert.rejects(turnGeneratorFor(plain, { needsBan: true }), CapabilityError);
  const gen = await turnGeneratorFor(plain, { needsBan: false });
  const [task] = agentTasks(1);
  const r = await runToolShedRollout(task, 0, HARNESSES.abstract, gen, { maxSteps: 2, maxNewTokens: 16, temperature: 0, seed: 20260808 });
  assert.equal(r.n_steps, 2);
  assert.match(gen.method, /no token-level newline stop/);
});
