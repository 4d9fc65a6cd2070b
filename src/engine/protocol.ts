// The protocol configuration of a run: everything that decides which messages are sent and when the
// loop stops. It is part of the immutable run plan; `paper` defaults reproduce the reference.
import { UserError } from '../core/errors.ts';
import { PROMPT_VARIANTS, type PromptVariant } from '../core/verify/types.ts';
import { formatHistoryPolicy, parseHistoryPolicy, type HistoryPolicy } from './history.ts';

export interface ProtocolConfig {
  /** Revisions after the first draft (T); at most T+1 generations. */
  budget: number;
  history: HistoryPolicy;
  variant: PromptVariant;
  /** 0 = greedy (the paper's decoding); null = left to the model's own configuration. */
  temperature: number | null;
  /** Sent with every request when set; null = left to the model. */
  seed: number | null;
  /** Name of the message-building policy (`verbatim` = the paper's). */
  messagePolicy: string;
  /** Name of the per-round ban provider, or null for none (the paper's). */
  banProvider: string | null;
}

/** The JSON form stored in plans (history as its string spec). */
export interface ProtocolSpec {
  name: string;
  budget: number;
  history: string;
  variant: PromptVariant;
  temperature: number | null;
  seed: number | null;
  max_new_tokens: 'family';
  message_policy: string;
  ban_provider: string | null;
  stop_rule: 'first-joint-success-or-budget';
}

export const PAPER_PROTOCOL: ProtocolConfig = {
  budget: 8,
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
  if (p.history.kind !== 'full') parts.push(`history=${formatHistoryPolicy(p.history)}`);
  if (p.variant !== 'baseline') parts.push(`variant=${p.variant}`);
  if (p.messagePolicy !== 'verbatim') parts.push(`messages=${p.messagePolicy}`);
  if (p.banProvider) parts.push(`ban=${p.banProvider}`);
  return parts.length ? `paper+${parts.join(',')}` : 'paper';
}

export function protocolSpec(p: ProtocolConfig): ProtocolSpec {
  return {
    name: protocolName(p),
    budget: p.budget,
    history: formatHistoryPolicy(p.history),
    variant: p.variant,
    temperature: p.temperature,
    seed: p.seed,
    max_new_tokens: 'family',
    message_policy: p.messagePolicy,
    ban_provider: p.banProvider,
    stop_rule: 'first-joint-success-or-budget',
  };
}

export function protocolFromSpec(s: ProtocolSpec): ProtocolConfig {
  return {
    budget: s.budget,
    history: parseHistoryPolicy(s.history),
    variant: s.variant,
    temperature: s.temperature,
    seed: s.seed,
    messagePolicy: s.message_policy,
    banProvider: s.ban_provider,
  };
}

export function parseBudget(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new UserError(`--budget: expected a whole number of revisions from 0 to 1000, got '${value}'`);
  return n;
}

export function parseVariant(value: string): PromptVariant {
  if (!(PROMPT_VARIANTS as readonly string[]).includes(value)) {
    throw new UserError(`--variant: unknown prompt variant '${value}'; use ${PROMPT_VARIANTS.join(', ')}`);
  }
  return value as PromptVariant;
}
