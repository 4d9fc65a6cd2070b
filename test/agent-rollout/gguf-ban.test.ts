// The decoder ban in real rollouts on the tiny GGUF (docs/harness.md §6): under +ban no generated turn
// contains a banned token sequence (ban lists built from the earlier failed actions, both
// whitespace variants), while the same model without the ban does re-emit a failed action — so
// the check is not vacuous. The tiny model's outputs are meaningless; the mechanism is real.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createGgufModel, disposeAllGgufRuntimes } from '../../src/models/gguf/index.ts';
import { ensureTinyModel } from '../../src/test/tiny-model.ts';
import { buildBanList, findBannedOccurrence } from '../../src/models/ban.ts';
import { agentTasks, runToolShedRollout } from '../../src/studies/agent/engine.ts';
import { AGENT_HARNESSES as HARNESSES } from '../../src/remedy/agent-harness.ts';
import { turnGeneratorFor, type TurnGenerator, type TurnResult } from '../../src/studies/agent/generator.ts';
import { banStrings } from '../../src/remedy/ban.ts';

const model = createGgufModel(`gguf:${ensureTinyModel()}?contextSize=8192`);
let tokenize: (text: string) => number[];
before(async () => {
  const rt = await model.load();
  tokenize = (t) => rt.tokenize(t, false);
});
after(async () => {
  await model.close();
  await disposeAllGgufRuntimes();
});

interface Turn {
  banned: readonly string[];
  result: TurnResult;
}

function recording(gen: TurnGenerator): { gen: TurnGenerator; turns: Turn[] } {
  const turns: Turn[] = [];
  const wrapped: TurnGenerator = {
    model: gen.model,
    method: gen.method,
    info: () => gen.info(),
    async turn(messages, request) {
      const result = await gen.turn(messages, request);
      turns.push({ banned: request.banned, result });
      return result;
    },
  };
  return { gen: wrapped, turns };
}

const settings = { maxSteps: 3, maxNewTokens: 16, temperature: 0, seed: 20260808 };
const [task] = agentTasks(1);

test('verbatim (no ban): the tiny model re-emits its failed action token for token', async () => {
  const rec = recording(await turnGeneratorFor(model, { needsBan: false }));
  const r = await runToolShedRollout(task, 0, HARNESSES.verbatim, rec.gen, settings);
  assert.ok(r.n_exact_repeats >= 1, `actions: ${JSON.stringify(r.actions)}`);
  const repeated = rec.turns
    .slice(1)
    .some((t, i) => findBannedOccurrence(buildBanList(banStrings(r.actions.slice(0, i + 1)), tokenize), t.result.tokenIds!) !== null);
  assert.ok(repeated, 'some later turn contains an earlier failed action as tokens');
});

test('verbatim+ban: no turn contains a banned token sequence; the ban list holds both whitespace variants', async () => {
  const rec = recording(await turnGeneratorFor(model, { needsBan: true }));
  const r = await runToolShedRollout(task, 0, HARNESSES['verbatim+ban'], rec.gen, settings);
  assert.equal(rec.turns.length, r.n_steps);
  let underBan = 0;
  for (const t of rec.turns) {
    const seqs = t.result.banTokenSequences ?? [];
    assert.deepEqual(seqs, buildBanList(t.banned, tokenize), 'the decoder got the ban list of the earlier failed actions');
    for (const s of t.banned) {
      for (const variant of [s, ' ' + s])
        assert.ok(
          seqs.some((q) => q.join() === tokenize(variant).join()),
          `ban list has ${JSON.stringify(variant)}`,
        );
    }
    assert.equal(findBannedOccurrence(seqs, t.result.tokenIds!), null, `turn emitted a banned sequence: ${JSON.stringify(t.result.text)}`);
    if (seqs.length) underBan++;
  }
  assert.ok(underBan >= 1, 'at least one turn ran under a non-empty ban list');
  assert.ok((r.n_banned_masked ?? 0) > 0, 'the mask was applied');
});
