// `run`: load the cases, create the model, plan or resume the run in the store, and run it. Typed
// options in, a typed outcome out; the CLI (or any other caller) shows progress and words.
import { basename } from 'node:path';
import { StoreError, UserError } from '../core/errors.ts';
import { loadCaseSet } from '../core/cases/load.ts';
import type { CaseFormat } from '../core/cases/types.ts';
import { slug } from '../core/util/slug.ts';
import { baseLabel } from '../core/simulated.ts';
import { resumableRunId } from '../studies/kit/run-id.ts';
import { getFamily } from '../core/verify/registry.ts';
import { banKindFor, policyName, POLICY_PRESETS, type BanKind } from '@revloop/revise';
import { PAPER_PROTOCOL, protocolName, type ProtocolConfig } from '../engine/protocol.ts';
import { executeRun, prepareRun, type RunProgress, type RunRequest, type RunResult } from '../engine/trajectory-run.ts';
import { createModel } from '../models/create.ts';
import type { ModelOptions } from '../models/options.ts';
import { parseSpec } from '../models/spec.ts';
import type { Model } from '../models/types.ts';
import { isPostgresLocation, redactLocation, type RunInfo, type RunSummary } from '../store/store.ts';
import { RUN_DEFAULTS } from './defaults.ts';
import { withReconnection, type ReconnectOptions } from './reconnect.ts';

/**
 * What `runCases` takes. The protocol's settings are ProtocolConfig's, the session's a run request's
 * and the reconnection's `withReconnection`'s; each one left out gets RUN_DEFAULTS' (app/defaults.ts).
 */
export interface RunCasesOptions
  extends
    Partial<Pick<ProtocolConfig, 'budget' | 'history' | 'variant'>>,
    Pick<RunRequest, 'maxConsecutiveFailures' | 'sessionOptions' | 'leaseSeconds' | 'signal'>,
    Pick<ReconnectOptions, 'reconnectSeconds'> {
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
  /**
   * The harness (docs/revise.md §2): `verbatim` (the paper's, default), `abstract`, `drop`,
   * `reset-on-recurrence` or `revloop-default`; recorded in the plan as its message policy.
   */
  harness?: string;
  /**
   * Ban earlier failed drafts at decoding: as token sequences (`failed-drafts`; needs a backend that
   * can ban), as complete answers (`complete-repeats`; gguf: and sim:), or `none`. Default: the
   * harness's own (docs/revise.md §2).
   */
  ban?: BanKind | 'none';
  /** Trajectories in flight at once (also the model's concurrency unless modelOptions sets one). */
  concurrency?: number;
  /** IFEval cases: joint success from the strict (default) or the loose follow list; part of each case, so of the plan. */
  ifevalMode?: 'strict' | 'loose';
  /**
   * 0: plan the run (create it, or check the stored plan and reopen protocol-incomplete
   * trajectories) without running anything, for `revloop worker` processes to run. 1 (default):
   * this process runs it (on PostgreSQL as one worker among any others).
   */
  workers?: 0 | 1;
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
  /** Planned only (workers: 0): nothing was run. */
  planOnly: boolean;
  /** Protocol-incomplete trajectories reopened for workers by this planning (PostgreSQL). */
  reopened: number;
  result: RunResult;
  /** The run as the store lists it after this session. */
  summary: RunSummary;
  /** The run's head after this session (its last event): kept outside the store, `audit --expect-head` holds a later log against it. */
  head: { seq: number; hash: string } | null;
}

/** The decoding a run's plan freezes, and the model options that produce it. */
export interface DecodingSettings {
  /** 0 = greedy; null = left to the model's spec. */
  temperature: number | null;
  seed: number | null;
  extraBody: Record<string, unknown> | null;
}

/**
 * Greedy unless told otherwise, a setting given in the spec itself left to the spec, and the
 * model's concurrency the run's unless set apart (--model-concurrency): the one rule for every
 * command that plans trajectories.
 */
export function decodingFor(
  spec: string,
  options: ModelOptions | undefined,
  concurrency: number,
): { modelOptions: ModelOptions; decoding: DecodingSettings } {
  const specParams = parseSpec(spec).params;
  const modelOptions: ModelOptions = { concurrency, ...(options ?? {}) };
  const temperature: number | null = modelOptions.temperature === undefined ? 0 : modelOptions.temperature;
  modelOptions.temperature = temperature;
  const seed = modelOptions.seed ?? null;
  return {
    modelOptions,
    decoding: {
      temperature: specParams.temperature !== undefined ? null : temperature,
      seed: specParams.seed !== undefined ? null : seed,
      extraBody: modelOptions.extraBody ?? null,
    },
  };
}

/**
 * The run id a command gets when none is given: the same command always resumes the same run. The
 * model part is its label without a simulation's mark (`cases__sim-steady`); `earlier` gives the
 * form versions before issue 40 used (`cases__sim-steady-simulated`), which the command still
 * resumes when the store holds a run under it.
 */
export function defaultRunId(
  casesPath: string,
  model: Model,
  protocol: ProtocolConfig,
  limit: number | undefined,
  ifevalMode: 'strict' | 'loose' = RUN_DEFAULTS.ifevalMode,
  earlier = false,
): string {
  const parts = [slug(basename(casesPath).replace(/\.jsonl?$/i, '')), slug(earlier ? model.label : baseLabel(model.label))];
  const name = protocolName(protocol);
  if (name !== 'paper') parts.push(slug(name.replace(/^paper\+/, '')));
  if (protocol.budget !== PAPER_PROTOCOL.budget) parts.push(`T${protocol.budget}`);
  if (limit !== undefined) parts.push(`n${limit}`);
  if (ifevalMode === 'loose') parts.push('ifeval-loose');
  return parts.join('__');
}

export async function runCases(o: RunCasesOptions, hooks: RunCasesHooks = {}): Promise<RunCasesOutcome> {
  const concurrency = o.concurrency ?? RUN_DEFAULTS.concurrency;
  const { modelOptions, decoding } = decodingFor(o.model, o.modelOptions, concurrency);
  const extraBody = decoding.extraBody;
  const protocol: ProtocolConfig = {
    budget: o.budget ?? RUN_DEFAULTS.budget,
    history: o.history ?? RUN_DEFAULTS.history,
    variant: o.variant ?? RUN_DEFAULTS.variant,
    temperature: decoding.temperature,
    seed: decoding.seed,
    messagePolicy: policyName(o.harness ?? RUN_DEFAULTS.harness, 'harness'),
    banProvider: null,
  };
  const preset = POLICY_PRESETS[protocol.messagePolicy];

  const casesName = o.casesName ?? o.cases;
  const loaded = await loadCaseSet(o.cases, o.format ? { format: o.format } : {});
  if (loaded.unsupported.length)
    hooks.onNote?.(`${loaded.unsupported.length} rows of ${casesName} have structures without a family and are not run`);
  // A limit beyond the file is no limit: the run is the whole file's (its id and plan too), said in a note.
  const limit = o.limit !== undefined && o.limit > loaded.cases.length ? undefined : o.limit;
  if (limit !== o.limit)
    hooks.onNote?.(
      `${casesName} has ${loaded.cases.length} cases, fewer than the limit of ${o.limit}: all ${loaded.cases.length} are run, as without a limit`,
    );
  let cases = limit !== undefined ? loaded.cases.slice(0, limit) : loaded.cases;
  // The loose mode is part of each IFEval case, so it is in the plan and audits replay it (strict = unset).
  if (o.ifevalMode === 'loose') {
    // Imported here: IFEval's modules are loaded only for IFEval case files (see core/verify/registry.ts).
    const { withIfevalMode } = await import('../core/verify/ifeval/family.ts');
    cases = cases.map((c) => withIfevalMode(c, 'loose'));
  }
  if (!cases.length) throw new UserError(`${casesName}: no runnable cases`);
  const model = await createModel(o.model, modelOptions);
  const simulated = model.capabilities.simulated;
  // An explicit --ban wins; otherwise the harness's own (`auto`: complete repeats where the backend can).
  const ban = o.ban ?? banKindFor(preset.ban, model.capabilities) ?? 'none';
  protocol.banProvider = ban === 'none' ? null : ban;
  // Known once the store is open (an earlier version's default id may name the run there).
  let runId = o.runId ?? '';
  // On PostgreSQL this process is one worker of its run: it outlives a lost database connection as
  // `revloop worker` does (app/reconnect.ts), and its progress and result count every session.
  const reconnects = isPostgresLocation(o.store) && o.workers !== 0;
  // The first session's view: whether the run existed before this command, and when it started.
  let first: { prior: RunInfo | null } | null = null;
  let startedAtMs: number | null = null;
  let started = false;
  // What earlier sessions finished (their protocol-incomplete trajectories are reopened by the next).
  const carried = { done: 0, rounds: 0 };
  let last: RunProgress | null = null;
  const whole = (p: RunProgress): RunProgress => ({
    ...p,
    skipped: p.skipped - carried.done,
    done: p.done + carried.done,
    rounds: p.rounds + carried.rounds,
    startedAtMs: (startedAtMs ??= p.startedAtMs),
  });
  try {
    return await withReconnection(
      // The command's store, reconnectSeconds and signal.
      { ...o, restart: 'run the same command again', onNote: hooks.onNote },
      async (store, control) => {
        if (o.runId === undefined && !runId)
          runId = await resumableRunId(
            store,
            defaultRunId(o.cases, model, protocol, limit, o.ifevalMode),
            defaultRunId(o.cases, model, protocol, limit, o.ifevalMode, true),
          );
        first ??= { prior: await store.getRun(runId) };
        const prior = first.prior;
        const request = {
          store,
          runId,
          cases,
          caseSet: {
            format: loaded.format,
            total: loaded.cases.length,
            limit: limit ?? null,
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
          maxConsecutiveFailures: o.maxConsecutiveFailures ?? RUN_DEFAULTS.maxConsecutiveFailures,
          sessionOptions: o.sessionOptions,
          leaseSeconds: o.leaseSeconds,
          onProgress: (p: RunProgress) => {
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
            if (reconnects) control.connected();
            last = p;
            hooks.onProgress?.(whole(p));
          },
        };
        if (o.workers === 0) {
          const prepared = await prepareRun(request);
          const summary = (await store.getRun(runId))!.summary;
          const progress: RunProgress = {
            total: summary.cases,
            skipped: summary.complete + summary.incomplete,
            done: 0,
            successes: summary.successes,
            incomplete: 0,
            rounds: 0,
            startedAtMs: Date.now(),
          };
          const result: RunResult = { runId, resumed: !prepared.created, progress, stopped: null };
          return { runId, simulated, planOnly: true, reopened: prepared.reopened, result, summary, head: await store.logHead(runId) };
        }
        const result = await executeRun(request);
        const summary = (await store.getRun(runId))!.summary;
        return {
          runId,
          simulated,
          planOnly: false,
          reopened: 0,
          result: { ...result, resumed: prior !== null, progress: whole(result.progress) },
          summary,
          head: await store.logHead(runId),
        };
      },
      {
        lost: () => {
          if (last) {
            carried.done += last.done - last.incomplete;
            carried.rounds += last.rounds;
          }
          last = null;
        },
        stoppedWhileDown: (message) => {
          const shown = redactLocation(o.store);
          throw new StoreError(
            `${shown}: stopped by request while PostgreSQL was unreachable (last: ${message}); the rounds committed so far are kept: run the same command again once the server is back`,
            { location: shown, reason: 'unreachable' },
          );
        },
      },
    );
  } finally {
    await model.close?.();
  }
}
