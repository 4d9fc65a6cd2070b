// The history-intervention arms (docs/protocol.md §3.10) as message policies over a frozen prefix.
// For a trigger state at revision r with drafts d0 … dr and reports f0 … fr (U = user, A = assistant):
//
//   full      [U0, A d0, U f0, …, A dr, U fr]          the unmodified conversation
//   reset     [U0, A dr, U fr]                          exactly three messages
//   last:K    U0 then the last K+1 pairs                (tail_K; last:1 = 5 messages, last:2 = 7)
//   abstract  U0, one abstracted failure record per earlier failed draft d0 … d(r−1), then A dr, U fr
//   ban       the full conversation, and every failed draft so far banned at decoding
//
// Each arm then continues on its own list: every later round appends (A text, U report), so a
// reduced history grows from its reduced start, never re-reduced. `abstract` uses the harness
// study's record (src/remedy: abstractFailureNote, the reference's text) with the tool named
// "draft" and the gloss "rejected by the verifier"; like the agent harness's abstract policy it
// replaces the failed turn and its observation with that one user message, so no failed draft's
// tokens (and no report quoting it) stay in context. `ban` bans, at every round, the distinct
// failed drafts accepted so far (frozen and new); it needs a backend with the `ban` capability.
import { namingOption, UsageError } from '../../core/errors.ts';
import type { BanProvider, ExchangeRecord, MessageBuilder, RoundContext } from '../../engine/round-policy.ts';
import { verbatimMessages } from '../../engine/round-policy.ts';
import type { ChatMessage } from '../../models/types.ts';
import { abstractFailureNote, glossTable } from '../../remedy/failure-record.ts';
import type { ExperimentPlan } from './plan.ts';

/** A history-intervention arm: full, reset, last:K, abstract or ban. */
export type HistoryArm = { kind: 'full' } | { kind: 'reset' } | { kind: 'last'; k: number } | { kind: 'abstract' } | { kind: 'ban' };

export { DEFAULT_ARMS } from './defaults.ts';
export const ARM_NAMES = 'full, reset, last:K (K = 0, 1, 2, …), abstract, ban';

/** Parses an arm spec (`full`, `reset`, `last:K`, `abstract`, `ban`); throws a UsageError naming the option `arms` for anything else. */
export function parseArm(spec: string): HistoryArm {
  const s = spec.trim();
  if (s === 'full' || s === 'reset' || s === 'abstract' || s === 'ban') return { kind: s };
  const m = /^last:(\d+)$/.exec(s);
  if (m) return { kind: 'last', k: Number(m[1]) };
  throw namingOption('arms', (n) => new UsageError(`${n}: unknown arm '${spec}'; use ${ARM_NAMES}`, { option: n }));
}

/** An arm as its spec string (`full`, `reset`, `last:K`, `abstract`, `ban`). */
export function formatArm(a: HistoryArm): string {
  return a.kind === 'last' ? `last:${a.k}` : a.kind;
}

/** A comma-separated arm list, each arm once, in the order given. */
export function parseArms(spec: string): HistoryArm[] {
  const arms = spec
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(parseArm);
  if (!arms.length) throw namingOption('arms', (n) => new UsageError(`${n}: no arm given; use ${ARM_NAMES}`, { option: n }));
  const names = arms.map(formatArm);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw namingOption('arms', (n) => new UsageError(`${n}: '${dup}' is listed twice`, { option: n }));
  return arms;
}

/** The arm as it appears in a trajectory id (no colon). */
export function armSlug(a: HistoryArm): string {
  return a.kind === 'last' ? `last${a.k}` : a.kind;
}

/** The abstracted record of the i-th failed draft (1-based): the remedy's note, tool "draft". */
export const DRAFT_GLOSS = glossTable({ verifier_rejected: 'rejected by the verifier' });
/** The abstracted failure record that replaces a failed draft in the `abstract` arm. */
export function abstractDraftNote(index: number): string {
  return abstractFailureNote({ tool: 'draft', errorType: 'verifier_rejected' }, index, DRAFT_GLOSS);
}

/** The messages of an arm at any round, from every exchange so far and the trigger revision. */
export function armMessages(arm: HistoryArm, trigger: number, initialPrompt: string, exchanges: readonly ExchangeRecord[]): ChatMessage[] {
  const frozen = exchanges.filter((e) => e.revision <= trigger);
  const later = exchanges.filter((e) => e.revision > trigger);
  const pair = (e: ExchangeRecord): ChatMessage[] => [
    { role: 'assistant', content: e.draft },
    { role: 'user', content: e.feedback },
  ];
  const messages: ChatMessage[] = [{ role: 'user', content: initialPrompt }];
  switch (arm.kind) {
    case 'full':
    case 'ban':
      for (const e of frozen) messages.push(...pair(e));
      break;
    case 'reset':
      for (const e of frozen.slice(-1)) messages.push(...pair(e));
      break;
    case 'last':
      for (const e of frozen.slice(-(arm.k + 1))) messages.push(...pair(e));
      break;
    case 'abstract':
      frozen.slice(0, -1).forEach((_, i) => messages.push({ role: 'user', content: abstractDraftNote(i + 1) }));
      for (const e of frozen.slice(-1)) messages.push(...pair(e));
      break;
  }
  for (const e of later) messages.push(...pair(e));
  return messages;
}

/** The distinct failed drafts so far, in first-seen order (the ban arm's list). */
export function failedDrafts(exchanges: readonly ExchangeRecord[]): string[] {
  return [...new Set(exchanges.filter((e) => !e.joint).map((e) => e.draft))];
}

/** Each trajectory's arm and trigger, by its case id (unique within an experiment run). */
function armsById(experiment: ExperimentPlan, caseIds: readonly string[]): Map<string, { arm: HistoryArm; trigger: number }> {
  const byId = new Map<string, { arm: HistoryArm; trigger: number }>();
  experiment.trajectories.forEach((t, i) => byId.set(caseIds[i], { arm: parseArm(t.arm), trigger: t.trigger_revision }));
  return byId;
}

export const HISTORY_POLICY_NAME = 'history-arms';
export const BAN_PROVIDER_NAME = 'failed-drafts';

/** The message builder of a history experiment: each trajectory's own arm. */
export function historyArmsMessages(experiment: ExperimentPlan, caseIds: readonly string[]): MessageBuilder {
  const byId = armsById(experiment, caseIds);
  return {
    name: HISTORY_POLICY_NAME,
    build(ctx: RoundContext) {
      const a = byId.get(ctx.case.id);
      if (!a) throw new Error(`no arm for trajectory '${ctx.case.id}'`);
      return armMessages(a.arm, a.trigger, ctx.initialPrompt, ctx.exchanges);
    },
  };
}

/** The ban provider of a history experiment: the `ban` arm's failed drafts, nothing for the other arms. */
export function historyBanProvider(experiment: ExperimentPlan, caseIds: readonly string[]): BanProvider {
  const byId = armsById(experiment, caseIds);
  return {
    name: BAN_PROVIDER_NAME,
    sequences(ctx: RoundContext) {
      return byId.get(ctx.case.id)?.arm.kind === 'ban' ? failedDrafts(ctx.exchanges) : undefined;
    },
  };
}

/** The messages (and bans) of any experiment, re-created from its plan (runs and audits use the same). */
export function experimentPolicies(
  experiment: ExperimentPlan,
  caseIds: readonly string[],
): { messagePolicy: MessageBuilder; banProvider?: BanProvider } {
  if (experiment.design !== 'history') return { messagePolicy: verbatimMessages };
  const arms = experiment.trajectories.map((t) => parseArm(t.arm));
  return {
    messagePolicy: historyArmsMessages(experiment, caseIds),
    ...(arms.some((a) => a.kind === 'ban') ? { banProvider: historyBanProvider(experiment, caseIds) } : {}),
  };
}
