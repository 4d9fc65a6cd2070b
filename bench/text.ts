// Throughput of the text module over the COLLIE witnesses (../shared/data/collie/collie_all.jsonl):
// sentTokenize, wordTokenize, countWords and a c10-style pass (word_tokenize of every sentence).
// Run: npx tsx bench/text.ts [--rounds N]
import { readFileSync } from 'node:fs';
import { countWords, getDefaultPunkt, sentTokenize, wordTokenize } from '../src/core/text/index.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';

const path = sharedDataFile('collie', 'collie_all.jsonl');
if (!path) {
  console.error('bench/text.ts needs ../shared/data/collie/collie_all.jsonl (or $REVLOOP_SHARED/data)');
  process.exit(1);
}
const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;
const texts = readFileSync(path, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l).witness as string);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
const params = getDefaultPunkt();

function measure(label: string, fn: (t: string) => number): void {
  for (const t of texts) fn(t); // warm-up
  let units = 0;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of texts) units += fn(t);
  const s = (performance.now() - t0) / 1000;
  const n = texts.length * rounds;
  console.log(
    `${label.padEnd(34)} ${(n / s).toFixed(0).padStart(7)} texts/s  ${(units / s).toFixed(0).padStart(9)} units/s  ${((bytes * rounds) / s / 1e6).toFixed(2).padStart(6)} MB/s`,
  );
}

console.log(`${texts.length} COLLIE witnesses, ${(bytes / 1e6).toFixed(2)} MB, ${rounds} rounds, Punkt from ${params.source}`);
console.log(`node ${process.version}, one thread; units = sentences / tokens / words as named`);
measure('sentTokenize (sentences)', (t) => sentTokenize(t, params).length);
measure('wordTokenize (tokens)', (t) => wordTokenize(t, params).length);
measure('countWords (words)', (t) => countWords(t));
measure('c10 pass: sentences + words each (tokens)', (t) => {
  let n = 0;
  for (const s of sentTokenize(t, params)) n += wordTokenize(s, params).length;
  return n;
});
