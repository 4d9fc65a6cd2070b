// The paper's stop rule (stop at the first joint success) on a real model's revision log: COLLIE's
// released gpt-3.5-turbo multi-round log generated every round for every prompt, successful or
// not, so it shows what the stop rule saves and what going on after a success costs. Every draft is
// verified with revloop's COLLIE verifiers (the same verdicts as COLLIE's own checker on this log,
// test/verify/collie-official.test.ts). Real model data; nothing here is simulated.
//
//   npx tsx bench/collie-stop-rule.ts [LOG] [--collie collie_all.jsonl] [--json out.json]
//
// Default LOG: ../shared/data/collie-logs/gpt-3.5-turbo-multi-round-generation-1trial.json.
import { writeFileSync } from 'node:fs';
import { convertCollieLog } from '../src/studies/revision/collie-log.ts';
import { parseImportLines } from '../src/studies/revision/import.ts';
import { getFamily } from '../src/core/verify/registry.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { pyStrip } from '../src/core/py/format.ts';
import { mcnemarExact } from '../src/core/stats/binomial.ts';
import { newcombePairedDifference } from '../src/core/stats/paired-difference.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const positional = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
const log = positional[0] ?? sharedDataFile('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');
const collie = arg('--collie') ?? sharedDataFile('collie', 'collie_all.jsonl');
if (!log || !collie) {
  console.error('bench/collie-stop-rule: the COLLIE log or collie_all.jsonl was not found (give LOG and --collie)');
  process.exit(2);
}

const conv = await convertCollieLog(log, collie);
const parsed = parseImportLines(
  conv.lines.map((value, i) => ({ line: i + 1, value })),
  log,
  getFamily,
);
let drafts = 0;
let stopDrafts = 0;
let ever = 0;
let final = 0;
let both = 0;
let everOnly = 0;
let finalOnly = 0;
let neither = 0;
let brokenAfterSuccess = 0;
for (const { line, c } of parsed.lines) {
  const family = getFamily(line.family);
  const joint = line.drafts.map((d) => family.verify(pyStrip(d), c).joint_success);
  drafts += joint.length;
  const first = joint.indexOf(true);
  stopDrafts += first < 0 ? joint.length : first + 1;
  const e = first >= 0;
  const f = joint[joint.length - 1];
  if (e) ever++;
  if (f) final++;
  if (e && f) both++;
  else if (e) everOnly++;
  else if (f) finalOnly++;
  else neither++;
  if (e && !f) brokenAfterSuccess++;
}
const n = parsed.lines.length;
const d = newcombePairedDifference({ both, firstOnly: everOnly, secondOnly: finalOnly, neither })!;
const pct = (x: number) => `${((100 * x) / n).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const result = {
  log,
  model: 'gpt-3.5-turbo (recorded outputs, real model data)',
  trajectories: n,
  drafts_generated: drafts,
  drafts_with_stop_rule: stopDrafts,
  generations_saved: drafts - stopDrafts,
  success_with_stop_rule: ever,
  success_of_last_draft: final,
  successes_broken_after_success: brokenAfterSuccess,
  difference_last_minus_stop: d.estimate,
  difference_low: d.lower,
  difference_high: d.upper,
  mcnemar_p: mcnemarExact(everOnly, finalOnly),
};
console.log(`${log}: ${n} trajectories of gpt-3.5-turbo (real model data, recorded outputs; verified with revloop's COLLIE verifiers)`);
console.log(
  `stop at the first joint success: ${stopDrafts} of ${drafts} generations (${drafts - stopDrafts} saved), success ${ever}/${n} (${pct(ever)})`,
);
console.log(
  `every round as COLLIE ran it, scored on the last draft: ${drafts} generations, success ${final}/${n} (${pct(final)}); ` +
    `${brokenAfterSuccess} successes broken by a later round`,
);
console.log(
  `difference (last draft − stop rule): ${pts(d.estimate)} points [${pts(d.lower)}, ${pts(d.upper)}] (95% Newcombe), exact McNemar p = ${result.mcnemar_p.toExponential(2)}`,
);
const json = arg('--json');
if (json) writeFileSync(json, JSON.stringify(result, null, 2) + '\n');
