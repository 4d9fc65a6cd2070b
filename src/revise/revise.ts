// revloop's revise(): the revise package's loop (docs/revise.md) with what needs the rest of revloop
// — a model given as a spec string (createModel), a constraint family given by name (the
// registry), and recording the loop in a store (record.ts, a sink of the kernel).
import {
  CapabilityError,
  familyVerifier as packageFamilyVerifier,
  resolvePolicy,
  revise as packageRevise,
  reviseStream as packageReviseStream,
  banKindFor,
  isAiSdkModel,
  aiSdkModel,
  PAPER_BUDGET,
  reviseMiddleware as packageReviseMiddleware,
  repairToolCall as packageRepairToolCall,
  type FamilyCase,
  type FamilyLike,
  type FamilyVerifyFunction,
  type ReviseLanguageModelMiddleware,
  type ToolCallRepairFunction,
  type ReviseMiddlewareOptions as PackageMiddlewareOptions,
  type RepairToolCallOptions as PackageRepairOptions,
  type ReviseOptions as PackageReviseOptions,
  type ReviseResult,
  type ReviseStream,
  type VerifyFunction,
} from '@revloop/revise';
import { createModel } from '../models/index.ts';
import { canBan, modelCapabilities } from '../models/capabilities.ts';
import type { Model } from '../models/types.ts';
import { sha256Hex } from '../core/util/hash.ts';
import { getFamily } from '../core/verify/registry.ts';
import { openRecording, type Recording } from './record.ts';
import type { FamilyVerify, ReviseOptions } from './types.ts';

/** A family given by name resolved through the registry (every built-in and registered family). */
function familyOf(family: string | FamilyLike): FamilyLike {
  return typeof family === 'string' ? (getFamily(family) as unknown as FamilyLike) : family;
}

/** The verifier with a family name resolved. */
function resolvedVerify(verify: VerifyFunction | FamilyVerify): PackageReviseOptions['verify'] {
  if (verify && typeof verify === 'object' && 'family' in verify) return { family: familyOf(verify.family), case: verify.case };
  return verify;
}

/**
 * A registered family's verifier on one case (by name or object): the family's state, its exact
 * report as the feedback, its energy as the score, one violation per violated component.
 */
export function familyVerifier(family: string | FamilyLike, c: FamilyCase, variant = 'baseline'): FamilyVerifyFunction {
  return packageFamilyVerifier(familyOf(family), c, variant);
}

/** Resolves revloop's additions, opens the recording when asked, and runs `run` with the package's options. */
async function withRevloop<T>(
  o: ReviseOptions,
  run: (options: PackageReviseOptions, recording: Recording | null) => Promise<T>,
): Promise<T> {
  let owned: Model | null = null;
  const model = typeof o.model === 'string' ? (owned = await createModel(o.model)) : o.model;
  let recording: Recording | null = null;
  try {
    const { store, runId, caseId, ...rest } = o;
    const options: PackageReviseOptions = { ...rest, model: model as PackageReviseOptions['model'], verify: resolvedVerify(o.verify) };
    if (store !== undefined) {
      const policy = resolvePolicy(o.policy);
      // An AI SDK model is wrapped here, so that the recording and the loop see the same model.
      const sdk = isAiSdkModel(model) ? aiSdkModel(model, { retry: o.retry }) : null;
      if (sdk) options.model = sdk;
      const revloopModel: Model = sdk
        ? { ...sdk, spec: sdk.spec!, capabilities: modelCapabilities({ ban: sdk.capabilities?.ban === true }) }
        : (model as Model).capabilities
          ? (model as Model)
          : { ...(model as Model), spec: (model as Model).spec ?? (model as Model).label, capabilities: modelCapabilities({}) };
      // Refused here as revise() would refuse it, before the recording is opened.
      const banned = banKindFor(policy.ban, revloopModel.capabilities);
      if (banned === 'failed-drafts' && !canBan(revloopModel))
        throw new CapabilityError(
          `${revloopModel.label}: this backend cannot ban token sequences during decoding, so ban 'failed-drafts' is refused`,
          { capability: 'ban', model: revloopModel.label },
        );
      if (banned === 'complete-repeats' && !revloopModel.capabilities.banAnswers)
        throw new CapabilityError(`${revloopModel.label}: this backend cannot ban complete answers, so ban 'complete-repeats' is refused`, {
          capability: 'banAnswers',
          model: revloopModel.label,
        });
      const verify = options.verify;
      const fv = typeof verify === 'function' ? null : packageFamilyVerifier(verify.family as FamilyLike, verify.case);
      const prompt = o.prompt ?? fv?.initialPrompt;
      const initial =
        typeof prompt === 'string'
          ? [{ role: 'user' as const, content: prompt }]
          : (prompt ?? []).map((m) => ({ role: m.role, content: m.content }));
      recording = await openRecording({
        store,
        runId,
        caseId: caseId ?? 'revise',
        model: revloopModel,
        initial,
        family: fv
          ? { name: fv.family.name, version: fv.version, verifierId: `family:${fv.family.name}@${fv.version}` }
          : { name: 'revise', version: 'revise-1', verifierId: 'function' },
        familyCase: fv && typeof verify === 'object' ? (verify.case as never) : null,
        policy,
        feedbackName: policy.feedbackFn ? `custom:${sha256Hex(String(policy.feedbackFn)).slice(0, 12)}` : policy.feedback,
        banned,
        revisions: o.budget?.revisions ?? PAPER_BUDGET,
        maxTokens: o.maxTokens ?? fv?.maxTokens ?? null,
        temperature: o.temperature ?? null,
        seed: o.seed ?? null,
      });
      const own = recording.sink;
      const theirs = o.sink;
      options.sink = theirs
        ? {
            started: async (s) => {
              await own.started?.(s);
              await theirs.started?.(s);
            },
            attempt: (i, n, r) => {
              own.attempt?.(i, n, r);
              theirs.attempt?.(i, n, r);
            },
            drafted: async (...a) => {
              await own.drafted?.(...a);
              await theirs.drafted?.(...a);
            },
            ended: async (...a) => {
              await own.ended?.(...a);
              await theirs.ended?.(...a);
            },
            note: (n) => theirs.note?.(n),
          }
        : own;
    }
    return await run(options, recording);
  } finally {
    await recording?.close();
    await owned?.close?.();
  }
}

/** Revises until the verifier passes a draft or a budget, a cycle, an error or the caller stops it (docs/revise.md). */
export async function revise(options: ReviseOptions): Promise<ReviseResult> {
  return withRevloop(options, async (o, recording) => {
    if (!recording) return packageRevise(o);
    // The run id is part of the result, `done` included.
    const onEvent = o.onEvent;
    const result = await packageRevise({
      ...o,
      onEvent: onEvent ? (e) => onEvent(e.type === 'done' ? { ...e, result: { ...e.result, runId: recording.runId } } : e) : undefined,
    });
    return { ...result, runId: recording.runId };
  });
}

/** `revise()` as an async iterator of its events, ending with `done`; leaving it early starts no further generation. */
export function reviseStream(options: ReviseOptions): ReviseStream {
  if (typeof options.model !== 'string' && options.store === undefined)
    return packageReviseStream({ ...options, verify: resolvedVerify(options.verify) } as PackageReviseOptions);
  // A spec string or a store needs set-up first: the events flow once it is done.
  let runId: string | undefined;
  let setInner!: (s: ReviseStream) => void;
  const inner = new Promise<ReviseStream>((resolve) => (setInner = resolve));
  const result = withRevloop(options, async (o, recording) => {
    runId = recording?.runId;
    const s = packageReviseStream(o);
    setInner(s);
    const r = await s.result;
    return runId ? { ...r, runId } : r;
  });
  result.catch(() => undefined);
  // Set-up that fails rejects the first next() with its error.
  const stream = () => Promise.race([inner, result.then(() => inner)]);
  const iterator: ReviseStream = {
    result,
    async next() {
      const n = await (await stream()).next();
      if (!n.done && n.value.type === 'done' && runId) return { done: false, value: { ...n.value, result: { ...n.value.result, runId } } };
      return n;
    },
    async return() {
      await (await stream().catch(() => null))?.return?.();
      await result.catch(() => undefined);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** Options of revloop's `reviseMiddleware`: the package's, with a family by name allowed in `verify`. */
export interface ReviseMiddlewareOptions extends Omit<PackageMiddlewareOptions, 'verify'> {
  verify: VerifyFunction | FamilyVerify;
}

/** The package's `reviseMiddleware` (docs/revise.md §6), with a family by name allowed in `verify`. */
export function reviseMiddleware(options: ReviseMiddlewareOptions): ReviseLanguageModelMiddleware {
  return packageReviseMiddleware({ ...options, verify: resolvedVerify(options.verify) });
}

/** Options of revloop's `repairToolCall`: the package's, with a model spec string allowed. */
export interface RepairToolCallOptions extends Omit<PackageRepairOptions, 'model'> {
  model: PackageRepairOptions['model'] | Model | string;
}

/** The package's `repairToolCall` (docs/revise.md §6), with a model spec string allowed (created at the first repair). */
export function repairToolCall(options: RepairToolCallOptions): ToolCallRepairFunction {
  if (typeof options.model !== 'string') return packageRepairToolCall(options as PackageRepairOptions);
  const spec = options.model;
  let repair: ToolCallRepairFunction | null = null;
  return async (args) => {
    repair ??= packageRepairToolCall({ ...options, model: (await createModel(spec)) as PackageRepairOptions['model'] });
    return repair(args);
  };
}
