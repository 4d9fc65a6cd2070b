// Model specs: the one string that names a backend, its model and (optionally) its settings.
//
//   openai:<model>[?k=v&…]
//   openai-compatible:<base-url>#<model>[?k=v&…]   (a `sim:…` model name is sent whole, query included)
//   vllm:<base-url>#<model>[?k=v&…]            (= openai-compatible with vllm=1)
//   gguf:<path>[?k=v&…]                         (parsed by the GGUF backend itself)
//   sim:<profile>[?k=v&…]
//
// Query parameters belong to the spec (they are part of a run's identity); generic options passed
// next to the spec fill in whatever the query leaves unset.
import { namingOption, UserError, UsageError } from '../core/errors.ts';
import { maskUrlCredentials } from '../core/util/secrets.ts';

type SpecScheme = 'openai' | 'openai-compatible' | 'vllm' | 'gguf' | 'sim';

/** A model backend as a spec names it: its form, an example, and what it can do beyond generating. */
export interface SpecSchemeInfo {
  scheme: SpecScheme;
  form: string;
  example: string;
  /** Teacher-forced scoring (probes) and banning token sequences at decoding (decoder bans). */
  score: boolean;
  ban: boolean;
  note?: string;
}

/** Every backend a model spec can name: the one list that help texts and error messages are written from. */
export const SPEC_SCHEMES: readonly SpecSchemeInfo[] = [
  { scheme: 'openai', form: 'openai:<model>', example: 'openai:gpt-4o-mini', score: false, ban: false },
  {
    scheme: 'openai-compatible',
    form: 'openai-compatible:<base-url>#<model>',
    example: 'openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B',
    score: false,
    ban: false,
  },
  {
    scheme: 'vllm',
    form: 'vllm:<base-url>#<model>',
    example: 'vllm:http://localhost:8000/v1#Qwen/Qwen3-8B',
    score: true,
    ban: true,
    note: 'adds scoring and bans',
  },
  { scheme: 'gguf', form: 'gguf:<path>', example: 'gguf:./models/qwen3-8b-q8_0.gguf', score: true, ban: true },
  {
    scheme: 'sim',
    form: 'sim:<profile>[?k=v&…]',
    example: 'sim:steady?gain=0.7&recur=0.2&seed=3',
    score: true,
    ban: true,
    note: 'a simulated controller',
  },
];

const SPEC_FORMS: readonly string[] = SPEC_SCHEMES.map((s) => `${s.form.padEnd(36)} e.g. ${s.example}${s.note ? ` (${s.note})` : ''}`);

/** The spec forms on one line, for help texts: all of them, or those that can score or ban. */
export function specFormsLine(need?: 'score' | 'ban'): string {
  return SPEC_SCHEMES.filter((s) => !need || s[need])
    .map((s) => s.form.replace(/\[\?k=v&…\]$/, ''))
    .join(', ');
}

export interface ParsedSpec {
  scheme: SpecScheme;
  /** The spec exactly as given. */
  spec: string;
  /** Model name (openai, openai-compatible, vllm), profile (sim) or file path (gguf). */
  target: string;
  /** Base URL for HTTP schemes. */
  baseUrl?: string;
  /** Query parameters in the order given. */
  params: Record<string, string>;
}

function specFormsText(): string {
  return SPEC_FORMS.map((f) => `  ${f}`).join('\n');
}

function invalid(spec: string, problem: string): UserError {
  // A spec refused for holding credentials must not print them.
  return new UsageError(
    `invalid model spec ${JSON.stringify(maskUrlCredentials(spec))}: ${maskUrlCredentials(problem)}\nvalid forms:\n${specFormsText()}`,
  );
}

/** Splits `x?k=v&k2=v2` into `x` and its parameters (values URL-decoded; repeated keys refused). */
function splitQuery(spec: string, text: string): { head: string; params: Record<string, string> } {
  const q = text.indexOf('?');
  if (q < 0) return { head: text, params: {} };
  const params: Record<string, string> = {};
  for (const part of text.slice(q + 1).split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? 'true' : decodeURIComponent(part.slice(eq + 1));
    if (!key) throw invalid(spec, `empty parameter name in "${part}"`);
    if (Object.prototype.hasOwnProperty.call(params, key)) throw invalid(spec, `parameter "${key}" is given twice`);
    params[key] = value;
  }
  return { head: text.slice(0, q), params };
}

export function parseSpec(spec: string): ParsedSpec {
  if (typeof spec !== 'string' || !spec.trim()) throw invalid(String(spec), 'the spec is empty');
  const colon = spec.indexOf(':');
  const scheme = colon < 0 ? '' : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  switch (scheme) {
    case 'openai': {
      const { head, params } = splitQuery(spec, rest);
      if (!head) throw invalid(spec, 'the model name is missing after "openai:"');
      return { scheme, spec, target: head, params };
    }
    case 'openai-compatible':
    case 'vllm': {
      const hash = rest.lastIndexOf('#');
      if (hash < 0) throw invalid(spec, `"${scheme}:" needs "<base-url>#<model>"`);
      const baseUrl = rest.slice(0, hash);
      // A simulator's model name carries its own parameters (`#sim:steady?seed=3`): it is sent whole,
      // and HTTP settings for it come from the options instead of the spec.
      const modelPart = rest.slice(hash + 1);
      const { head, params } = modelPart.startsWith('sim:') ? { head: modelPart, params: {} } : splitQuery(spec, modelPart);
      if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw invalid(spec, `the base URL "${baseUrl}" must start with http:// or https://`);
      if (!head) throw invalid(spec, 'the model name after "#" is missing');
      if (/^https?:\/\/[^/]*@/.test(baseUrl)) {
        throw namingOption('apiKeyEnv', (n) =>
          invalid(
            spec,
            `the base URL contains credentials (user:password@); specs are stored with runs, so put the key in an environment variable and name it with ${n}`,
          ),
        );
      }
      return { scheme, spec, target: head, baseUrl, params };
    }
    case 'gguf': {
      const { head, params } = splitQuery(spec, rest);
      if (!head) throw invalid(spec, 'the file path is missing after "gguf:"');
      return { scheme, spec, target: head, params };
    }
    case 'sim': {
      const { head, params } = splitQuery(spec, rest);
      if (!head) throw invalid(spec, 'the profile name is missing after "sim:"');
      return { scheme, spec, target: head, params };
    }
    default:
      throw invalid(spec, scheme ? `unknown scheme "${scheme}:"` : 'it has no scheme');
  }
}

/** Parses a numeric spec parameter, naming the spec and key on failure. */
export function numberParam(
  spec: string,
  key: string,
  value: string,
  opts: { min?: number; max?: number; integer?: boolean } = {},
): number {
  const n = Number(value);
  const bad = (what: string) =>
    new UsageError(`invalid model spec ${JSON.stringify(maskUrlCredentials(spec))}: parameter "${key}" ${what} (got "${value}")`, {
      option: key,
    });
  if (value.trim() === '' || !Number.isFinite(n)) throw bad('must be a number');
  if (opts.integer && !Number.isInteger(n)) throw bad('must be an integer');
  if (opts.min != null && n < opts.min) throw bad(`must be at least ${opts.min}`);
  if (opts.max != null && n > opts.max) throw bad(`must be at most ${opts.max}`);
  return n;
}

export function booleanParam(spec: string, key: string, value: string): boolean {
  if (['1', 'true', 'yes', 'on'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
  throw new UsageError(`invalid model spec ${JSON.stringify(spec)}: parameter "${key}" must be true or false (got "${value}")`, {
    option: key,
  });
}
