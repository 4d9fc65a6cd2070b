// Run in a separate process by sim.test.ts: reads [{spec, messages}] as JSON on stdin and prints
// each sim reply's text, in reverse order of the input (so call order differs from the parent's).
import { createModel } from '../../../src/models/index.ts';

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const jobs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{
  spec: string;
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
}>;
const out: string[] = new Array(jobs.length);
for (let i = jobs.length - 1; i >= 0; i--) {
  const m = await createModel(jobs[i].spec);
  out[i] = (await m.generate(jobs[i].messages, { maxTokens: 4096 })).text ?? '';
}
process.stdout.write(JSON.stringify(out));
