// The warm speed of a whole `verify --jsonl` batch, for bench/verify-e2e.ts's ceiling line: one fresh
// process runs the same batch PASSES times through the compiled library (dist/, the code the CLI
// calls, with the CLI's batch V8 flags, on one thread) and prints each pass's CPU (user + system, all
// threads: V8's compiler threads included) as JSON, with the CPU the process had used when the
// library's modules were loaded (Node's own start included). The first pass runs cold, as a user's
// process does; the later ones run the code V8 has already optimised.
//
//   node bench/verify-warm.mjs IN OUT [PASSES]   (after `npm run build`)
import { verifyBatchToFile } from '../dist/core/verify/index.js';
import { tuneV8ForBatch } from '../dist/cli/jit.js';

const [input, output, passes = '3'] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: node bench/verify-warm.mjs IN OUT [PASSES]\n');
  process.exit(2);
}
const loaded = process.cpuUsage();
tuneV8ForBatch();
const cpus = [];
for (let i = 0; i < Number(passes); i++) {
  const before = process.cpuUsage();
  await verifyBatchToFile(input, output, { jobs: 1 });
  const used = process.cpuUsage(before);
  cpus.push((used.user + used.system) / 1e6);
}
process.stdout.write(JSON.stringify({ loaded: (loaded.user + loaded.system) / 1e6, cpus }) + '\n');
