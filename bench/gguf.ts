// Benchmark and numerics report for the in-process GGUF backend (node-llama-cpp, CPU by default).
//   npx tsx bench/gguf.ts [--model path.gguf] [--threads N] [--items N] [--gpu auto|cuda]
// Without --model it uses the project's tiny random-weight model (test/.tmp), whose numbers say
// nothing about any real model's behaviour; they show the backend's costs and numerical agreement.
// Prints: load time; how far decode batches of each size drift from one batched forward (the reason
// pushes of 1, 2, 4 and 8 tokens are avoided); cached-vs-fresh scoring agreement and the cache saving
// on a probe-shaped workload; greedy generation speed with and without a ban list.
import type { Token } from 'node-llama-cpp';
import { createGgufModel } from '../src/models/gguf/model.ts';
import { ensureTinyModel } from '../src/test/tiny-model.ts';
import { disposeAllGgufRuntimes } from '../src/models/gguf/runtime.ts';
import type { ChatMessage } from '../src/models/types.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const modelPath = arg('--model') ?? ensureTinyModel();
const threads = Number(arg('--threads') ?? 1);
const items = Number(arg('--items') ?? 12);
const gpu = arg('--gpu');
const fmt = (x: number) => (x === 0 ? '0' : x.toExponential(2));

const t0 = performance.now();
const model = createGgufModel(`gguf:${modelPath}?threads=${threads}${gpu ? `&gpu=${gpu}` : ''}`);
const rt = await model.load();
const info = await model.backendInfo();
console.log(`model ${modelPath}${arg('--model') ? '' : ' (tiny random-weight test model)'}`);
console.log(
  `backend node-llama-cpp ${info.nodeLlamaCppVersion}, llama.cpp ${info.llamaCppRelease}, gpu=${info.gpu}, threads=${info.threads}, context ${info.contextSize}, batch ${info.batchSize}, flash attention ${info.flashAttention}`,
);
console.log(`load (first model in process, incl. binding): ${(performance.now() - t0).toFixed(0)} ms\n`);

// ---- 1. decode batch size vs one batched forward --------------------------------------------
const system =
  'You are a tool-using assistant working inside a small office workspace. Reply with exactly one tool call and nothing else. ' +
  'Use the form tool_name(arg=value), with keyword arguments. '.repeat(6);
const goal: ChatMessage[] = [
  { role: 'system', content: system },
  { role: 'user', content: 'Send the contents of notes/todo.md to the design team.' },
];
const ctx = (await model.renderPrompt(goal)).tokens as Token[];
const cont = (await model.tokenize('read_file(path="notes/todo.md") then send the note')) as Token[];
const all = [...ctx, ...cont.slice(0, -1)];
const first = ctx.length - 1;
type Runtime = typeof rt;
async function drift(r: Runtime, sizes: number[]): Promise<string> {
  const seq = r.sequence;
  const logprobsAfter = (res: Awaited<ReturnType<typeof seq.controlledEvaluate>>, offset: number, part: number) => {
    const out: number[] = [];
    for (let i = 0; i < part; i++) {
      const gi = offset + i;
      if (gi >= first) out.push(Math.log(res[i]!.next.probabilities!.get(cont[gi - first])!));
    }
    return out;
  };
  const reference = await r.lock.run(async () => {
    await seq.clearHistory();
    const res = await seq.controlledEvaluate(all.map((t, i) => (i >= first ? [t, { generateNext: { probabilities: true } }] : t)));
    return logprobsAfter(res, 0, all.length);
  });
  const row: string[] = [];
  for (const k of sizes) {
    const lp = await r.lock.run(async () => {
      await seq.clearHistory();
      const start = Math.max(0, first - k + 1);
      await seq.controlledEvaluate(all.slice(0, start));
      const got: number[] = [];
      for (let pos = start; pos < all.length; pos += k) {
        const part = all.slice(pos, pos + k);
        const res = await seq.controlledEvaluate(
          part.map((t, i) => (pos + i >= first ? [t, { generateNext: { probabilities: true } }] : t)),
        );
        got.push(...logprobsAfter(res, pos, part.length));
      }
      return got;
    });
    row.push(`k=${k}: ${fmt(Math.max(...lp.map((x, i) => Math.abs(x - reference[i]))))}`);
  }
  return row.join(', ');
}
console.log(
  `1. drift of pushes of k tokens from one batched forward (context ${ctx.length} tokens, ${cont.length} scored positions, raw node-llama-cpp calls), max |Δ logprob| per position in nats:`,
);
console.log('   flash attention off (default): ' + (await drift(rt, [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16])));
const flash = createGgufModel(`gguf:${modelPath}?threads=${threads}&flashAttention=true${gpu ? `&gpu=${gpu}` : ''}`);
console.log('   flash attention on:            ' + (await drift(await flash.load(), [1, 2, 3, 8])));
await flash.close();

// ---- 2. probe-shaped workload: cached vs fresh, cache saving ---------------------------------
const obs = [
  "TypeError: write_file() missing required argument 'content'.",
  'Call recorded.',
  "{'name': 'Dana Bergmann', 'team': 'design'}",
];
const cands = [
  'write_file(path="reports/roster.md")',
  'write_file(path="reports/roster.md", content="Dana, Milo")',
  'list_contacts(team="design")',
  'finish()',
];
model.resetStats();
const t1 = performance.now();
let scored = 0;
const kept: Array<{ context: ChatMessage[]; cand: string; logprob: number }> = [];
for (let i = 0; i < items; i++) {
  const itemGoal: ChatMessage[] = [goal[0], { role: 'user', content: `Write the names of everyone on team ${i} to reports/roster.md.` }];
  const conditions: ChatMessage[][] = [
    itemGoal,
    ...obs.map((o) => [
      ...itemGoal,
      { role: 'assistant' as const, content: cands[0] },
      { role: 'user' as const, content: `Observation: ${o}` },
    ]),
  ];
  for (const c of conditions) {
    const scores = await model.scoreMany(c, cands);
    scored += scores.length;
    scores.forEach((s, j) => kept.push({ context: c, cand: cands[j], logprob: s.logprob }));
  }
}
const seconds = (performance.now() - t1) / 1000;
const st = model.stats();
console.log(
  `\n2. probe-shaped scoring: ${items} items × ${1 + obs.length} conditions × ${cands.length} candidates = ${scored} scores in ${seconds.toFixed(2)} s (${(scored / seconds).toFixed(1)} scores/s)`,
);
console.log(
  `   tokens pushed ${st.forwardTokens} vs naive ${st.naiveTokens}: cache saving ${(100 * (1 - st.forwardTokens / st.naiveTokens)).toFixed(1)}% in ${st.forwardCalls} decode calls; underflow clamps ${st.underflowClamps}`,
);
let maxDiff = 0;
const step = Math.max(1, Math.floor(kept.length / 24));
let checked = 0;
for (let i = 0; i < kept.length; i += step) {
  const k = kept[i];
  const c = (await model.renderPrompt(k.context)).tokens as Token[];
  const t = (await model.tokenize(k.cand)) as Token[];
  const fresh = await rt.lock.run(() => rt.scoreFresh(c, t));
  maxDiff = Math.max(maxDiff, Math.abs(fresh - k.logprob));
  checked++;
}
console.log(`   cached vs one fresh forward on ${checked} of them: max |Δ| = ${fmt(maxDiff)} nats (verification tolerance 1e-3)`);

// ---- 3. generation -----------------------------------------------------------------------------
const prompt = (await model.renderPrompt([{ role: 'user', content: 'read the file and write the note' }])).tokens;
for (const [label, banned] of [
  ['no ban', [] as string[]],
  ['ban list of 8 strings', ['the note', 'write', 'read_file(path="x")', 'call', 'tool', 'model', 'pe', 'draft']],
] as const) {
  model.resetStats();
  const t2 = performance.now();
  let n = 0;
  let masked = 0;
  for (let r = 0; r < 5; r++) {
    await rt.lock.run(() => rt.sequence.clearHistory());
    const out = await model.generateTokens(prompt, { maxTokens: 48, bannedSequences: [...banned] });
    n += out.tokens.length;
    masked += out.nBannedMasked;
  }
  const s = (performance.now() - t2) / 1000;
  console.log(
    `${label === 'no ban' ? '\n3. ' : '   '}greedy generation, ${label}: ${n} tokens in ${s.toFixed(2)} s (${(n / s).toFixed(0)} tokens/s incl. ${prompt.length}-token prompts), ${masked} mask applications`,
  );
}

await model.close();
await disposeAllGgufRuntimes();
