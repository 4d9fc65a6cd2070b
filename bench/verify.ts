// In-process verification throughput, per family, on one thread (one core), on two inputs:
//   collie  every COLLIE witness (../shared/data/collie/collie_all.jsonl): each c05/c07/c09/c10/c12
//           witness under its own family, and every witness (all 2,080) under exact-length with
//           target = its own word count and up to 4 anchors taken from its words;
//   messy   the 11,500 messy model outputs of bench/messy-outputs.ts (seed 13, targets from
//           ../shared/data): preambles, Markdown, quotes, long rambling answers, over all six families.
//   long    the other COLLIE structures (c01 c02 c03 c04 c06a c08 c11 c14) and IFEval (all 541 prompts of
//           ../shared/data/ifeval/input_data.jsonl) on long outputs: each text is a witness followed by
//           other witnesses until it has at least 8,000 characters;
//   real    short real model outputs: every draft of COLLIE's released gpt-3.5-turbo log under its
//           case's structure, and each again as an exact-length row (bench/real-outputs.ts), each text
//           as its family's text rule has it (src/core/verify/text-rule.ts).
// Run: npx tsx bench/verify.ts [--seconds S] [--input collie|messy|both|long|real|all] (default both)
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { countWords, getDefaultPunkt, wordMatches } from '../src/core/text/index.ts';
import { pyStrip } from '../src/core/py/format.ts';
import { getFamily, type ConstraintCase, type Family } from '../src/core/verify/index.ts';
import { caseFromRequest } from '../src/core/verify/input.ts';
import { messyRows } from './messy-outputs.ts';
import { realRows } from './real-outputs.ts';
import { textToVerify } from '../src/core/verify/text-rule.ts';

interface Job {
  family: Family;
  case: ConstraintCase;
  text: string;
  bytes: number;
}

const path = sharedDataFile('collie', 'collie_all.jsonl');
if (!path) {
  console.error('bench/verify: ../shared/data/collie/collie_all.jsonl not found (set REVLOOP_SHARED); nothing measured');
  process.exit(1);
}
const secondsArg = process.argv.indexOf('--seconds');
const minSeconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 3;
const inputArg = process.argv.indexOf('--input');
const which = inputArg > 0 ? process.argv[inputArg + 1] : 'both';
if (!['collie', 'messy', 'both', 'long', 'real', 'all'].includes(which)) {
  console.error(`bench/verify: --input must be collie, messy, both, long, real or all, got ${which}`);
  process.exit(2);
}

getDefaultPunkt(); // load the parameters outside the timed region

function collieJobs(): Job[] {
  const rows = readFileSync(path!, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const jobs: Job[] = [];
  for (const row of rows) {
    const bytes = Buffer.byteLength(row.witness, 'utf8');
    if (['c05', 'c07', 'c09', 'c10', 'c12'].includes(row.structure)) {
      jobs.push({
        family: getFamily(row.structure),
        case: { id: row.id, family: row.structure, source: row.source, targets: row.targets, witness: row.witness },
        text: row.witness,
        bytes,
      });
    }
    const words = wordMatches(row.witness);
    const step = Math.max(1, Math.floor(words.length / 4));
    const anchors = [...new Set(words.filter((_, i) => i % step === 0))].slice(0, 4);
    jobs.push({
      family: getFamily('exact-length'),
      case: { id: row.id, family: 'exact-length', source: row.source, target: countWords(row.witness), anchors },
      text: row.witness,
      bytes,
    });
  }
  return jobs;
}

/** The messy model outputs, each under the family its row names (the text stripped, as `revloop verify` does). */
function messyJobs(): Job[] {
  return messyRows().map((row) => {
    const built = caseFromRequest(row as never);
    if (!built.ok) throw new Error(`messy row ${row.id}: ${JSON.stringify(built.problems)}`);
    const text = pyStrip(row.text);
    return { family: built.family, case: built.case, text, bytes: Buffer.byteLength(text, 'utf8') };
  });
}

/** The real model outputs of bench/real-outputs.ts, each under its family, its text as the family's rule has it. */
function realJobs(): Job[] {
  return realRows().map((row) => {
    const built = caseFromRequest(row as never);
    if (!built.ok) throw new Error(`real row ${row.id}: ${JSON.stringify(built.problems)}`);
    const text = textToVerify(built.family, row.text);
    return { family: built.family, case: built.case, text, bytes: Buffer.byteLength(text, 'utf8') };
  });
}

function pass(selected: Job[]): number {
  let joint = 0;
  for (const j of selected) if (j.family.verify(j.text, j.case).joint_success) joint++;
  return joint;
}

interface Rate {
  perSec: number;
  mbPerSec: number;
  perCpuSec: number;
  mbPerCpuSec: number;
  joint: number;
  coldPerSec: number;
}

/** Seconds of CPU this process has used (user + system): the machine may be shared. */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function measure(selected: Job[]): Rate {
  const bytes = selected.reduce((n, j) => n + j.bytes, 0);
  // Cold pass: first verification of every case (anchor patterns built, JIT not yet warm). A second
  // warm-up pass follows because V8 compiles a regexp to native code on its second execution, and
  // every exact-length case has its own anchor patterns (in a run each case is verified every round).
  const c0 = performance.now();
  pass(selected);
  const coldPerSec = selected.length / ((performance.now() - c0) / 1000);
  pass(selected);
  let passes = 0;
  let joint = 0;
  const t0 = performance.now();
  const cpu0 = cpuSeconds();
  let elapsed = 0;
  while (elapsed < minSeconds * 1000 || passes < 2) {
    joint = pass(selected);
    passes++;
    elapsed = performance.now() - t0;
  }
  const wall = elapsed / 1000;
  const cpu = cpuSeconds() - cpu0;
  const n = selected.length * passes;
  return {
    perSec: n / wall,
    mbPerSec: (bytes * passes) / wall / 1e6,
    perCpuSec: n / cpu,
    mbPerCpuSec: (bytes * passes) / cpu / 1e6,
    joint,
    coldPerSec,
  };
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(8);
const line = (label: string, count: number, r: Rate, extra = '') =>
  `  ${label.padEnd(13)} ${String(count).padStart(5)}  ${fmt(r.perCpuSec)}/s  ${r.mbPerCpuSec.toFixed(2).padStart(5)} MB/s  | wall ${fmt(r.perSec)}/s ${r.mbPerSec.toFixed(2).padStart(5)} MB/s | cold ${fmt(r.coldPerSec)}/s${extra}`;

function report(title: string, jobs: Job[], target: string, families = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12']): void {
  const mb = jobs.reduce((n, j) => n + j.bytes, 0) / 1e6;
  console.log(`${title}: ${jobs.length} verifications per pass (${mb.toFixed(1)} MB of text), Node ${process.version}, one thread`);
  console.log('  steady-state rates per CPU-second of this process (after two warm-up passes), then wall-clock rates, then the');
  console.log('  first ("cold") pass, which includes building every anchor pattern and JIT warm-up');
  console.log('  family         texts  verifications/s  text MB/s');
  for (const g of families) {
    const sel = jobs.filter((j) => j.family.name === g);
    if (sel.length === 0) continue;
    const r = measure(sel);
    console.log(line(g, sel.length, r, `  (joint ${r.joint}/${sel.length})`));
  }
  const structuredJobs = jobs.filter((j) => j.family.name !== 'exact-length');
  console.log(line('structured', structuredJobs.length, measure(structuredJobs)));
  console.log(line('all', jobs.length, measure(jobs), target));
}

function longOutputs(): void {
  const rows = readFileSync(path!, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; structure: string; source: string; witness: string; targets: unknown });
  const LONG_CHARS = 8000;
  function longText(start: string, i: number): string {
    let text = start;
    for (let k = 1; text.length < LONG_CHARS; k++) text += '\n\n' + rows[(i + k * 37) % rows.length].witness;
    return text;
  }
  const longJobs: Job[] = [];
  rows.forEach((row, i) => {
    if (['c05', 'c07', 'c09', 'c10', 'c12'].includes(row.structure)) return;
    const text = longText(row.witness, i);
    longJobs.push({
      family: getFamily(row.structure),
      case: { id: row.id, family: row.structure, source: row.source, targets: row.targets },
      text,
      bytes: Buffer.byteLength(text, 'utf8'),
    });
  });
  const ifevalPath = sharedDataFile('ifeval', 'input_data.jsonl');
  if (ifevalPath) {
    readFileSync(ifevalPath, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .forEach((l, i) => {
        const r = JSON.parse(l);
        // A long answer with some markdown, so the format checks have something to scan.
        const text = `<<Answer>>\n* first point\n* second point\n${longText(rows[i].witness, i)}\n\nP.S. *done*`;
        longJobs.push({
          family: getFamily('ifeval'),
          case: {
            id: `ifeval__${r.key}`,
            family: 'ifeval',
            source: 'ifeval',
            task: r.prompt,
            targets: { instruction_id_list: r.instruction_id_list, kwargs: r.kwargs },
          },
          text,
          bytes: Buffer.byteLength(text, 'utf8'),
        });
      });
  } else console.log('  (../shared/data/ifeval/input_data.jsonl not found: IFEval skipped)');
  const meanChars = Math.round(longJobs.reduce((n, j) => n + j.text.length, 0) / Math.max(1, longJobs.length));
  console.log(`\nlong outputs (mean ${meanChars.toLocaleString('en-US')} characters per text)`);
  for (const g of ['c01', 'c02', 'c03', 'c04', 'c06a', 'c08', 'c11', 'c14', 'ifeval']) {
    const sel = longJobs.filter((j) => j.family.name === g);
    if (!sel.length) continue;
    const r = measure(sel);
    console.log(line(g, sel.length, r, `  (joint ${r.joint}/${sel.length})`));
  }
}

if (which === 'collie' || which === 'both' || which === 'all') report('COLLIE witnesses', collieJobs(), '  (target >= 20,000/s)');
if (which === 'messy' || which === 'both' || which === 'all')
  report('messy model outputs (bench/messy-outputs.ts)', messyJobs(), '  (stretch target 100,000/s)');
if (which === 'long' || which === 'all') longOutputs();
if (which === 'real' || which === 'all') {
  const jobs = realJobs();
  const mean = Math.round(jobs.reduce((n, j) => n + [...j.text].length, 0) / jobs.length);
  report(`\nshort real model outputs (bench/real-outputs.ts, ${mean} characters per text on average)`, jobs, '  (target 100,000/s)', [
    ...new Set(jobs.map((j) => j.family.name)),
  ]);
}
