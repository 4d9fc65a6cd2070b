// The public types of `revloop/revise`: the revise package's (docs/revise.md §1), and revloop's
// additions — a model spec string, a family by name, and recording the loop in a store (§7).
import type { ReviseOptions as PackageReviseOptions, FamilyCase, FamilyLike, VerifyFunction } from '@revloop/revise';
import type { Model } from '../models/types.ts';
import type { RunStore } from '../store/store.ts';

export type {
  ReviseResult,
  ReviseEvent,
  ReviseStatus,
  ReviseBudget,
  FeedbackRenderer,
  Attempt,
  Violation,
  VerifyResult,
  VerifyFunction,
  FamilyLike,
  FamilyCase,
  Pricing,
  Usage,
  CycleReport,
  CycleOutcome,
} from '@revloop/revise';

/** A constraint family (by name, any registered one: `revloop/core/verify`, or the object) and one of its cases: the lab's verifier. */
export interface FamilyVerify {
  family: string | FamilyLike;
  case: FamilyCase;
}

/** Everything `revise()` takes in revloop: the package's options, a model spec string, a family by name, and an optional store. */
export interface ReviseOptions extends Omit<PackageReviseOptions, 'model' | 'verify'> {
  /** A revloop Model (`createModel(spec)`), a model spec string, or an AI SDK LanguageModel (v2/v3). */
  model: PackageReviseOptions['model'] | Model | string;
  verify: VerifyFunction | FamilyVerify;
  /** Record the loop as a run (kind `revise`) in a revloop store, a RunStore or a location such as `runs.db`. */
  store?: RunStore | string;
  /** The run id in the store (default: `revise-<time>-<hash>`). */
  runId?: string;
  /** The case id recorded in the store (default `revise`). */
  caseId?: string;
}
