// `revloop probe` and `revloop probe verify` as library functions (the CLI module is a thin shell).
import type { ModelFlags } from '../cli/model-flags.ts';
import type { Model } from '../models/types.ts';
import { UserError } from '../core/errors.ts';
import type { ProgressWriter } from '../cli/progress/work-progress.ts';
import { conditionsOf, isCondition, type Condition, type ConditionSet, type ProbeItem } from '../studies/probe/types.ts';

/** Where items come from: a file, or built (ToolShed, or CodeRepair from a user-supplied MBPP file). */
export interface ItemFlags {
  items?: string;
  build?: string;
  limit?: string;
  env?: string;
  mbpp?: string;
  python?: string;
}

export interface ProbeFlags extends ModelFlags, ItemFlags {
  model?: string;
  conditions?: string;
  store?: string;
  run?: string;
  json?: boolean;
  progress?: boolean;
  limit?: string;
}

export interface VerifyFlags extends ModelFlags, ItemFlags {
  model?: string;
  n?: string;
  tolerance?: string;
  json?: boolean;
  limit?: string;
}

export interface CommandIO {
  out: { write(s: string): unknown };
  err: ProgressWriter;
}

/** `core`, `extended`, `all`, or a comma-separated list of condition names. */
export function parseConditions(spec: string | undefined): Condition[] {
  const s = (spec ?? 'core').trim();
  if (s === 'core' || s === 'extended' || s === 'all') return conditionsOf(s as ConditionSet);
  const names = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!names.length) throw new UserError('--conditions is empty; use core, extended, all or a list such as pre,fail,neut');
  const bad = names.filter((n) => !isCondition(n));
  if (bad.length)
    throw new UserError(
      `--conditions: unknown condition(s) ${bad.join(', ')}; known: ${conditionsOf('all').join(', ')} (or core, extended, all)`,
    );
  return [...new Set(names)] as Condition[];
}

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1) throw new UserError(`${flag} must be a whole number ≥ 1 (got "${v}")`);
  return n;
}

/** Items from --items FILE or --build N (ToolShed, or CodeRepair with --env coderepair --mbpp PATH), optionally --limit. */
export async function loadProbeItems(
  flags: ItemFlags,
  progress?: ProgressWriter | null,
): Promise<{ items: ProbeItem[]; source: string; sha256: string }> {
  if (!!flags.items === !!flags.build)
    throw new UserError('give exactly one of --items <file> (probe items as JSON Lines) or --build <N> (build N items)');
  const env = flags.env ?? 'toolshed';
  if (env !== 'toolshed' && env !== 'coderepair') throw new UserError(`--env must be toolshed or coderepair (got "${env}")`);
  if (flags.items && flags.env) throw new UserError('--env applies to --build; an items file says its own environment');
  if (flags.mbpp && env !== 'coderepair') throw new UserError('--mbpp is for CodeRepair items: add --env coderepair');
  let loaded: { items: ProbeItem[]; source: string; sha256: string };
  if (flags.items) {
    const { readItemsFile } = await import('../studies/probe/items.ts');
    const r = readItemsFile(flags.items);
    loaded = { items: r.items, source: flags.items, sha256: r.sha256 };
  } else if (env === 'toolshed') {
    const n = positiveInt('--build', flags.build)!;
    const { buildToolShedProbeItems } = await import('../studies/probe/build.ts');
    loaded = buildToolShedProbeItems(n);
  } else {
    const n = positiveInt('--build', flags.build)!;
    if (!flags.mbpp)
      throw new UserError(
        'CodeRepair items are built from the sanitized MBPP file (sanitized-mbpp.json, google-research/mbpp), which revloop does not bundle: pass its path with --mbpp PATH',
      );
    const { buildCodeRepairProbeItems } = await import('../studies/probe/build.ts');
    loaded = await buildCodeRepairProbeItems(n, { mbpp: flags.mbpp, python: flags.python, progress });
  }
  if (flags.build !== undefined && loaded.items.length < Number(flags.build)) {
    progress?.write(
      `note: --build ${flags.build}: the ${env} pool yields ${loaded.items.length} items under the per-task cap; using all of them\n`,
    );
  }
  const limit = positiveInt('--limit', flags.limit);
  if (limit !== undefined) loaded.items = loaded.items.slice(0, limit);
  return loaded;
}

async function openModel(flags: ModelFlags & { model?: string }): Promise<Model> {
  if (!flags.model) throw new UserError('--model <spec> is required, e.g. --model gguf:./models/qwen2.5-0.5b-instruct-f16.gguf');
  const { createModel } = await import('../models/index.ts');
  const { modelOptionsFromFlags } = await import('../cli/model-flags.ts');
  return createModel(flags.model, modelOptionsFromFlags(flags));
}

export async function probeCommand(flags: ProbeFlags, io: CommandIO): Promise<number> {
  const conditions = parseConditions(flags.conditions);
  const { items, source, sha256 } = await loadProbeItems(flags, flags.progress === false ? null : io.err);
  const envs = [...new Set(items.map((i) => i.env))];
  if (envs.length !== 1)
    throw new UserError(`${source}: items from several environments (${envs.join(', ')}); probe one environment per run`);
  const model = await openModel(flags);
  try {
    const { probeScorerFor } = await import('../studies/probe/backend.ts');
    const scorer = await probeScorerFor(model);
    const { ProbeStore, defaultProbeRunId } = await import('../studies/probe/store.ts');
    const storePath = flags.store ?? 'runs.db';
    const store = ProbeStore.open(storePath);
    const runId = flags.run ?? defaultProbeRunId(envs[0], model.label);
    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      io.err.write('\nrevloop probe: stopping after the current condition (Ctrl-C again to quit at once)…\n');
      controller.abort();
    };
    process.on('SIGINT', onSigint);
    try {
      const run = store.ensureRun({
        run_id: runId,
        env: envs[0],
        model_spec: model.spec,
        model_label: model.label,
        simulated: model.capabilities.simulated,
      });
      if (run.model_spec !== model.spec)
        io.err.write(`revloop probe: note: run '${runId}' was started with ${run.model_spec}; this session uses ${model.spec}\n`);
      store.runStore.acquireLock(runId);
      store.addItems(runId, items, source);
      if (!conditions.includes('pre') || !conditions.includes('fail')) {
        io.err.write(
          'revloop probe: note: G and every paired delta need the pre and fail scores; score --conditions core into the same --run as well\n',
        );
      }
      const { runProbe } = await import('../studies/probe/runner.ts');
      const { lineProgress } = await import('../cli/progress/work-progress.ts');
      const sim = model.capabilities.simulated ? '[SIMULATED] ' : '';
      const progress = lineProgress(flags.progress === false ? null : io.err, `${sim}probe ${model.label}`);
      const result = await asUserError(
        () =>
          runProbe(scorer, store, items, {
            runId,
            conditions,
            itemsSource: source,
            itemsSha256: sha256,
            signal: controller.signal,
            onProgress: (p) =>
              progress.update(
                p.done,
                p.total,
                `pass ${p.pass}/${p.passes} · ${p.scored} scored${p.cacheSaving !== null ? ` · cache saved ${(100 * p.cacheSaving).toFixed(0)}%` : ''}`,
              ),
          }),
        'scores recorded so far are stored; rerun the same command to resume',
      );
      progress.finish();
      const saved =
        result.cacheSaving !== null
          ? `, prefix reuse saved ${(100 * result.cacheSaving).toFixed(1)}% of ${result.counters!.naiveTokens.toLocaleString('en')} tokens`
          : '';
      io.err.write(
        `${sim}probe ${runId}: ${result.status}; ${result.nScored} new scores, ${result.nPresent} already stored, ${result.nUnavailable} condition(s) unavailable (fail_other without a distractor) in ${result.seconds.toFixed(1)} s${saved} → ${storePath}\n`,
      );
      if (flags.json) {
        const { probeItemRecords } = await import('../studies/probe/analyze.ts');
        const ids = new Set(items.map((i) => i.item_id));
        const scores = store.scores(runId).filter((s) => ids.has(s.item_id));
        for (const r of probeItemRecords(runId, model.label, model.capabilities.simulated, items, scores)) {
          io.out.write(
            JSON.stringify({
              run_id: r.run_id,
              model: r.model,
              simulated: r.simulated,
              item_id: r.item_id,
              task_id: r.task_id,
              operator: r.operator,
              error_type: r.error_type,
              G: r.measures.G,
              copy: r.measures.copy,
              sem: r.measures.sem,
              measures: r.measures,
            }) + '\n',
          );
        }
      }
      return result.status === 'interrupted' ? 130 : 0;
    } finally {
      process.off('SIGINT', onSigint);
      store.runStore.releaseLock(runId);
      store.close();
    }
  } finally {
    await model.close?.();
  }
}

export async function probeVerifyCommand(flags: VerifyFlags, io: CommandIO): Promise<number> {
  const n = positiveInt('--n', flags.n) ?? 12;
  const tolerance = flags.tolerance === undefined ? 1e-3 : Number(flags.tolerance);
  if (!(tolerance > 0) || !Number.isFinite(tolerance))
    throw new UserError(`--tolerance must be a positive number of nats (got "${flags.tolerance}")`);
  const { items } = await loadProbeItems(flags, io.err);
  const model = await openModel(flags);
  try {
    const { probeScorerFor } = await import('../studies/probe/backend.ts');
    const scorer = await probeScorerFor(model);
    const { verifyProbeScoring } = await import('../studies/probe/verify.ts');
    const report = await asUserError(() => verifyProbeScoring(scorer, items, { n, tolerance }), 'nothing was recorded');
    const sim = model.capabilities.simulated && !/\[simulated\]/i.test(model.label) ? ' [SIMULATED]' : '';
    if (flags.json) {
      io.out.write(
        JSON.stringify(
          {
            model: model.label,
            simulated: model.capabilities.simulated,
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
      for (const t of report.triples.filter((x) => !x.ok)) io.out.write(`FAIL ${t.item_id} ${t.condition} ${t.candidate}: ${t.problem}\n`);
      io.out.write(
        `${model.label}${sim}: checked ${report.n} triples (${report.method}); max |cached - fresh| = ${Number.isFinite(report.maxAbsDiff) ? report.maxAbsDiff.toExponential(3) : 'NaN'} nats; tolerance ${tolerance}\n`,
      );
      io.out.write(report.ok ? 'OK\n' : 'FAIL: do not trust probe scores from this configuration\n');
    }
    return report.ok ? 0 : 1;
  } finally {
    await model.close?.();
  }
}

/** Scoring failures (numeric guards, a server that keeps failing) are the user's to act on: no stack trace. */
async function asUserError<T>(fn: () => Promise<T>, note: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === 'NumericGuardError' || name === 'ScoreError') throw new UserError(`${(e as Error).message} (${note})`);
    throw e;
  }
}

export interface ItemsFlags extends ItemFlags {
  out?: string;
  progress?: boolean;
}

/** `revloop probe items`: write built items (or a filtered items file) as JSON Lines. */
export async function probeItemsCommand(flags: ItemsFlags, io: CommandIO): Promise<number> {
  if (!flags.out) throw new UserError('-o/--out <file> is required (where to write the items)');
  const { items, source } = await loadProbeItems(flags, flags.progress === false ? null : io.err);
  const { itemsJsonl } = await import('../studies/probe/items.ts');
  const { writeFileAtomicSync } = await import('../core/util/atomic-file.ts');
  writeFileAtomicSync(flags.out, itemsJsonl(items));
  const tasks = new Set(items.map((i) => i.task_id)).size;
  const ops = new Set(items.map((i) => i.operator)).size;
  io.err.write(`wrote ${items.length} items (${tasks} tasks, ${ops} operators) from ${source} to ${flags.out}\n`);
  return 0;
}
