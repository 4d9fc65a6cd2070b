// Writes the project's tiny random-weight llama GGUF (F32, < 1 MB) for tests and demos.
//   npx tsx scripts/make-tiny-gguf.ts [out.gguf] [--seed N] [--no-template]
// Without an output path it writes into the git-ignored test/.tmp/ folder. The weights are
// random, so the model's text is meaningless; it exists to exercise the real llama.cpp code paths.
import { join } from 'node:path';
import { writeTinyLlamaGguf, TINY_MODEL_DIR } from '../src/test/tiny-model.ts';

const args = process.argv.slice(2);
const seedAt = args.indexOf('--seed');
const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : undefined;
if (seedAt >= 0 && !Number.isInteger(seed)) {
  process.stderr.write(`make-tiny-gguf: --seed needs an integer, got ${JSON.stringify(args[seedAt + 1])}\n`);
  process.exit(2);
}
const positional = args.filter((a, i) => !a.startsWith('--') && !(seedAt >= 0 && i === seedAt + 1));
const out = positional[0] ?? join(TINY_MODEL_DIR, 'tiny-llama.gguf');
const written = writeTinyLlamaGguf(out, {
  ...(seed !== undefined ? { seed } : {}),
  ...(args.includes('--no-template') ? { chatTemplate: null } : {}),
});
process.stdout.write(`wrote ${written.path}\n  ${written.bytes} bytes, sha256 ${written.sha256}\n  use it as: gguf:${written.path}\n`);
