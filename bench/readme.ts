// `npm run bench:readme`: re-runs the README's benchmark rows and prints each README figure beside
// today's, flagging any that differ by more than 25%. Not a test and not part of CI's pass/fail
// (timing is noisy); its output is what docs/benchmarks.md holds, pasted with the date.
//
//   npx tsx bench/readme.ts [--all] [--only verify,text,…] [--ifeval-checker DIR --ifeval-responses FILE]
//
// Default (short mode, a few minutes on 2 cores): each row's script with fewer rounds or seconds, so
// its figure is the same quantity as the README's with more noise. Rows whose script needs minutes,
// PostgreSQL or a baseline checkout (client-cpu, workers, append-lock, claim, store-copy, analyze,
// report, viewer) are listed with their command and run only with --all. Every
// README value below is checked to be present in README.md as written, so a README edit that is
// not made here too is reported.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const all = argv.includes('--all');
const only = arg('--only')?.split(',');

interface Metric {
  label: string;
  /** The README's figure as written there (checked to be in README.md). */
  readme: string;
  /** The README figure as a range (one number: lo = hi). */
  lo: number;
  hi: number;
  /** Captures today's figure (first group, commas allowed) from the script's output. */
  pattern: RegExp;
}
interface Row {
  name: string;
  /** The README row's command. */
  command: string;
  /** What bench:readme runs (after `npx tsx`); the full command for long rows. */
  short: string[];
  long?: boolean;
  /** The machine state of the README's figures, where the README's table does not say it. */
  state?: string;
  /** An environment variable the row needs (skipped without it). */
  needs?: string;
  timeoutS: number;
  metrics: Metric[];
}

const m = (label: string, readme: string, lo: number, hi: number, pattern: RegExp): Metric => ({ label, readme, lo, hi, pattern });
const checkerArgs =
  arg('--ifeval-checker') && arg('--ifeval-responses')
    ? ['--ifeval-checker', arg('--ifeval-checker')!, '--ifeval-responses', arg('--ifeval-responses')!]
    : [];

const ROWS: Row[] = [
  {
    name: 'verify',
    command: 'npx tsx bench/verify.ts --input all',
    short: ['bench/verify.ts', '--seconds', '1', '--input', 'both'],
    timeoutS: 240,
    metrics: [
      m(
        'COLLIE witnesses, all families (/CPU-s)',
        '107,000–116,000/s overall',
        107000,
        116000,
        /COLLIE witnesses[^\n]*\n(?:[^\n]*\n)*? {2}all\s+\d+\s+([\d,]+)\/s/,
      ),
      m(
        'messy outputs, all families (/CPU-s)',
        'Messy outputs 18,000–27,500/s',
        18000,
        27500,
        /messy model outputs[^\n]*\n(?:[^\n]*\n)*? {2}all\s+\d+\s+([\d,]+)\/s/,
      ),
    ],
  },
  {
    name: 'verify real',
    command: 'npx tsx bench/verify.ts --input real',
    short: ['bench/verify.ts', '--seconds', '1', '--input', 'real'],
    timeoutS: 180,
    metrics: [
      m(
        'short real outputs, all (/CPU-s)',
        'Short real outputs **105,000–113,700/s**',
        105000,
        113700,
        /short real model outputs[^\n]*\n(?:[^\n]*\n)*? {2}all\s+\d+\s+([\d,]+)\/s/,
      ),
    ],
  },
  {
    name: 'verify-e2e',
    command: 'npx tsx bench/verify-e2e.ts',
    short: [
      'bench/verify-e2e.ts',
      '--quick',
      '--input',
      checkerArgs.length || process.env.REVLOOP_IFEVAL_CHECKER ? 'real,messy,ifeval' : 'real,messy',
      ...checkerArgs,
    ],
    timeoutS: 420,
    metrics: [
      m('real outputs vs Python, CPU ×', 'real outputs **2.24×**', 1.55, 2.64, /^ratio real ([\d.]+)× CPU/m),
      m('messy outputs vs Python, CPU ×', 'messy outputs **3.98×**', 3.23, 3.98, /^ratio messy ([\d.]+)× CPU/m),
      m('IFEval vs the official checker, CPU ×', 'IFEval **2.96×**', 2.1, 2.96, /^ratio ifeval ([\d.]+)× CPU/m),
      m('real: ceiling, CPU ×', '3.3–4.9× over five runs', 3.3, 4.9, /^ceiling real ([\d.]+)× CPU/m),
      m('messy: ceiling, CPU ×', '6.31× messy (6.3–6.8×)', 6.3, 6.8, /^ceiling messy ([\d.]+)× CPU/m),
      m('real: a row outside verification (µs)', '5–17 µs over the runs', 5, 17, /^startup real .*outside verification ([\d.]+) µs/m),
      m('real: time to the first row (ms)', '275–363 ms over the runs', 275, 363, /^startup real .*first row (\d+) ms/m),
    ],
  },
  {
    name: 'text',
    command: 'npx tsx bench/text.ts',
    short: ['bench/text.ts'],
    timeoutS: 120,
    metrics: [
      m('sent_tokenize texts/s', '`sent_tokenize` 160,000 texts/s', 160000, 160000, /^sentTokenize \(sentences\)\s+(\d+) texts\/s/m),
      m('word_tokenize texts/s', '`word_tokenize` 67,000 texts/s', 67000, 67000, /^wordTokenize \(tokens\)\s+(\d+) texts\/s/m),
      m('exact-length word counter texts/s', 'word counter 406,000 texts/s', 406000, 406000, /^countWords \(words\)\s+(\d+) texts\/s/m),
    ],
  },
  {
    name: 'engine',
    command: 'npx tsx bench/engine.ts',
    short: ['bench/engine.ts'],
    timeoutS: 180,
    metrics: [m('engine + store ms/round', 'engine + store 0.43–0.52 ms per round', 0.43, 0.52, /engine \+ store ([\d.]+) ms\/round/)],
  },
  {
    name: 'experiments',
    command: 'npx tsx bench/experiments.ts',
    short: ['bench/experiments.ts'],
    timeoutS: 240,
    metrics: [
      m('history overhead × main loop', 'history (5 arms) 1.16×', 1.16, 1.16, /^history[^\n]*\(([\d.]+)× the main loop's\)/m),
      m('crossover overhead × main loop', 'crossover 1.03×', 1.03, 1.03, /^crossover[^\n]*\(([\d.]+)× the main loop's\)/m),
      m('persistence overhead × main loop', 'persistence to revision 32 1.25×', 1.25, 1.25, /^persist[^\n]*\(([\d.]+)× the main loop's\)/m),
    ],
  },
  {
    name: 'http',
    command: 'npx tsx bench/http.ts',
    short: ['bench/http.ts', '--requests', '1500', '--no-ceiling'],
    timeoutS: 120,
    metrics: [m('steady state % of ideal', 'steady state 96% of ideal', 96, 96, /\(a\) steady state: [\d,.]+ req\/s = ([\d.]+)% of ideal/)],
  },
  {
    name: 'pg-driver',
    command: 'npx tsx bench/pg-driver.ts',
    short: ['bench/pg-driver.ts', '--rounds', '7'],
    timeoutS: 120,
    metrics: [
      m("require('pg') ms CPU", 'median 71.6 ms', 71.6, 71.6, /^require\('pg'\)\s*: ([\d.]+) ms median/m),
      m('pg-driver.ts ms CPU', 'against 50.4 ms', 50.4, 50.4, /^pg-driver\.ts\s*: ([\d.]+) ms median/m),
    ],
  },
  {
    name: 'cli-startup',
    command: 'npx tsx bench/cli-startup.ts --rounds 7',
    state: 'load 1.5–1.7 (README, above the start-up table)',
    short: ['bench/cli-startup.ts', '--rounds', '3', '--commands', 'help,verify,verify-c10,run', '--variants', 'after'],
    timeoutS: 180,
    metrics: [
      m('revloop --help, wall median (ms)', '223 ms (216 ms)', 223, 223, /^ {2}help\s+\S[^\n]*?\s(\d+) ms\s+\d+ ms/m),
      m('verify exact-length, wall median (ms)', '250 ms (236 ms)', 250, 250, /^ {2}verify\s{2,}\S[^\n]*?\s(\d+) ms\s+\d+ ms/m),
      m('verify c10, wall median (ms)', '285 ms (241 ms)', 285, 285, /^ {2}verify-c10\s+\S[^\n]*?\s(\d+) ms\s+\d+ ms/m),
      m('run (demo cases), wall median (ms)', '506 ms (414 ms)', 506, 506, /^ {2}run\s+\S[^\n]*?\s(\d+) ms\s+\d+ ms/m),
    ],
  },
  {
    name: 'probe',
    command: 'npx tsx bench/probe.ts',
    short: ['bench/probe.ts'],
    timeoutS: 180,
    metrics: [m('% fewer tokens with prefix reuse', '95.5% fewer tokens', 95.5, 95.5, /prefix reuse saved ([\d.]+)%/)],
  },
  // Long rows: minutes each, PostgreSQL, or a baseline checkout; run with --all.
  {
    name: 'client-cpu',
    command: 'npx tsx bench/client-cpu.ts --cli',
    short: ['bench/client-cpu.ts', '--cli'],
    long: true,
    timeoutS: 1800,
    metrics: [],
  },
  {
    name: 'jit',
    command: 'npx tsx bench/jit.ts',
    short: ['bench/jit.ts'],
    timeoutS: 300,
    metrics: [
      m(
        "Turbofan compilations, V8's defaults",
        'defaults: 97–100 compilations',
        97,
        100,
        /with V8's defaults[^\n]*\n {2}Turbofan: (\d+) compilations/,
      ),
      m(
        'Turbofan compilations, batch flags',
        'batch flags: 26 (207 ms)',
        26,
        26,
        /with the batch flags[^\n]*\n {2}Turbofan: (\d+) compilations/,
      ),
    ],
  },
  {
    name: 'workers',
    command: 'npx tsx bench/workers.ts',
    short: ['bench/workers.ts'],
    long: true,
    needs: 'REVLOOP_BENCH_PG',
    timeoutS: 1200,
    metrics: [],
  },
  {
    name: 'append-lock',
    command: 'npx tsx bench/append-lock.ts',
    short: ['bench/append-lock.ts'],
    long: true,
    needs: 'REVLOOP_BENCH_PG',
    timeoutS: 900,
    metrics: [],
  },
  {
    name: 'claim',
    command: 'npx tsx bench/claim.ts',
    short: ['bench/claim.ts'],
    long: true,
    needs: 'REVLOOP_BENCH_PG',
    timeoutS: 900,
    metrics: [],
  },
  {
    name: 'run-http',
    command: 'npx tsx bench/run-http.ts',
    short: ['bench/run-http.ts', '--no-ceiling'],
    timeoutS: 300,
    metrics: [
      m('steady state % of ideal', '90.1–94.3% of ideal', 90.1, 94.3, /\(a\) steady state: [\d,.]+ generations\/s = ([\d.]+)% of ideal/),
      m('client CPU per generation (ms)', '0.74–1.03 ms CPU per generation', 0.74, 1.03, /= ([\d.]+) ms per generation/),
    ],
  },
  { name: 'store-copy', command: 'npx tsx bench/store-copy.ts', short: ['bench/store-copy.ts'], long: true, timeoutS: 1800, metrics: [] },
  {
    name: 'analyze',
    command: 'npx tsx bench/analyze.ts',
    short: ['bench/analyze.ts'],
    long: true,
    timeoutS: 1800,
    metrics: [m('full analysis, s', '6.6 s (read back 1.3 s', 6.6, 6.6, /^total \(load \+ analyze \+ render[^:]*: ([\d.]+) s/m)],
  },
  { name: 'report', command: 'npx tsx bench/report.ts', short: ['bench/report.ts'], long: true, timeoutS: 1800, metrics: [] },
  { name: 'viewer', command: 'npx tsx bench/viewer.ts', short: ['bench/viewer.ts'], long: true, timeoutS: 1800, metrics: [] },
];

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const num = (s: string): number => Number(s.replace(/,/g, ''));
/** The README table's "measured" cell (the last) of the row that holds `text`. */
function measuredIn(text: string): string | null {
  const line = readme.split('\n').find((l) => l.startsWith('| ') && l.includes(text));
  const cells = line?.split(' | ');
  return cells && cells.length >= 4 ? cells[cells.length - 1].replace(/ \|$/, '') : null;
}
const load0 = loadavg();
console.log(`bench:readme ${all ? '(all rows)' : '(short mode)'}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
console.log(
  `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}; load ${load0.map((x) => x.toFixed(2)).join(' ')} at start`,
);
console.log('');
const print = (...xs: string[]): void => console.log(xs.join('\n'));
let flagged = 0;
for (const row of ROWS) {
  if (only && !only.includes(row.name)) continue;
  if (row.long && !all) {
    print(`${row.name.padEnd(12)} not run in the short mode (minutes${row.needs ? `, needs $${row.needs}` : ''}): ${row.command}`);
    continue;
  }
  if (row.needs && !process.env[row.needs]) {
    print(`${row.name.padEnd(12)} skipped: needs $${row.needs}: ${row.command}`);
    continue;
  }
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ...row.short], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: row.timeoutS * 1000,
    maxBuffer: 64 << 20,
  });
  const seconds = (performance.now() - t0) / 1000;
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  const ran = `npx tsx ${row.short.join(' ')}`;
  const status = r.status === 0 ? '' : ` — exit ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}`;
  print(`${row.name.padEnd(12)} ${ran}  (${seconds.toFixed(0)} s, load ${loadavg()[0].toFixed(2)} after)${status}`);
  if (r.status !== 0)
    print(
      ...out
        .trim()
        .split('\n')
        .slice(-4)
        .map((l) => `    ${l}`),
    );
  const state = row.state ?? (row.metrics.length ? measuredIn(row.metrics[0].readme) : null);
  if (state) print(`    README figures measured: ${state}`);
  for (const x of row.metrics) {
    const found = x.pattern.exec(out);
    const today = found ? num(found[1]) : NaN;
    const inReadme = readme.includes(x.readme);
    let verdict: string;
    if (Number.isNaN(today)) verdict = 'not in the output';
    else {
      const off = today < x.lo ? (x.lo - today) / x.lo : today > x.hi ? (today - x.hi) / x.hi : 0;
      verdict =
        off > 0.25 ? `DIFFERS by ${(off * 100).toFixed(0)}%` : off > 0 ? `within 25% (${(off * 100).toFixed(0)}% off)` : 'within the range';
      if (off > 0.25) flagged++;
    }
    const readmeText = inReadme ? x.readme : `${x.readme} (NOT IN README.md)`;
    print(
      `    ${x.label.padEnd(42)} README ${readmeText.padEnd(36)} today ${Number.isNaN(today) ? '?' : String(today).padStart(8)}   ${verdict}`,
    );
  }
}
console.log('');
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} at end; ${flagged} figure${flagged === 1 ? '' : 's'} differ${flagged === 1 ? 's' : ''} from the README by more than 25%` +
    (all ? '' : '; long rows not run (--all)'),
);
