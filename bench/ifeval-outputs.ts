// A `revloop verify --jsonl` input of real IFEval responses: google-research's GPT-4 responses to all
// 541 prompts (instruction_following_eval/data/input_response_data_gpt4_20231107_145030.jsonl at
// 26d8ccdab, SHA-256 0cff1d14…9dcb), each with its input_data.jsonl row's instructions and kwargs
// (../shared/data/ifeval/input_data.jsonl). Responses are matched to rows by prompt text; key 2785,
// whose prompt 26d8ccdab reworded after the responses were made, by line (the files share their order),
// as test/verify/ifeval-gpt4.test.ts does. Written under bench/.out/ (never committed).
//
//   npx tsx bench/ifeval-outputs.ts [--responses FILE] [--repeat N] [--out FILE]
//
// FILE defaults to $REVLOOP_IFEVAL_RESPONSES, else ../shared/data/ifeval/<that name>. `--repeat N`
// writes the 541 rows N times (ids suffixed /2, /3, …) for a longer run.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataFile } from '../src/core/util/shared-data.ts';

export const RESPONSES_NAME = 'input_response_data_gpt4_20231107_145030.jsonl';

/** The responses file: an explicit path, $REVLOOP_IFEVAL_RESPONSES, or the shared data folder; null when none exists. */
export function responsesFile(explicit?: string): string | null {
  const p = explicit ?? (process.env.REVLOOP_IFEVAL_RESPONSES || sharedDataFile('ifeval', RESPONSES_NAME));
  return p && existsSync(p) ? p : null;
}

export function ifevalRows(responsesPath: string, repeat = 1): Array<Record<string, unknown>> {
  const input = sharedDataFile('ifeval', 'input_data.jsonl');
  if (!input) throw new Error('ifeval-outputs: needs ../shared/data/ifeval/input_data.jsonl (or $REVLOOP_SHARED/data)');
  const rows = readFileSync(input, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { key: number; prompt: string; instruction_id_list: string[]; kwargs: unknown[] });
  const responses = readFileSync(responsesPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { prompt: string; response: string });
  if (rows.length !== 541 || responses.length !== 541)
    throw new Error(
      `ifeval-outputs: expected 541 prompts and 541 responses, got ${rows.length} and ${responses.length} (${responsesPath})`,
    );
  const byPrompt = new Map(responses.map((r, i) => [r.prompt, i]));
  // Lines some row's prompt matched; a row without one takes its own line, if that line is unmatched.
  const used = new Set(rows.map((r) => byPrompt.get(r.prompt)).filter((i) => i !== undefined));
  const out: Array<Record<string, unknown>> = [];
  for (let copy = 1; copy <= repeat; copy++) {
    rows.forEach((row, n) => {
      const line = byPrompt.get(row.prompt) ?? n;
      if (!byPrompt.has(row.prompt) && used.has(n)) throw new Error(`ifeval-outputs: key ${row.key} has no response`);
      out.push({
        id: copy === 1 ? String(row.key) : `${row.key}/${copy}`,
        family: 'ifeval',
        instruction_id_list: row.instruction_id_list,
        kwargs: row.kwargs,
        text: responses[line].response,
      });
    });
  }
  return out;
}

function main(argv: string[]): void {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const responses = responsesFile(arg('--responses'));
  if (!responses) throw new Error(`ifeval-outputs: ${RESPONSES_NAME} not found: pass --responses FILE or set REVLOOP_IFEVAL_RESPONSES`);
  const repeat = Number(arg('--repeat') ?? 1);
  const out = arg('--out') ?? fileURLToPath(new URL(`./.out/ifeval-gpt4-x${repeat}.jsonl`, import.meta.url));
  const rows = ifevalRows(responses, repeat);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  process.stderr.write(`ifeval-outputs: ${rows.length} rows → ${out}\n`);
  process.stdout.write(out + '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
