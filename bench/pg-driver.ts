// The CPU a process spends loading node-postgres: plainly (`require('pg')`, as revloop did before),
// and through src/store/postgres/pg-driver.ts (compiled, dist/), which keeps pg's Cloudflare check
// from loading Node 20's fetch implementation (undici). Each load is a fresh process (`node -e`, no
// tsx), the two alternating round by round. Prints the median CPU time (user + system, from
// process.cpuUsage around the load, inside the process) of each and the saving. No database is
// needed: nothing connects. (The driver is loaded by a dynamic import, the plain one by require: the
// comparison is, if anything, unfair to the driver.)
//
//   npx tsx bench/pg-driver.ts [--rounds 21]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/core/util/shared-data.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg('rounds', '21'));
const pgPath = createRequire(join(PROJECT_ROOT, 'package.json')).resolve('pg');
// The compiled module (dist/), so no TypeScript loader runs in the measured process.
const driver = join(PROJECT_ROOT, 'dist', 'store', 'postgres', 'pg-driver.js');
// @ts-expect-error: a JavaScript build script without type declarations
const { distState } = (await import('../scripts/build.mjs')) as { distState(): string };
if (!existsSync(driver) || distState() !== 'current') {
  console.log(`bench/pg-driver: dist/ is ${existsSync(driver) ? 'stale' : 'missing'}; run \`npm run build\` first`);
  process.exit(1);
}
const cpu = (body: string) =>
  `const t = process.cpuUsage(); ${body}; const u = process.cpuUsage(t); console.log((u.user + u.system) / 1000);`;
const variants: Record<string, string[]> = {
  "require('pg')": ['-e', cpu(`require(${JSON.stringify(pgPath)})`)],
  'pg-driver.ts': ['--input-type=module', '-e', cpu(`await import(${JSON.stringify(pathToFileURL(driver).href)})`)],
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < rounds; r++)
  for (const [name, args] of Object.entries(variants)) {
    const p = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`${name}: ${p.stderr}`);
    times[name].push(Number(p.stdout.trim()));
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(
  `bench/pg-driver — CPU of loading node-postgres in a fresh process (Node ${process.versions.node}), ${rounds} alternating rounds`,
);
for (const [name, xs] of Object.entries(times))
  console.log(`${name.padEnd(14)}: ${median(xs).toFixed(1)} ms median (min ${Math.min(...xs).toFixed(1)})`);
const plain = median(times["require('pg')"]);
const ours = median(times['pg-driver.ts']);
console.log(
  `pg-driver.ts saves ${(plain - ours).toFixed(1)} ms of CPU per process (${((1 - ours / plain) * 100).toFixed(0)}% of loading pg)`,
);
