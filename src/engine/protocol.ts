// The protocol configuration of a run: everything that decides which messages are sent and when the
// loop stops. It is part of the immutable run plan; `paper` defaults reproduce the reference.
import type { PromptVariant } from '../core/verify/types.ts';
import type { ProtocolSpec } from '../store/plan.ts';
import { formatHistoryWindow, parseHistoryWindow, type HistoryWindow } from '../remedy/history-window.ts';
import { PAPER_BUDGET, POLICY_PRESETS, policyName, type RevisionPolicy } from '@revloop/revise';

/** A run's protocol: the revision budget, the history policy and the prompt variant. Frozen in the run plan. */
export interface ProtocolConfig {
  /** Revisions after the first draft (T); at most T+1 generations. */
  budget: number;
  history: HistoryWindow;
  variant: PromptVariant;
  /** 0 = greedy (the paper's decoding); null = left to the model's own configuration. */
  temperature: number | null;
  /** Sent with every request when set; null = left to the model. */
  seed: number | null;
  /** Name of the message-building policy, a harness of src/engine/round-policy.ts (`verbatim` = the paper's). */
  messagePolicy: string;
  /** Name of the per-round ban provider, or null for none (the paper's). */
  banProvider: string | null;
}

/** The paper's protocol: budget T = 8, full history, the baseline prompts. */
export const PAPER_PROTOCOL: ProtocolConfig = {
  budget: PAPER_BUDGET,
  history: { kind: 'full' },
  variant: 'baseline',
  temperature: 0,
  seed: null,
  messagePolicy: 'verbatim',
  banProvider: null,
};

/** `paper` when every setting is the reference's, otherwise a name listing what differs. */
export function protocolName(p: ProtocolConfig): string {
  const parts: string[] = [];
  if (p.history.kind !== 'full') parts.push(`history=${formatHistoryWindow(p.history)}`);
  if (p.variant !== 'baseline') parts.push(`variant=${p.variant}`);
  if (p.messagePolicy !== 'verbatim') parts.push(`messages=${p.messagePolicy}`);
  if (p.banProvider) parts.push(`ban=${p.banProvider}`);
  return parts.length ? `paper+${parts.join(',')}` : 'paper';
}

export function protocolSpec(p: ProtocolConfig): ProtocolSpec {
  return {
    name: protocolName(p),
    budget: p.budget,
    history: formatHistoryWindow(p.history),
    variant: p.variant,
    temperature: p.temperature,
    seed: p.seed,
    max_new_tokens: 'family',
    message_policy: p.messagePolicy,
    ban_provider: p.banProvider,
    // A harness whose cycle action is `stop` also ends a trajectory at a persistent cycle (docs/revise.md §4).
    stop_rule: stopsOnCycle(p.messagePolicy) ? 'first-joint-success-budget-or-cycle' : 'first-joint-success-or-budget',
  };
}

export function protocolFromSpec(s: ProtocolSpec): ProtocolConfig {
  return {
    budget: s.budget,
    history: parseHistoryWindow(s.history),
    variant: s.variant,
    temperature: s.temperature,
    seed: s.seed,
    messagePolicy: s.message_policy,
    banProvider: s.ban_provider,
  };
}

/** The revision policy a named harness stands for (its cycle action decides the stop rule). */
export function harnessPolicy(name: string): RevisionPolicy | null {
  try {
    return { ...POLICY_PRESETS[policyName(name)] };
  } catch {
    return null;
  }
}

/** Whether runs under this harness stop at a persistent cycle (`onCycle: 'stop'`). */
export function stopsOnCycle(messagePolicy: string): boolean {
  return harnessPolicy(messagePolicy)?.onCycle === 'stop';
}
