// Writes test/verify/fixtures/messy-python.json: the Python + NLTK reference's verdicts on revloop's
// messy model-output benchmark inputs (bench/messy-outputs.ts), as a SHA-256 of the reference's output
// bytes plus per-family row and joint-success counts. No text is stored: the generator is seeded, so
// the test regenerates the same input and compares revloop's output hash. Run by hand (never at test
// time), with Debian's python3-nltk:
//
//   npx tsx scripts/messy-parity-fixture.ts
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { messyJsonl, type MessyOptions } from '../bench/messy-outputs.ts';

export interface MessyParityCase extends Required<MessyOptions> {
  sha256: string;
  families: Record<string, { rows: number; joint: number }>;
}

/** The inputs: the benchmark input itself (targets from ../shared/data), and one needing no shared data. */
export const MESSY_PARITY_INPUTS: Array<Required<MessyOptions>> = [
  { rows: 11_500, seed: 13, targets: 'shared' },
  { rows: 1_500, seed: 7, targets: 'synthetic' },
];

export function familyCounts(output: string): Record<string, { rows: number; joint: number }> {
  const out: Record<string, { rows: number; joint: number }> = {};
  for (const line of output.trimEnd().split('\n')) {
    const r = JSON.parse(line);
    const family = String(r.id).split('-').slice(1).join('-');
    out[family] ??= { rows: 0, joint: 0 };
    out[family].rows++;
    if (r.joint_success === true) out[family].joint++;
  }
  return out;
}

function main(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const python = '/usr/bin/python3';
  const version = spawnSync(python, ['-c', 'import sys, nltk; print(sys.version.split()[0], nltk.__version__)'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${python} with nltk is needed: ${version.stderr}`);
  const [py, nltk] = version.stdout.trim().split(' ');
  const dir = mkdtempSync(join(tmpdir(), 'revloop-messy-fixture-'));
  try {
    const cases: MessyParityCase[] = [];
    for (const opts of MESSY_PARITY_INPUTS) {
      const input = join(dir, 'in.jsonl');
      const output = join(dir, 'out.jsonl');
      writeFileSync(input, messyJsonl(opts));
      const r = spawnSync(python, [join(root, 'scripts', 'verify-reference.py'), input, '-o', output], { stdio: 'inherit' });
      if (r.status !== 0) throw new Error('verify-reference.py failed');
      const bytes = readFileSync(output);
      cases.push({ ...opts, sha256: createHash('sha256').update(bytes).digest('hex'), families: familyCounts(bytes.toString('utf8')) });
    }
    const fixture = {
      generated_by: 'scripts/messy-parity-fixture.ts (scripts/verify-reference.py on bench/messy-outputs.ts inputs)',
      versions: { python: py, nltk },
      cases,
    };
    const path = join(root, 'test', 'verify', 'fixtures', 'messy-python.json');
    writeFileSync(path, JSON.stringify(fixture, null, 1) + '\n');
    process.stderr.write(`wrote ${path}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
