// Whole-process times of the revloop CLI, before and after the compiled default path:
//   before  the sources through tsx, as `npx revloop` in a checkout ran until the compiled CLI became
//           the default (today: `npm run dev -- …`, i.e. REVLOOP_FROM_SOURCE=1 node bin/revloop.mjs);
//   after   `node bin/revloop.mjs` in this checkout: the staleness check, then dist/ (built here if stale);
//   dist    the compiled CLI without the check, as an installed package's bin runs it (bench/revloop-dist.mjs);
//   npx     `npx --no revloop …` in the checkout (npm starts first, then revloop in a second process);
//   npm-exec `npm exec --no --prefix CHECKOUT revloop -- …` from another folder (as the README offers).
// (`revloop` on PATH after `npm link` is a link to bin/revloop.mjs: the `after` variant.)
// Each command runs as a fresh process, the variants alternating round by round so load from other
// work hits them alike; `node -e 0` (Node's own start-up, the floor) runs in every round too. Prints
// the median and the fastest wall time, the median CPU time (user + system, all threads, from
// /usr/bin/time when present), and the before/after ratios. Commands:
//   help        revloop --help
//   verify      revloop verify --family exact-length --target 12 --anchors IPO --text-file T (one text)
//   verify-c10  revloop verify --family c10 --targets '[3, 5, 20]' --text-file T (loads Punkt)
//   demo        revloop demo --out-dir DIR (30 cases, three simulated controllers, store and report)
//   run         revloop run --cases <the demo's cases> --model sim:steady --store NEW.db
//   analyze     revloop analyze --store <a demo store> --no-progress (20,000 bootstrap resamples)
//   report      revloop report --store <a demo store> -o R.html --no-progress
//
//   npx tsx bench/cli-startup.ts [--rounds 7] [--commands help,verify,…] [--variants before,after,dist,npx,npm-exec]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const ALL = ['help', 'verify', 'verify-c10', 'demo', 'run', 'analyze', 'report'];
const rounds = Number(arg('--rounds', '7'));
const wanted = arg('--commands', ALL.join(',')).split(',').filter(Boolean);
const variants = arg('--variants', 'before,after,dist').split(',').filter(Boolean);
for (const v of variants)
  if (!['before', 'after', 'dist', 'npx', 'npm-exec'].includes(v)) throw new Error(`--variants: unknown variant ${v}`);
for (const c of wanted) if (!ALL.includes(c)) throw new Error(`--commands: unknown command ${c}; use ${ALL.join(', ')}`);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

// The compiled CLI must be current: a stale dist/ would measure other code (and the launcher would
// run the sources instead).
const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const work = mkdtempSync(join(tmpdir(), 'revloop-cli-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const text = join(work, 'draft.txt');
writeFileSync(text, 'An IPO is when a private company first sells its shares to the public. It is a big step.\n');

const NODE = [process.execPath];
const LAUNCH: Record<string, { label: string; argv: string[]; env: NodeJS.ProcessEnv; cwd?: string }> = {
  before: { label: 'before (tsx)', argv: [...NODE, join(ROOT, 'bin', 'revloop.mjs')], env: { REVLOOP_FROM_SOURCE: '1' } },
  after: { label: 'after (bin → dist/)', argv: [...NODE, join(ROOT, 'bin', 'revloop.mjs')], env: {} },
  dist: { label: 'dist/ (installed)', argv: [...NODE, join(ROOT, 'bench', 'revloop-dist.mjs')], env: {} },
  // --no: never ask the registry for a package.
  npx: { label: 'npx revloop', argv: ['npx', '--no', 'revloop'], env: {}, cwd: ROOT },
  'npm-exec': { label: 'npm exec --prefix', argv: ['npm', 'exec', '--no', '--prefix', ROOT, 'revloop', '--'], env: {} },
};

function exec(args: string[], env: NodeJS.ProcessEnv = {}, cwd = work): { wall: number; cpu: number } {
  const timeFile = join(work, 'time.txt');
  const full = TIME ? [TIME, '-f', '%U %S', '-o', timeFile, ...args] : args;
  const childEnv = { ...process.env, ...env };
  if (!('REVLOOP_FROM_SOURCE' in env)) delete childEnv.REVLOOP_FROM_SOURCE;
  const t0 = performance.now();
  const r = spawnSync(full[0], full.slice(1), { cwd, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status ?? r.signal}\n${r.stderr}`);
  if (r.stderr.includes('dist/ is stale') || r.stderr.includes('dist/ is missing'))
    throw new Error(`the launcher did not run dist/:\n${r.stderr}`);
  let cpu = NaN;
  if (TIME) {
    const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    cpu = user + sys;
  }
  return { wall, cpu };
}

// A demo store and its case file for run, analyze and report (made once, through dist/).
const setup = join(work, 'setup');
if (wanted.some((c) => ['run', 'analyze', 'report'].includes(c))) exec([...LAUNCH.dist.argv, 'demo', '--out-dir', setup]);

let n = 0;
const fresh = (): string => join(work, `o${n++}`);
const COMMANDS: Record<string, () => string[]> = {
  help: () => ['--help'],
  verify: () => ['verify', '--family', 'exact-length', '--target', '12', '--anchors', 'IPO', '--text-file', text],
  'verify-c10': () => ['verify', '--family', 'c10', '--targets', '[3, 5, 20]', '--text-file', text],
  demo: () => ['demo', '--out-dir', fresh()],
  run: () => ['run', '--cases', join(setup, 'demo-cases.jsonl'), '--model', 'sim:steady', '--store', `${fresh()}.db`],
  analyze: () => ['analyze', '--store', join(setup, 'demo.db'), '--no-progress'],
  report: () => ['report', '--store', join(setup, 'demo.db'), '-o', `${fresh()}.html`, '--no-progress'],
};

interface Series {
  walls: number[];
  cpus: number[];
}
const results = new Map<string, Series>();
const series = (key: string): Series => {
  if (!results.has(key)) results.set(key, { walls: [], cpus: [] });
  return results.get(key)!;
};

const load0 = loadavg()[0];
console.log(
  `revloop CLI, whole processes: ${rounds} rounds, Node ${process.version}, ${cpus().length} cores, load ${load0.toFixed(2)} at start`,
);
for (let r = 0; r < rounds; r++) {
  const floor = exec([process.execPath, '-e', '0']);
  series('floor').walls.push(floor.wall);
  series('floor').cpus.push(floor.cpu);
  for (const c of wanted) {
    for (const v of variants) {
      const t = exec([...LAUNCH[v].argv, ...COMMANDS[c]()], LAUNCH[v].env, LAUNCH[v].cwd);
      series(`${c} ${v}`).walls.push(t.wall);
      series(`${c} ${v}`).cpus.push(t.cpu);
    }
  }
  // What demo, run and report wrote this round.
  for (const name of readdirSync(work)) if (/^o\d+/.test(name)) rmSync(join(work, name), { recursive: true, force: true });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (s: number): string => (Number.isNaN(s) ? 'n/a' : s < 10 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(1)} s`);
const pad = (s: string, w: number): string => s.padStart(w);
console.log('  command      variant               wall median   wall fastest   CPU median   before/after: wall   CPU');
const floor = results.get('floor')!;
console.log(
  `  node -e 0    (Node's own start-up) ${pad(ms(median(floor.walls)), 11)} ${pad(ms(Math.min(...floor.walls)), 14)} ${pad(ms(median(floor.cpus)), 12)}`,
);
for (const c of wanted) {
  const before = results.get(`${c} before`);
  for (const v of variants) {
    const s = results.get(`${c} ${v}`)!;
    const ratio =
      before && v !== 'before'
        ? `${pad((median(before.walls) / median(s.walls)).toFixed(1) + '×', 20)} ${pad((median(before.cpus) / median(s.cpus)).toFixed(1) + '×', 5)}`
        : '';
    console.log(
      `  ${c.padEnd(12)} ${LAUNCH[v].label.padEnd(21)} ${pad(ms(median(s.walls)), 11)} ${pad(ms(Math.min(...s.walls)), 14)} ${pad(ms(median(s.cpus)), 12)} ${ratio}`,
    );
  }
}
// How much each launcher adds to `node bin/revloop.mjs` (what a `revloop` on PATH runs).
for (const c of wanted) {
  const after = results.get(`${c} after`);
  if (!after) continue;
  for (const v of variants.filter((x) => x === 'npx' || x === 'npm-exec')) {
    const s = results.get(`${c} ${v}`)!;
    console.log(
      `  ${c} ${LAUNCH[v].label} against node bin/revloop.mjs: ${(median(s.walls) / median(after.walls)).toFixed(1)}× the wall time, ` +
        `+${ms(median(s.walls) - median(after.walls))} wall, +${ms(median(s.cpus) - median(after.cpus))} CPU (medians)`,
    );
  }
}
console.log(`  load ${loadavg()[0].toFixed(2)} at end`);
