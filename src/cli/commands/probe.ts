// `revloop probe` (score probe items under the corrective-gain conditions), `revloop probe verify`
// (cached vs fresh scoring on a sample) and `revloop probe items`. Parses flags into app/probe.ts's
// typed options; see docs/probe.md.
import type { Command } from 'commander';
import { PROBE_VERIFY_DEFAULTS } from '../../studies/probe/defaults.ts';
import { fitText, outputWidth } from '../terminal.ts';
import { dataOnStdout } from '../output.ts';
import { UsageError } from '../../core/errors.ts';
import { baseLabel, markedName, simulatedPrefix } from '../../core/simulated.ts';
import type { ItemSource } from '../../app/probe.ts';
import { addModelOptions, modelOptionsFromFlags, numberFlag, wholeNumber, type ModelFlags } from '../flags.ts';
import {
  addOptionWithAliases,
  jsonOption,
  limitOption,
  modelOption,
  noProgressOption,
  outputOption,
  runOption,
  storeOption,
} from '../options.ts';
import { redactLocation } from '../../store/store.ts';
import { lineProgress } from '../progress.ts';
import { forPeople, inputPath, isStdout } from '../stdio.ts';
import { interruptedExitCode, interruptible } from '../signals.ts';
import { formatCount } from '../../core/util/count.ts';

interface ItemFlags {
  items?: string;
  build?: string;
  limit?: number;
  env?: string;
  mbpp?: string;
  python?: string;
  progress?: boolean;
}

interface ProbeFlags extends ModelFlags, ItemFlags {
  model?: string;
  conditions?: string;
  store: string;
  run?: string;
  json?: boolean;
}

/** Items from --items FILE or --build N (ToolShed, or CodeRepair with --env coderepair --mbpp PATH), optionally --limit. */
async function itemSource(f: ItemFlags): Promise<ItemSource> {
  if (!!f.items === !!f.build)
    throw new UsageError('give exactly one of --items <file> (probe items as JSON Lines) or --build <N> (build N items)', {
      option: '--items',
    });
  const limit = f.limit;
  if (f.items) {
    if (f.env) throw new UsageError('--env applies to --build; an items file says its own environment', { option: '--env' });
    if (f.mbpp) throw new UsageError('--mbpp is for CodeRepair items built with --build N --env coderepair', { option: '--mbpp' });
    return { file: await inputPath(f.items, '--items', 'items.jsonl'), limit };
  }
  const env = f.env ?? 'toolshed';
  if (env !== 'toolshed' && env !== 'coderepair')
    throw new UsageError(`--env must be toolshed or coderepair (got "${env}")`, { option: '--env' });
  const mbpp = f.mbpp === undefined ? undefined : await inputPath(f.mbpp, '--mbpp', 'sanitized-mbpp.json');
  return { build: wholeNumber('--build', f.build!, { min: 1 }), env, mbpp, python: f.python, limit };
}

function requireModel(model: string | undefined): string {
  if (!model)
    throw new UsageError('--model <spec> is required, e.g. --model gguf:./models/qwen2.5-0.5b-instruct-f16.gguf', { option: '--model' });
  return model;
}

/** Progress of building CodeRepair items (which executes every program). */
function buildProgress(f: ItemFlags) {
  if (f.progress === false) return undefined;
  let line: ReturnType<typeof lineProgress> | undefined;
  return (done: number, total: number, python: string) => {
    line ??= lineProgress(process.stderr, `building CodeRepair items (python ${python})`);
    line.update(done, total, 'problems');
    if (done === total) line.finish();
  };
}

export function register(program: Command): void {
  const probe = program
    .command('probe')
    .summary('corrective-gain probes: teacher-forced scores of a failed action under counterfactual transcripts')
    .description(
      'Scores every (item, condition, candidate) triple by teacher forcing and\n' +
        'stores it; repeating the command resumes. Needs a backend that can score:\n' +
        'gguf:<path> (in process) or vllm:<url>#<model> (prompt_logprobs). In\n' +
        'process the context is sized to the longest request before it starts.\n\n' +
        'Conditions: core = pre, fail, succ, neut, abstract; extended = neut_pad,\n' +
        'fail_echo, fail_terse, fail_verbose, fail_instr, fail_k2, fail_k3,\n' +
        'fail_early, fail_other, abstract_min; all; or a comma-separated list.\n' +
        '`revloop analyze --store DB` summarises G, copy, sem, p_rep and greedy\n' +
        'repeats. See docs/probe.md.',
    )
    .addOption(modelOption({ need: 'score' }))
    .option('--items <file>', "probe items as JSON Lines (the documented schema; '-' = standard input)")
    .option('--build <N>', 'build the item pool and take a stratified subsample of N items (ToolShed: ≤ 3 per task)')
    .option('--env <name>', 'environment of --build: toolshed (default) or coderepair (needs --mbpp and python3)')
    .option('--mbpp <path>', "the sanitized MBPP JSON file (CodeRepair; not bundled; '-' = standard input)")
    .option('--python <path>', 'Python 3 interpreter for CodeRepair (default: $REVLOOP_PYTHON, then python3)')
    .option('--conditions <set>', 'core | extended | all | comma-separated names', 'core')
    .addOption(storeOption())
    .addOption(runOption('probe run id (default: probe-<env>-<model label>)'))
    .addOption(limitOption('items'))
    .addOption(jsonOption('print one JSON record per item (G, copy, sem and every measure) on stdout'))
    .addOption(noProgressOption());
  addModelOptions(probe);
  probe.action(async (flags: ProbeFlags) => {
    process.exitCode = await probeAction(flags);
  });

  const verify = probe
    .command('verify')
    .description('re-score a sample of items without the prefix cache and require agreement within the tolerance (exit 1 otherwise)')
    .addOption(modelOption({ need: 'score' }))
    .option('--items <file>', "probe items as JSON Lines ('-' = standard input)")
    .option('--build <N>', 'build N items (see revloop probe --help)')
    .option('--env <name>', 'environment of --build: toolshed or coderepair')
    .option('--mbpp <path>', 'the sanitized MBPP JSON file (CodeRepair)')
    .option('--python <path>', 'Python 3 interpreter for CodeRepair')
    .addOption(limitOption('items'))
    .option('--n <n>', `items to sample (Python random.Random(${PROBE_VERIFY_DEFAULTS.seed}).sample)`, String(PROBE_VERIFY_DEFAULTS.n))
    .option('--tolerance <nats>', 'largest allowed |cached - fresh|', String(PROBE_VERIFY_DEFAULTS.tolerance))
    .addOption(jsonOption('print the report as JSON'));
  addModelOptions(verify);
  verify.action(async (_flags: unknown, cmd: Command) => {
    // `probe` declares the same options; commander may hand them to the parent, so merge both.
    const f = cmd.optsWithGlobals() as ModelFlags & ItemFlags & { model?: string; n?: string; tolerance?: string; json?: boolean };
    const tolerance = numberFlag('--tolerance', f.tolerance ?? '0.001', { min: 0 })!;
    if (!(tolerance > 0))
      throw new UsageError(`--tolerance must be a positive number of nats (got "${f.tolerance}")`, { option: '--tolerance' });
    const { probeVerify } = await import('../../app/probe.ts');
    const report = await probeVerify(
      {
        model: requireModel(f.model),
        modelOptions: modelOptionsFromFlags(f),
        items: await itemSource(f),
        n: wholeNumber('--n', f.n ?? '12', { min: 1 }),
        tolerance,
      },
      { onNote: (t) => process.stderr.write(`note: ${t}\n`), onBuildProgress: buildProgress(f) },
    );
    const out = process.stdout;
    if (f.json) {
      out.write(
        JSON.stringify(
          {
            model: report.model,
            simulated: report.simulated,
            method: report.method,
            ok: report.ok,
            n: report.n,
            tolerance,
            max_abs_diff: Number.isFinite(report.maxAbsDiff) ? report.maxAbsDiff : null,
            triples: report.triples,
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      for (const t of report.triples.filter((x) => !x.ok)) out.write(`FAIL ${t.item_id} ${t.condition} ${t.candidate}: ${t.problem}\n`);
      out.write(
        `${markedName(report.model, report.simulated)}: checked ${report.n} triples (${report.method}); max |cached - fresh| = ${Number.isFinite(report.maxAbsDiff) ? report.maxAbsDiff.toExponential(3) : 'NaN'} nats; tolerance ${tolerance}\n`,
      );
      out.write(report.ok ? 'OK\n' : 'FAIL: do not trust probe scores from this configuration\n');
    }
    if (!report.ok) process.exitCode = 1;
  });

  const items = probe
    .command('items')
    .description(
      'write probe items as JSON Lines: --build N from ToolShed (or CodeRepair with --env coderepair --mbpp PATH), or a filtered --items file',
    );
  addOptionWithAliases(items, outputOption("where to write the items ('-' = standard output)", { required: true }), '--out');
  items
    .option('--items <file>', 'probe items to re-read (validated) and write')
    .option('--build <N>', 'build the pool and take a stratified subsample of N items')
    .option('--env <name>', 'toolshed (default) or coderepair')
    .option('--mbpp <path>', 'the sanitized MBPP JSON file (CodeRepair)')
    .option('--python <path>', 'Python 3 interpreter for CodeRepair')
    .addOption(limitOption('items'))
    .addOption(noProgressOption())
    .action(async (_flags: unknown, cmd: Command) => {
      const f = cmd.optsWithGlobals() as ItemFlags & { output: string };
      const { writeProbeItems } = await import('../../app/probe.ts');
      const toStdout = isStdout(f.output);
      const r = await writeProbeItems(await itemSource(f), toStdout ? null : f.output, {
        onNote: (t) => process.stderr.write(`note: ${t}\n`),
        onBuildProgress: buildProgress(f),
      });
      if (toStdout) {
        dataOnStdout();
        process.stdout.write(r.text!);
      }
      process.stderr.write(
        `wrote ${r.items} items (${r.tasks} tasks, ${r.operators} operators) from ${forPeople(r.source)} to ${toStdout ? 'standard output' : f.output}\n`,
      );
    });
}

async function probeAction(flags: ProbeFlags): Promise<number> {
  const { probeCommand, parseConditions } = await import('../../app/probe.ts');
  const conditions = parseConditions(flags.conditions);
  const model = requireModel(flags.model);
  const items = await itemSource(flags);
  const err = process.stderr;
  let progress: ReturnType<typeof lineProgress> | undefined;
  const r = await interruptible(err, 'after the current condition', (signal) =>
    probeCommand(
      {
        model,
        modelOptions: modelOptionsFromFlags(flags),
        items,
        conditions,
        store: flags.store,
        runId: flags.run,
        signal,
        withItemRecords: !!flags.json,
      },
      {
        onNote: (t) => err.write(`revloop probe: note: ${t}\n`),
        onBuildProgress: buildProgress(flags),
        onStart: (s) => {
          // The [SIMULATED] prefix of the line is the mark; the label's own suffix would repeat it.
          progress = lineProgress(flags.progress === false ? null : err, `probe ${baseLabel(s.model)}`, { simulated: s.simulated });
        },
        onProgress: (p) =>
          progress?.update(
            p.done,
            p.total,
            `pass ${p.pass}/${p.passes} · ${p.scored} scored${p.cacheSaving !== null ? ` · cache saved ${(100 * p.cacheSaving).toFixed(0)}%` : ''}`,
          ),
      },
    ),
  ).finally(() => progress?.finish());
  const saved =
    r.cacheSaving !== null
      ? `, prefix reuse saved ${(100 * r.cacheSaving).toFixed(1)}% of ${formatCount(r.counters!.naiveTokens)} tokens`
      : '';
  err.write(
    fitText(
      `${simulatedPrefix(r.simulated)}probe ${r.runId}: ${r.status}; ${r.nScored} new scores, ${r.nPresent} already stored, ${r.nUnavailable} condition(s) unavailable (fail_other without a distractor) in ${r.seconds.toFixed(1)} s${saved} → ${redactLocation(flags.store)}`,
      outputWidth(false, process.stderr),
    ) + '\n',
  );
  for (const rec of r.itemRecords ?? []) {
    process.stdout.write(
      JSON.stringify({
        run_id: rec.run_id,
        model: rec.model,
        simulated: rec.simulated,
        item_id: rec.item_id,
        task_id: rec.task_id,
        operator: rec.operator,
        error_type: rec.error_type,
        G: rec.measures.G,
        copy: rec.measures.copy,
        sem: rec.measures.sem,
        measures: rec.measures,
      }) + '\n',
    );
  }
  return r.status === 'interrupted' ? interruptedExitCode() : 0;
}
