// Chat rendering with the model's own Jinja template, the way HF `apply_chat_template(messages,
// tokenize=False, add_generation_prompt=True, **kwargs)` does it (docs/harness.md §3.4): the same Jinja
// engine node-llama-cpp uses (@huggingface/jinja, with trim_blocks/lstrip_blocks like HF), the
// special-token strings as variables, and per-model kwargs such as enable_thinking=false.
//
// We do not go through node-llama-cpp's chat wrappers: they may pick a specialised built-in
// wrapper, join adjacent messages of the same role (the abstract harness sends two user turns in
// a row), trim whitespace in assistant turns and convert system messages, each of which changes
// the exact prompt the model sees (docs/harness.md §13.2).
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import type { ChatMessage } from '../types.ts';
import { UserError, DataMissingError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/util/hash.ts';

interface ChatTemplateSource {
  /** The Jinja text. */
  template: string;
  /** Where it came from: `gguf` (tokenizer.chat_template) or the file path given by the user. */
  origin: string;
}

interface RenderSettings {
  /** Special-token strings exposed to the template, as HF does (`bos_token`, `eos_token`, …). */
  specialTokens: Record<string, string>;
  /** Extra template variables (HF `**kwargs`), e.g. `{ enable_thinking: false }`. */
  kwargs: Record<string, unknown>;
  /**
   * The date `strftime_now` formats. Fixed by default so that templates that print today's date
   * (Llama 3.x) render the same prompt every day; `null` uses the real clock (HF behaviour).
   */
  date: Date | null;
}

/** Default kwargs: thinking off, so reasoning templates (Qwen3) add their empty think block. */
export const DEFAULT_TEMPLATE_KWARGS: Readonly<Record<string, unknown>> = Object.freeze({ enable_thinking: false });

/** Default pinned date: Llama 3.x templates' own fallback date ("26 Jul 2024"). */
export const DEFAULT_TEMPLATE_DATE = new Date(Date.UTC(2024, 6, 26));

/** Loads a template from a user-given file, or from the GGUF metadata. */
export function resolveChatTemplate(
  ggufTemplate: string | undefined | null,
  templateFile: string | undefined,
  modelPath: string,
): ChatTemplateSource {
  if (templateFile) {
    let text: string;
    try {
      text = readFileSync(templateFile, 'utf8');
    } catch (e) {
      throw new UserError(`cannot read chat template file ${templateFile}: ${(e as Error).message}`);
    }
    if (!text.trim()) throw new UserError(`chat template file ${templateFile} is empty`);
    return { template: text, origin: templateFile };
  }
  if (typeof ggufTemplate === 'string' && ggufTemplate.trim()) return { template: ggufTemplate, origin: 'gguf' };
  throw new DataMissingError(
    `${modelPath}: the GGUF has no tokenizer.chat_template; pass a Jinja file with ?chatTemplate=<path> (or the chatTemplate option)`,
    { what: 'chat_template' },
  );
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Python `strftime` for the directives chat templates use, in UTC and English (locale-free). */
export function strftimeUtc(date: Date, format: string): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return format.replace(/%([YmdbBHMSaAjy%e])/g, (_, d: string) => {
    switch (d) {
      case 'Y':
        return String(date.getUTCFullYear());
      case 'y':
        return pad(date.getUTCFullYear() % 100);
      case 'm':
        return pad(date.getUTCMonth() + 1);
      case 'd':
        return pad(date.getUTCDate());
      case 'e':
        return String(date.getUTCDate()).padStart(2, ' ');
      case 'b':
        return MONTHS[date.getUTCMonth()].slice(0, 3);
      case 'B':
        return MONTHS[date.getUTCMonth()];
      case 'a':
        return DAYS[date.getUTCDay()].slice(0, 3);
      case 'A':
        return DAYS[date.getUTCDay()];
      case 'H':
        return pad(date.getUTCHours());
      case 'M':
        return pad(date.getUTCMinutes());
      case 'S':
        return pad(date.getUTCSeconds());
      case 'j': {
        const start = Date.UTC(date.getUTCFullYear(), 0, 1);
        return pad(Math.floor((date.getTime() - start) / 86400000) + 1, 3);
      }
      default:
        return '%';
    }
  });
}

const PINNED_STRFTIME = 'revloop_pinned_strftime_now';

/** A compiled chat template plus the settings it renders with. */
export class ChatRenderer {
  private readonly compiled: Template;
  readonly sha256: string;

  constructor(
    readonly source: ChatTemplateSource,
    readonly settings: RenderSettings,
  ) {
    // @huggingface/jinja declares `strftime_now` as a global that render variables cannot replace,
    // so a pinned date is passed under another name that the template's calls are pointed at.
    const text = settings.date ? source.template.replace(/\bstrftime_now\b/g, PINNED_STRFTIME) : source.template;
    try {
      this.compiled = new Template(text);
    } catch (e) {
      throw new UserError(`chat template (${source.origin}) does not parse as Jinja: ${(e as Error).message}`);
    }
    this.sha256 = sha256Hex(source.template);
  }

  /** Renders messages to the prompt text (HF apply_chat_template, tokenize=False). */
  render(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
    for (const [i, m] of messages.entries()) {
      if (!m || (m.role !== 'system' && m.role !== 'user' && m.role !== 'assistant') || typeof m.content !== 'string') {
        throw new UserError(`message ${i}: expected {role: "system"|"user"|"assistant", content: string}`);
      }
    }
    const date = this.settings.date;
    const items: Record<string, unknown> = {
      ...this.settings.specialTokens,
      ...this.settings.kwargs,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: addGenerationPrompt,
    };
    if (date) items[PINNED_STRFTIME] = (format: string) => strftimeUtc(date, String(format));
    try {
      return this.compiled.render(items);
    } catch (e) {
      throw new UserError(`chat template (${this.source.origin}) failed to render: ${(e as Error).message}`);
    }
  }

  /** What to record for reproducibility. */
  describe(): Record<string, unknown> {
    return {
      origin: this.source.origin,
      sha256: this.sha256,
      kwargs: this.settings.kwargs,
      date: this.settings.date ? this.settings.date.toISOString().slice(0, 10) : 'now',
    };
  }
}
