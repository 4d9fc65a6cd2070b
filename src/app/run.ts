// `run`: load the cases, create the model, plan or resume the run in the store, and run it. Typed
// options in, a typed outcome out; the CLI (or any other caller) shows progress and words.
import { basename } from 'node:path';
import { UserError } from '../core/errors.ts';
import { loadCaseSet } from '../core/cases/load.ts';
import type { CaseFormat } from '../core/cases/types.ts';
import { slug } from '../core/util/slug.ts';
import { getFamily } from '../core/verify/registry.ts';
import { withIfevalMode } from '../core/verify/index.ts';
import type { PromptVariant } from '../core/verify/types.ts';
import type { HistoryPolicy } from '../engine/history.ts';
import { protocolName, type ProtocolConfig } from '../engine/protocol.ts';
import { executeRun, type RunProgress, type RunResult } from '../engine/run.ts';
import { createModel } from '../models/index.ts';
import type { ModelOptions } from '../models/options.ts';
import { parseSpec } from '../models/spec.ts';
import type { Model } from '../models/types.ts';
import { openStore, type RunSummary } from '../store/store.ts';

export interface RunCasesOptions {
  /** The case file (paper, COLLIE, native JSON Lines). */
  cases: string;
  /** How messages and the session record name the case file (default: `cases`; `-` for standard input). */
  casesName?: string;
  format?: CaseFormat;
  /** Only the first n cases. */
  limit?: number;
  /** The model spec, e.g. `sim:steady` or `openai-compatible:http://localhost:8000/v1#qwen`. */
  model: string;
  modelOptions?: ModelOptions;
  store: string;
  /** Default: <cases>__<model label>[__<protocol>] (the same command always resumes the same run). */
  runId?: string;
  /** Revisions after the first draft (T). */
  budget?: number;
  history?: HistoryPolicy;
  variant?: PromptVariant;
  /** Trajectories in flight at once (also the model's concurrency unless modelOptions sets one). */
  concurrency?: number;
  /** Stop after this many protocol-incomplete trajectories in a row (0 = never). */
  maxConsecutiveFailures?: number;
  /** IFEval cases: joint success from the strict (default) or the loose follow list; part of each case, so of the plan. */
  ifevalMode?: 'strict' | 'loose';
  /** Operational settings recorded with the session (never part of the plan). */
  sessionOptions?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** What the run is about to do, said once its plan is accepted. */
export interface RunStart {
  runId: string;
  resumed: boolean;
  /** Trajectories complete before this session. */
  alreadyComplete: number;
  cases: number;
  casesInFile: number;
  format: string;
  model: string;
  simulated: boolean;
  protocol: string;
  budget: number;
  concurrency: number;
}

export interface RunCasesHooks {
  onStart?(start: RunStart): void;
  onProgress?(p: RunProgress): void;
  /** Something worth saying that is not an error (rows skipped, …). */
  onNote?(text: string): void;
}

export interface RunCasesOutcome {
  runId: string;
  simulated: boolean;
  result: RunResult;
  /** The run as the store lists it after this session. */
  summary: RunSummary;
}

/** The run id a command gets when none is given: the same command always resumes the same run. */
export function defaultRunId(
  casesPath: string,
  model: Model,
  protocol: ProtocolConfig,
  limit: number | undefined,
  ifevalMode: 'strict' | 'loose' = 'strict',
): string {
  const parts = [slug(basename(casesPath).replace(/\.jsonl?$/i, '')), slug(model.label)];
  const name = protocolName(protocol);
  if (name !== 'paper') parts.push(slug(name.replace(/^paper\+/, '')));
  if (protocol.budget !== 8) parts.push(`T${protocol.budget}`);
  if (limit !== undefined) parts.push(`n${limit}`);
  if (ifevalMode === 'loose') parts.push('ifeval-loose');
  return parts.join('__');
}

export async function runCases(o: RunCasesOptions, hooks: RunCasesHooks = {}): Promise<RunCasesOutcome> {
  const concurrency = o.concurrency ?? 4;
  const specParams = parseSpec(o.model).params;
  // The run's concurrency is the model's unless set apart (--model-concurrency).
  const modelOptions: ModelOptions = { concurrency, ...(o.modelOptions ?? {}) };
  const extraBody = modelOptions.extraBody ?? null;
  // Decoding: greedy unless told otherwise; a setting in the spec itself is left to the spec.
  const temperature: number | null = modelOptions.temperature === undefined ? 0 : modelOptions.temperature;
  modelOptions.temperature = temperature;
  const seed = modelOptions.seed ?? null;
  const protocol: ProtocolConfig = {
    budget: o.budget ?? 8,
    history: o.history ?? { kind: 'full' },
    variant: o.variant ?? 'baseline',
    temperature: specParams.temperature !== undefined ? null : temperature,
    seed: specParams.seed !== undefined ? null : seed,
    messagePolicy: 'verbatim',
    banProvider: null,
  };

  const casesName = o.casesName ?? o.cases;
  const loaded = await loadCaseSet(o.cases, o.format ? { format: o.format } : {});
  if (loaded.unsupported.length)
    hooks.onNote?.(`${loaded.unsupported.length} rows of ${casesName} have structures without a family and are not run`);
  let cases = o.limit !== undefined ? loaded.cases.slice(0, o.limit) : loaded.cases;
  // The loose mode is part of each IFEval case, so it is in the plan and audits replay it (strict = unset).
  if (o.ifevalMode === 'loose') cases = cases.map((c) => withIfevalMode(c, 'loose'));
  if (!cases.length) throw new UserError(`${casesName}: no runnable cases`);
  const model = await createModel(o.model, modelOptions);
  const simulated = model.capabilities.simulated;
  const runId = o.runId ?? defaultRunId(o.cases, model, protocol, o.limit, o.ifevalMode);
  const store = await openStore(o.store);
  try {
    const prior = await store.getRun(runId);
    let started = false;
    const result = await executeRun({
      store,
      runId,
      cases,
      caseSet: {
        format: loaded.format,
        total: loaded.cases.length,
        limit: o.limit ?? null,
        fileSha256: loaded.manifest.file_sha256,
        manifest: loaded.manifest,
        path: casesName,
      },
      model,
      protocol,
      resolveFamily: getFamily,
      extraBody,
      concurrency,
      signal: o.signal,
      maxConsecutiveFailures: o.maxConsecutiveFailures ?? 3,
      sessionOptions: o.sessionOptions,
      onProgress: (p) => {
        // Said once the plan is accepted (the first progress report), so a refused plan is never announced.
        if (!started) {
          started = true;
          hooks.onStart?.({
            runId,
            resumed: prior !== null,
            alreadyComplete: prior?.summary.complete ?? 0,
            cases: cases.length,
            casesInFile: loaded.cases.length,
            format: loaded.format,
            model: model.label,
            simulated,
            protocol: protocolName(protocol),
            budget: protocol.budget,
            concurrency,
          });
        }
        hooks.onProgress?.(p);
      },
    });
    const summary = (await store.getRun(runId))!.summary;
    return { runId, simulated, result, summary };
  } finally {
    await model.close?.();
    await store.close();
  }
}
