// History windows: which earlier draft/feedback exchanges a revision request carries.
// `full` is the paper's protocol (the whole conversation). `last:K` is the reference's tail_K
// (docs/protocol.md §3.10): the initial prompt followed by the last K+1 exchanges. `reset` keeps only the
// current draft and its feedback after the initial prompt. Every window is applied at every round.
// (The agent loop's counterpart, which decides how failed steps appear, is `AgentMessageOptions`.)
import { namingOption, UserError } from '../errors.ts';
import type { ChatMessage } from '../model.ts';

/** Which earlier exchanges a revision sees: all (`full`, the paper's), the last k (`last`), or none (`reset`). */
export type HistoryWindow = { kind: 'full' } | { kind: 'last'; k: number } | { kind: 'reset' };

/** One failed round as the model saw it: its stripped draft and the feedback on it. */
export interface Exchange {
  revision: number;
  draft: string;
  feedback: string;
}

/** Parses `full`, `last:K` or `reset` into a `HistoryWindow`; throws a UserError naming the option `history` for anything else. */
export function parseHistoryWindow(spec: string): HistoryWindow {
  const s = spec.trim();
  if (s === 'full') return { kind: 'full' };
  if (s === 'reset') return { kind: 'reset' };
  const m = /^last:(\d+)$/.exec(s);
  if (m) return { kind: 'last', k: Number(m[1]) };
  throw namingOption('history', (n) => new UserError(`${n}: unknown history policy '${spec}'; use full, last:K (K = 0, 1, 2, …) or reset`));
}

/** A history window as its spec string (`full`, `last:K`, `reset`), the inverse of `parseHistoryWindow`. */
export function formatHistoryWindow(p: HistoryWindow): string {
  return p.kind === 'last' ? `last:${p.k}` : p.kind;
}

/** The exchanges a window keeps, oldest first. */
export function selectExchanges<T>(exchanges: readonly T[], policy: HistoryWindow): T[] {
  switch (policy.kind) {
    case 'full':
      return exchanges.slice();
    case 'reset':
      return exchanges.slice(-1);
    case 'last':
      return exchanges.slice(-(policy.k + 1));
  }
}

/**
 * The paper's message list: the initial prompt as the only user message to start (no system
 * message), then for each kept exchange the stripped draft as the assistant turn and the verifier
 * report as the user turn.
 */
export function buildHistoryMessages(initialPrompt: string, exchanges: readonly Exchange[], policy: HistoryWindow): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: initialPrompt }];
  for (const e of selectExchanges(exchanges, policy)) {
    messages.push({ role: 'assistant', content: e.draft }, { role: 'user', content: e.feedback });
  }
  return messages;
}
