// Revision policies by name (docs/revise.md §2): the history window and its restart rule, how failed
// drafts are fed back, whether they are banned at decoding, and what a cycle does. `revise()` takes
// a policy object; the lab runs the same policies by name (`revloop run --harness NAME`,
// `revloop compare-policies --policies …`), so a name means the same loop everywhere.
import { namingOption, UsageError } from '../errors.ts';
import { parseHistoryWindow, type HistoryWindow } from './history-window.ts';
import { REVISION_FEEDBACKS, type RevisionFeedback, type MessageRules } from './revision-messages.ts';
import type { DraftNormalisation } from './recurrence.ts';

/**
 * A policy's `history` as written: a history window (`full`, `last:K`, `reset`; parsed into a
 * `HistoryWindow`), or `reset-on-recurrence`, the `full` window restarted at each recurrence.
 */
export type HistorySpec = 'full' | `last:${number}` | 'reset' | 'reset-on-recurrence';
/**
 * How earlier failed drafts are banned at decoding (docs/revise.md §2):
 * - `failed-drafts`: each as a token sequence the decoder may never complete (vLLM `bad_words`, the
 *   agent study's ban); its prefix effect also forbids extending a failed draft word for word;
 * - `complete-repeats`: each as a complete answer: the answer may not end where it equals a failed
 *   draft, but may extend one (sim and GGUF backends; vLLM cannot express it);
 * - `auto`: `complete-repeats` where the backend can ban complete answers, no ban otherwise;
 * - `none`.
 * An explicit kind is refused by a backend that cannot apply it.
 */
export type BanSpec = 'none' | 'failed-drafts' | 'complete-repeats' | 'auto';

/** The ban kinds a run or `revise()` applies (`auto` resolves to one of them, or to none). */
export type BanKind = 'failed-drafts' | 'complete-repeats';
/** What a revision loop does when it finds a cycle: go on, restart its history, or stop. */
export type CycleAction = 'continue' | 'reset' | 'stop';

/**
 * The paper's revision budget T = 8: revisions after the first draft, at most T + 1 generations. The
 * one home of the number: `revise()`'s default `budget.revisions` and the lab's `PAPER_PROTOCOL.budget`.
 */
export const PAPER_BUDGET = 8;

/**
 * A revision policy (docs/glossary.md): how a revision loop treats its own history. The named
 * policies (POLICY_PRESETS, the lab's `--harness`) set the history, feedback, ban and cycle action;
 * `revise()` takes any part of one (`Partial<RevisionPolicy<FeedbackRenderer>>`: unset fields take
 * `revloop-default`'s), its `feedback` also open to your own renderer `R` of the violations.
 */
export interface RevisionPolicy<R = never> {
  history: HistorySpec;
  /** `verbatim`, `abstract`, `drop`, or (in `revise()`) your own rendering of the violations, sent after the draft. */
  feedback: RevisionFeedback | R;
  ban: BanSpec;
  onCycle: CycleAction;
  /**
   * How drafts are compared for recurrences and cycles: `normalised` (NFC, whitespace runs
   * collapsed: a reflowed repeat is a repeat; `revise()`'s default for a policy object) or `exact`
   * (the stripped text, the paper's and the lab's; the default for a policy given by name).
   */
  identity?: DraftNormalisation;
}

/**
 * The default: the paper's verbatim loop until a draft recurs, then the window restarts at the
 * recurring draft (unless that would replay an earlier request); a persistent cycle restarts the
 * window too; no ban (the failed-drafts ban lost success on the simulations, the complete-repeats
 * ban gained none and switches the recurrence rule off), so the loop is the same on every backend.
 * Why, with the figures it rests on: docs/revise.md §5.
 */
export const REVLOOP_DEFAULT_POLICY: Readonly<RevisionPolicy> = Object.freeze({
  history: 'reset-on-recurrence',
  feedback: 'verbatim',
  ban: 'none',
  onCycle: 'reset',
});

/** Named policies (lab harnesses). `verbatim` is the paper's loop; `verbatim-full` is its alias. */
export const POLICY_PRESETS: Readonly<Record<string, Readonly<RevisionPolicy>>> = Object.freeze({
  verbatim: { history: 'full', feedback: 'verbatim', ban: 'none', onCycle: 'continue' },
  abstract: { history: 'full', feedback: 'abstract', ban: 'none', onCycle: 'continue' },
  drop: { history: 'full', feedback: 'drop', ban: 'none', onCycle: 'continue' },
  'reset-on-recurrence': { history: 'reset-on-recurrence', feedback: 'verbatim', ban: 'none', onCycle: 'continue' },
  'revloop-default': REVLOOP_DEFAULT_POLICY,
});

const ALIASES: Readonly<Record<string, string>> = { 'verbatim-full': 'verbatim' };

/** A named policy: `verbatim` (alias `verbatim-full`), `abstract`, `drop`, `reset-on-recurrence`, `revloop-default` (POLICY_PRESETS). */
export type PolicyName = 'verbatim' | 'verbatim-full' | 'abstract' | 'drop' | 'reset-on-recurrence' | 'revloop-default' | (string & {});

/**
 * The canonical name of a preset (aliases resolved); a UsageError listing the names otherwise, naming
 * the option the name came from (`policy`; the lab's `harness`; see namingOption).
 */
export function policyName(name: string, option = 'policy'): string {
  const canonical = ALIASES[name] ?? name;
  if (!Object.prototype.hasOwnProperty.call(POLICY_PRESETS, canonical)) {
    const names = [...Object.keys(POLICY_PRESETS), ...Object.keys(ALIASES)].join(', ');
    throw namingOption(option, (n) => new UsageError(`${n}: unknown policy '${name}'; choose one of ${names}`, { option: n }));
  }
  return canonical;
}

/** The named policy preset (verbatim-full, abstract, reset-on-recurrence, revloop-default); throws for an unknown name (see policyName). */
export function policyPreset(name: string, option = 'policy'): RevisionPolicy {
  return { ...POLICY_PRESETS[policyName(name, option)] };
}

/** The window and restart rule of a history spec. */
export function parseHistorySpec(spec: string): { window: HistoryWindow; resetOnRecurrence: boolean } {
  if (spec === 'reset-on-recurrence') return { window: { kind: 'full' }, resetOnRecurrence: true };
  return { window: parseHistoryWindow(spec), resetOnRecurrence: false };
}

/** The message rules of a revision policy (a window given apart, e.g. the lab's --history, replaces `full`). */
export function messageRulesOf(policy: Pick<RevisionPolicy, 'history' | 'feedback' | 'onCycle'>, window?: HistoryWindow): MessageRules {
  const h = parseHistorySpec(policy.history);
  if (!REVISION_FEEDBACKS.includes(policy.feedback))
    throw new UsageError(`unknown feedback mode '${String(policy.feedback)}'; use ${REVISION_FEEDBACKS.join(', ')}`, {
      option: 'feedback',
    });
  return {
    feedback: policy.feedback,
    window: h.window.kind === 'full' && window ? window : h.window,
    resetOnRecurrence: h.resetOnRecurrence,
    resetOnCycle: policy.onCycle === 'reset',
  };
}

/**
 * The ban a policy applies with a backend of these capabilities (null: none). An explicit kind is
 * returned whatever the backend (the caller refuses one it cannot apply); `auto` is
 * `complete-repeats` where the backend bans complete answers, none otherwise.
 */
export function banKindFor(ban: BanSpec, capabilities: { readonly ban?: boolean; readonly banAnswers?: boolean } = {}): BanKind | null {
  if (ban === 'failed-drafts' || ban === 'complete-repeats') return ban;
  if (ban === 'auto') return capabilities.banAnswers === true ? 'complete-repeats' : null;
  return null;
}
