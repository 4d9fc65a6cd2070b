// A `revloop verify --jsonl` input of real model outputs: every draft of every round of COLLIE's
// released gpt-3.5-turbo multi-round log (../shared/data/collie-logs, 1,435 prompts, 2,970 drafts
// over all 13 structures), each with its case's targets from collie_all.jsonl (matched by prompt),
// plus each draft again as an exact-length row with the target and anchors of one of the paper's 480
// exact-length cases (in turn). The texts are the drafts exactly as the model returned them (COLLIE's
// structures are judged on them as given, the paper's families on their stripped form: docs/verify.md).
//
// The file is written under bench/.out/ (never committed: it holds the reference data's texts).
//
//   npx tsx bench/real-outputs.ts [--out FILE] [--no-exact]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataFile } from '../src/core/util/shared-data.ts';

export interface RealRow {
  id: string;
  family: string;
  target?: number;
  anchors?: string[];
  targets?: unknown;
  text: string;
}

const ROUNDS = ['1st_round_text', '2nd_round_text', '3rd_round_text'] as const;

function readJsonl(path: string): any[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

function required(...parts: string[]): string {
  const p = sharedDataFile(...parts);
  if (!p) throw new Error(`real-outputs: needs ../shared/data/${parts.join('/')} (or $REVLOOP_SHARED/data)`);
  return p;
}

/** The rows, in log order: per prompt and round, the structure row then (unless `exact` is false) the exact-length row. */
export function realRows(options: { exact?: boolean } = {}): RealRow[] {
  const log = JSON.parse(readFileSync(required('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json'), 'utf8'));
  const byPrompt = new Map<string, { structure: string; targets: unknown }>();
  for (const r of readJsonl(required('collie', 'collie_all.jsonl'))) byPrompt.set(r.prompt, { structure: r.structure, targets: r.targets });
  const exact = readJsonl(required('paper-cases', 'generation_combined480.jsonl')).map((r) => ({
    target: Number(r.target),
    anchors: r.anchors as string[],
  }));
  const rows: RealRow[] = [];
  let e = 0;
  (log.prompts as string[]).forEach((prompt, i) => {
    const c = byPrompt.get(prompt);
    if (!c) throw new Error(`real-outputs: prompt ${i} of the log is not in collie_all.jsonl`);
    for (const round of ROUNDS) {
      const text = log[round]?.[i];
      if (typeof text !== 'string') continue;
      const id = `log-${i}-${round.slice(0, 3)}`;
      rows.push({ id, family: c.structure, targets: c.targets, text });
      if (options.exact !== false) {
        const x = exact[e++ % exact.length];
        rows.push({ id: `${id}-exact`, family: 'exact-length', target: x.target, anchors: x.anchors, text });
      }
    }
  });
  return rows;
}

export function realJsonl(options: { exact?: boolean } = {}): string {
  return realRows(options)
    .map((r) => JSON.stringify(r))
    .join('\n')
    .concat('\n');
}

/** The default path of the input (bench/.out/real-collie-log.jsonl, or …-no-exact.jsonl). */
export function realPath(options: { exact?: boolean } = {}): string {
  return fileURLToPath(new URL(`./.out/real-collie-log${options.exact === false ? '-no-exact' : ''}.jsonl`, import.meta.url));
}

function main(argv: string[]): void {
  const i = argv.indexOf('--out');
  const exact = !argv.includes('--no-exact');
  const out = i >= 0 ? argv[i + 1] : realPath({ exact });
  const rows = realRows({ exact });
  const jsonl = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, jsonl);
  const counts: Record<string, number> = {};
  let chars = 0;
  for (const r of rows) {
    counts[r.family] = (counts[r.family] ?? 0) + 1;
    chars += [...r.text].length;
  }
  process.stderr.write(
    `real-outputs: ${rows.length} rows (${Object.entries(counts)
      .map(([f, n]) => `${f} ${n}`)
      .join(
        ', ',
      )}), ${(Buffer.byteLength(jsonl) / 1e6).toFixed(2)} MB, ${Math.round(chars / rows.length)} characters per text on average → ${out}\n`,
  );
  process.stdout.write(out + '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
