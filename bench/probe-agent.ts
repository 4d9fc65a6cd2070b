// Agent rollout cost per harness on a GGUF (default: the tiny random-weight model — the figures
// are about the machinery: tokens, steps, ban mask applications and wall time per rollout).
//
//   npx tsx bench/probe-agent.ts [--tasks 4] [--max-steps 6] [--model gguf:<path>]
import { createGgufModel, disposeAllGgufRuntimes } from '../src/models/gguf/index.ts';
import { ensureTinyModel } from '../src/test/tiny-model.ts';
import { agentTasks, runToolShedRollout, type RolloutRecord } from '../src/studies/agent/engine.ts';
import { AGENT_HARNESSES as HARNESSES } from '../src/remedy/agent-harness.ts';
import { STUDY_HARNESSES } from '../src/studies/agent/study-harnesses.ts';
import { turnGeneratorFor } from '../src/studies/agent/generator.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const nTasks = Number(arg('tasks') ?? 4);
const maxSteps = Number(arg('max-steps') ?? 6);
const spec = arg('model') ?? `gguf:${ensureTinyModel()}?contextSize=16384`;
const model = createGgufModel(spec);
await model.load();
const tasks = agentTasks(nTasks);
console.log(`model ${model.label}; ${nTasks} tasks, ${maxSteps} steps, 32 new tokens, greedy`);
console.log('harness          s/rollout  gen tok  prompt tok  ctx/step  steps  ban masks  prompt tok evaluated');
try {
  for (const h of STUDY_HARNESSES) {
    const gen = await turnGeneratorFor(model, { needsBan: HARNESSES[h].ban });
    model.resetStats();
    const t0 = performance.now();
    const rs: RolloutRecord[] = [];
    for (const [i, t] of tasks.entries())
      rs.push(await runToolShedRollout(t, i, HARNESSES[h], gen, { maxSteps, maxNewTokens: 32, temperature: 0, seed: 20260808 }));
    const s = (performance.now() - t0) / 1000 / rs.length;
    const mean = (f: (r: RolloutRecord) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
    const st = model.stats();
    console.log(
      `${h.padEnd(16)} ${s.toFixed(2).padStart(9)}  ${mean((r) => r.gen_tokens!)
        .toFixed(0)
        .padStart(7)}  ${mean((r) => r.prompt_tokens!)
        .toFixed(0)
        .padStart(10)}  ${mean((r) => r.prompt_tokens_per_step!)
        .toFixed(0)
        .padStart(8)}  ${mean((r) => r.n_steps)
        .toFixed(1)
        .padStart(5)}  ${mean((r) => r.n_banned_masked!)
        .toFixed(1)
        .padStart(
          9,
        )}  ${(st.forwardTokens - st.generatedTokens).toLocaleString('en').padStart(10)} of ${st.promptTokens.toLocaleString('en')}`,
    );
  }
} finally {
  await model.close();
  await disposeAllGgufRuntimes();
}
