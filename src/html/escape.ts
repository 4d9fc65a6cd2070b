// Escaping for the two contexts the report writes: HTML text/attributes, and JSON embedded in a
// <script type="application/json"> element. Everything a model wrote is hostile input here.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}

/**
 * JSON that is safe inside <script type="application/json">: no `<` (so no `</script>` or
 * `<!--`), no `>` or `&`, and no U+2028/U+2029 (legal in JSON but line terminators in older JS
 * parsers and copy-paste targets). JSON.parse in the page restores every character unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
}
