// Whole-process verification, side by side: the Python + NLTK reference (scripts/verify-reference.py,
// Debian's python3-nltk) against `revloop verify --jsonl IN -o OUT`, through the compiled CLI (dist/)
// and through tsx (bin/revloop.mjs in a checkout), on the messy model-output input of
// bench/messy-outputs.ts. Every command is a fresh process, timed from spawn to exit (wall) and by
// its CPU time (user + system, from /usr/bin/time when present); rounds alternate the commands so
// load from other work on the machine hits them alike. Every output must be byte-identical to
// Python's, or the script exits 1.
//
//   npx tsx bench/verify-e2e.ts [--rounds 3] [--rows 11500] [--seed 13] [--targets shared|synthetic]
//                               [--jobs default,1,2] [--no-tsx] [--python /usr/bin/python3]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { messyJsonl, DEFAULT_ROWS, DEFAULT_SEED, type TargetSource } from './messy-outputs.ts';
import { idleCores } from '../src/core/verify/batch-threads.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', '.out');
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const rounds = Number(arg('--rounds', '3'));
const rows = Number(arg('--rows', String(DEFAULT_ROWS)));
const seed = Number(arg('--seed', String(DEFAULT_SEED)));
const targets = arg('--targets', 'shared') as TargetSource;
const jobsList = arg('--jobs', 'default,1,2').split(',').filter(Boolean);
const python = arg('--python', '/usr/bin/python3');
const withTsx = !argv.includes('--no-tsx');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

mkdirSync(OUT, { recursive: true });
const input = join(OUT, `messy-${targets}-${rows}-s${seed}.jsonl`);
if (!existsSync(input)) writeFileSync(input, messyJsonl({ rows, seed, targets }));
const inputBytes = readFileSync(input).length;

// The compiled CLI must be current: a stale dist/ would measure other code.
const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

interface Command {
  label: string;
  argv: string[];
  walls: number[];
  cpus: number[];
  out: string;
}

const commands: Command[] = [];
const add = (label: string, args: string[], out: string) => commands.push({ label, argv: args, walls: [], cpus: [], out });
const pyOut = join(OUT, 'e2e-python.jsonl');
add('python + NLTK (reference)', [python, join(ROOT, 'scripts', 'verify-reference.py'), input, '-o', pyOut], pyOut);
for (const jobs of jobsList) {
  const out = join(OUT, `e2e-dist-${jobs}.jsonl`);
  const extra = jobs === 'default' ? [] : ['--jobs', jobs];
  add(
    `revloop dist/${jobs === 'default' ? ' (default jobs)' : ` --jobs ${jobs}`}`,
    [process.execPath, join(ROOT, 'bench', 'revloop-dist.mjs'), 'verify', '--jsonl', input, '-o', out, ...extra],
    out,
  );
}
if (withTsx) {
  const out = join(OUT, 'e2e-tsx.jsonl');
  add('revloop via tsx (npx revloop)', [process.execPath, join(ROOT, 'bin', 'revloop.mjs'), 'verify', '--jsonl', input, '-o', out], out);
}

function run(c: Command): void {
  rmSync(c.out, { force: true });
  const timeFile = join(OUT, 'e2e-time.txt');
  const full = TIME ? [TIME, '-f', '%U %S', '-o', timeFile, ...c.argv] : c.argv;
  const t0 = performance.now();
  const r = spawnSync(full[0], full.slice(1), { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    process.stderr.write(`${c.label}: exit ${r.status ?? r.signal}\n${r.stderr}`);
    process.exit(1);
  }
  c.walls.push(wall);
  if (TIME) {
    const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    c.cpus.push(user + sys);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

const load0 = loadavg()[0];
console.log(
  `verify end to end: ${rows} messy model outputs (${(inputBytes / 1e6).toFixed(1)} MB, seed ${seed}, ${targets} targets), ` +
    `${rounds} rounds, Node ${process.version}, ${cpus().length} cores, load ${load0.toFixed(2)} at start`,
);
console.log(`  revloop's default --jobs is the idle cores (cores − whole 1-minute load, at least 1): ${idleCores()} now`);
for (let r = 0; r < rounds; r++) for (const c of commands) run(c);

const reference = sha(pyOut);
let identical = true;
const py = commands[0];
console.log('  command                          wall (median)   CPU (median)   lines/s (wall)   vs Python: wall   CPU   output');
for (const c of commands) {
  const wall = median(c.walls);
  const cpu = c.cpus.length ? median(c.cpus) : NaN;
  const same = sha(c.out) === reference;
  identical &&= same;
  console.log(
    `  ${c.label.padEnd(32)} ${wall.toFixed(2).padStart(8)} s ${Number.isNaN(cpu) ? '       n/a' : cpu.toFixed(2).padStart(10) + ' s'}` +
      `   ${Math.round(rows / wall)
        .toLocaleString('en-US')
        .padStart(12)}   ${(median(py.walls) / wall).toFixed(2).padStart(13)}×` +
      ` ${Number.isNaN(cpu) ? '  n/a' : (median(py.cpus) / cpu).toFixed(2).padStart(5) + '×'}   ${same ? 'identical' : 'DIFFERS'}`,
  );
}
console.log(
  `  all runs: ${commands.map((c) => `${c.label.split(' (')[0]}: ${c.walls.map((w) => w.toFixed(2)).join(' ')}`).join('; ')} (wall, s)`,
);
console.log(`  load ${loadavg()[0].toFixed(2)} at end; output sha256 ${reference.slice(0, 16)}…`);
if (!identical) {
  console.error('verify-e2e: an output differs from the Python reference');
  process.exit(1);
}
