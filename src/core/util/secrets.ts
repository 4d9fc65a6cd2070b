// Secrets never reach a record or a terminal: the API key revloop sent (a provider may echo it in
// an error body: "Incorrect API key provided: Bearer sk-…") and the credentials of any URL are
// replaced by `***` wherever provider text is kept or printed. One owner for both rules.

/** Shorter strings are not masked: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** `scheme://user:password@` (password masked) and, for http(s), `scheme://token@` (the whole user part masked). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:"'<>\\]*):([^\s/?#@"'<>\\]*)@/gi;
const HTTP_USER = /\b(https?:\/\/)([^\s/?#@:"'<>\\]+)@/gi;

/** Text with the credentials of every URL in it masked (`user:***@`; a bare http(s) user part `***@`). */
export function maskUrlCredentials(text: string): string {
  if (text.indexOf('@') < 0) return text;
  return text.replace(URL_PASSWORD, (_m, scheme: string, user: string) => `${scheme}${user}:***@`).replace(HTTP_USER, '$1***@');
}

/**
 * Text with every occurrence of the given secrets (an API key) replaced by `***`, and URL
 * credentials masked. `count` says how many replacements were made (for the record's meta).
 */
export function maskSecrets(text: string, secrets: readonly (string | null | undefined)[]): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < MIN_SECRET_LENGTH || out.indexOf(s) < 0) continue;
    const parts = out.split(s);
    count += parts.length - 1;
    out = parts.join('***');
  }
  const masked = maskUrlCredentials(out);
  if (masked !== out) count++;
  return { text: masked, count };
}

/** Masks secrets in every string of a JSON-like value (a new value; the input is not changed). */
export function maskSecretsDeep(value: unknown, secrets: readonly (string | null | undefined)[]): unknown {
  if (typeof value === 'string') return maskSecrets(value, secrets).text;
  if (Array.isArray(value)) return value.map((v) => maskSecretsDeep(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskSecretsDeep(v, secrets);
    return out;
  }
  return value;
}
