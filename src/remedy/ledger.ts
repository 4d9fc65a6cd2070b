// FailureLedger: the agent-loop side of the remedy layer, as one object for an agent loop of your
// own (and the one the agent study's rollouts use). Record every executed step; ask it for the next
// turn's messages (failed steps abstracted, dropped or kept verbatim, under a named agent harness or
// your own settings), for the ban list of failed actions (strings, or token sequences for a decoder
// of your own), or let it call any revloop Model with the ban applied where the backend can enforce it.
import type { LoopPolicy } from '@revloop/revise';
import type { ChatMessage, GenerateOptions, GenerateResult, Model } from '../models/types.ts';
import { canBan } from '../models/capabilities.ts';
import { CapabilityError } from '../core/errors.ts';
import { abstractFailureNote, callName, defaultGloss, type AgentStep, type GlossLookup } from './failure-record.ts';
import type { RevisionFeedback } from '@revloop/revise';
import { buildAgentMessages } from './agent-messages.ts';
import { getAgentHarness, type AgentHarnessName } from './agent-harness.ts';
import { normaliseDraft } from './recurrence.ts';
import { banStrings, banTokenSequences, failedActions, type TokenSeq } from './ban.ts';

/** Options of `FailureLedger`: the feedback form of failed steps, bans, the gloss of abstracted notes, and how a tool name is read from an action. */
export interface LedgerOptions {
  /**
   * A named agent harness (docs/harness.md §5.1), e.g. `abstract+ban`: sets feedback, ban and
   * instruction as the agent study runs them (settings given here as well win).
   */
  harness?: AgentHarnessName;
  /** How failed steps appear in the next turn's context: `verbatim`, `abstract` (the default) or `drop`. */
  feedback?: RevisionFeedback;
  /** Ban previously failed actions at decoding time where the backend can (default true). */
  ban?: boolean;
  /** Append the do-not-repeat instruction to the system prompt (default false). */
  negativeInstruction?: boolean;
  /** Gloss of an error family (default: `defaultGloss`, generic; ToolShed's table is `errorGloss` from revloop/envs/toolshed). */
  gloss?: GlossLookup;
  /** Observation prefix (default "Observation: "). */
  observationPrefix?: string;
  /**
   * Tool name of an action when a step does not say (default: `callName`, the identifier of a
   * single `name(...)` call, null otherwise; ToolShed's parser is `actionToolName` from revloop/envs/toolshed).
   */
  toolOf?: (action: string) => string | null;
}

/** A failed step as the model will see it under `abstract` feedback. */
export interface FailureRecord {
  /** 1-based count among failed steps. */
  index: number;
  /** 0-based position of the step in the transcript. */
  step: number;
  action: string;
  tool: string | null;
  errorType: string | null;
  /** The abstracted note, e.g. `[attempt 1 failed: read_file — no such file; that call is not repeatable]`. */
  note: string;
}

/**
 * Options of `FailureLedger.generate`: the model's generate options (bans come from the ledger) and whether to refuse a backend that
 * cannot ban.
 */
export interface LedgerGenerateOptions extends Omit<GenerateOptions, 'bannedSequences'> {
  /** Refuse (CapabilityError) instead of generating without the ban on a backend that cannot ban. */
  requireBan?: boolean;
}

/** What `FailureLedger.generate` returns: the model's result, its text, and whether the ban was enforced. */
export interface LedgerGenerateResult {
  result: GenerateResult;
  /** The raw text (null when every attempt failed). */
  text: string | null;
  messages: ChatMessage[];
  /** Strings that were banned (empty when banning is off or unsupported). */
  banned: string[];
  /** Whether the backend enforced the ban (false: banning is off, or the backend cannot ban). */
  banEnforced: boolean;
  /** The stripped text equals an earlier failed action (possible only when the ban was not enforced). */
  repeat: boolean;
}

/** Abstracted failure records of a transcript (stateless form of `FailureLedger.failures`). */
export function abstractFailures(steps: readonly AgentStep[], options: Pick<LedgerOptions, 'gloss' | 'toolOf'> = {}): FailureRecord[] {
  const gloss = options.gloss ?? defaultGloss;
  const toolOf = options.toolOf ?? callName;
  const out: FailureRecord[] = [];
  steps.forEach((s, i) => {
    if (s.ok) return;
    const tool = s.tool !== undefined ? s.tool : toolOf(s.action);
    const errorType = s.errorType ?? null;
    const index = out.length + 1;
    out.push({ index, step: i, action: s.action, tool, errorType, note: abstractFailureNote({ tool, errorType }, index, gloss) });
  });
  return out;
}

/**
 * The remedy as one object (docs/remedy.md): record each agent step, then build the next turn's context under its feedback form (default
 * `abstract`) and generate with previously failed actions banned where the backend can (default on).
 */
export class FailureLedger {
  private readonly steps: AgentStep[] = [];
  readonly feedback: RevisionFeedback;
  readonly ban: boolean;

  private readonly options: LedgerOptions;

  constructor(options: LedgerOptions = {}) {
    const h = options.harness !== undefined ? getAgentHarness(options.harness) : null;
    this.options = h ? { negativeInstruction: h.messages.negativeInstruction, ...options } : options;
    this.feedback = options.feedback ?? h?.messages.feedback ?? 'abstract';
    this.ban = options.ban ?? h?.ban ?? true;
  }

  /** Records one executed step; returns its failure record when it failed. */
  record(step: AgentStep): FailureRecord | null {
    const tool = step.tool !== undefined ? step.tool : (this.options.toolOf ?? callName)(step.action);
    // Object.assign, not a spread: docs/performance.md#hidden-classes
    this.steps.push(Object.assign({}, step, { tool }));
    if (step.ok) return null;
    const records = this.failures();
    return records[records.length - 1];
  }

  /** The steps recorded so far, in order. */
  get transcript(): readonly AgentStep[] {
    return this.steps;
  }

  failures(): FailureRecord[] {
    return abstractFailures(this.steps, this.options);
  }

  /** Messages for the next turn under the ledger's feedback form. */
  messages(system: string, goal: string): ChatMessage[] {
    return buildAgentMessages(system, goal, this.steps, {
      feedback: this.feedback,
      negativeInstruction: this.options.negativeInstruction,
      observationPrefix: this.options.observationPrefix,
      gloss: this.options.gloss,
    });
  }

  /**
   * The ledger as the kernel's policy (`runLoop` from revloop/revise, docs/remedy.md): every
   * request is the next turn's messages under the ledger's settings with its ban list (empty when
   * banning is off), so an agent loop is the kernel with your environment as its verifier, which
   * records each executed step here.
   */
  loopPolicy<S>(system: string, goal: string, options: { maxTokens?: number } = {}): LoopPolicy<S> {
    return {
      request: () => ({
        messages: this.messages(system, goal),
        bannedSequences: this.ban ? this.banList() : [],
        maxTokens: options.maxTokens,
      }),
    };
  }

  /** Stripped, de-duplicated failed actions (what a string-based ban such as vLLM `bad_words` takes). */
  banList(): string[] {
    return banStrings(failedActions(this.steps));
  }

  /** Token sequences to ban for your own decoder: both whitespace variants, de-duplicated. */
  banTokenSequences(tokenize: (text: string) => readonly number[]): TokenSeq[] {
    return banTokenSequences(failedActions(this.steps), tokenize);
  }

  /** Whether `action` (stripped) equals an earlier failed action (stripped). */
  isRepeat(action: string): boolean {
    const s = normaliseDraft(action, 'exact');
    return s !== '' && this.steps.some((st) => !st.ok && normaliseDraft(st.action, 'exact') === s);
  }

  /**
   * Generates the next turn with any revloop Model: the ban goes to backends that declare the `ban`
   * capability (GGUF in process, vLLM); elsewhere the call runs without it (or refuses, with
   * `requireBan`) and `repeat` tells you whether the model re-emitted a failed action.
   */
  async generate(model: Model, system: string, goal: string, options: LedgerGenerateOptions): Promise<LedgerGenerateResult> {
    const { requireBan, ...rest } = options;
    const messages = this.messages(system, goal);
    const wanted = this.ban ? this.banList() : [];
    const bans = canBan(model);
    if (wanted.length && !bans && requireBan) {
      throw new CapabilityError(
        `${model.label}: this backend cannot ban token sequences during decoding; use a gguf: or vllm: model, or call without requireBan`,
        { capability: 'ban', model: model.label },
      );
    }
    const banned = bans ? wanted : [];
    const result = await model.generate(messages, { ...rest, ...(banned.length ? { bannedSequences: banned } : {}) });
    return {
      result,
      text: result.text,
      messages,
      banned,
      banEnforced: this.ban && bans,
      repeat: result.text !== null && this.isRepeat(result.text),
    };
  }
}
