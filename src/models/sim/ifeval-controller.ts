// What a simulated controller does with an IFEval report (src/core/verify/ifeval/family.ts): it cannot
// read IFEval's free-form prompts, so its first draft is generic; on each report it takes its last
// draft and, for every unmet instruction listed, applies a fix with probability `fix` (the other
// report lines are ignored). Fixes use only what the report says is required. Instructions without
// a fixer here (counts of words, sentences, paragraphs, languages, …) stay as they are: the
// simulation is a plumbing aid, labelled SIMULATED everywhere, not a model of IFEval behaviour.
import { simCount } from './limits.ts';
import type { SimParams } from './profiles.ts';
import type { HashRng } from './rng.ts';

const LINE = /^- ([a-z_]+:[a-z_]+): (.*)$/gm;

/** The unmet instructions an IFEval report lists, with their "measured; required" text. */
export function parseIfevalReport(report: string): Array<{ id: string; detail: string }> | null {
  if (!report.startsWith('DETERMINISTIC VERIFIER REPORT\n- instructions followed (')) return null;
  return [...report.matchAll(LINE)].map((m) => ({ id: m[1], detail: m[2] }));
}

const quoted = (s: string) => [...s.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
const number = (s: string) => simCount(/at least (\d+)/.exec(s)?.[1] ?? /exactly (\d+)/.exec(s)?.[1] ?? '1');

const FIXERS: Record<string, (text: string, detail: string) => string> = {
  'punctuation:no_comma': (t) => t.replaceAll(',', ''),
  'change_case:english_lowercase': (t) => t.toLowerCase(),
  'change_case:english_capital': (t) => t.toUpperCase(),
  'startend:quotation': (t) => `"${t.replace(/^"+|"+$/g, '')}"`,
  'detectable_format:title': (t) => `<<A Simulated Title>>\n${t}`,
  'detectable_content:postscript': (t, d) => `${t}\n\n${/P\.P\.S/.test(d) ? 'P.P.S' : 'P.S.'} This is a simulated postscript.`,
  'detectable_format:number_highlighted_sections': (t, d) =>
    `${t}\n${Array.from({ length: number(d.split(';')[1] ?? d) }, (_, i) => `*highlight ${i + 1}*`).join(' ')}`,
  'detectable_content:number_placeholders': (t, d) =>
    `${t}\n${Array.from({ length: number(d.split(';')[1] ?? d) }, (_, i) => `[placeholder ${i + 1}]`).join(' ')}`,
  'startend:end_checker': (t, d) => `${t} ${quoted(d.split('; ').slice(1).join('; '))[0] ?? ''}`,
  'keywords:existence': (t, d) => `${t} ${quoted(d.split('; ').slice(1).join('; ')).join(' ')}`,
  'detectable_format:constrained_response': (t) => `${t}\nMy answer is yes.`,
  'combination:two_responses': (t) => `${t}\n******\n${t.split(' ').reverse().join(' ')}`,
  'detectable_format:json_format': (t) => JSON.stringify({ response: t }),
};

/** The revision of `draft` for an IFEval report; null when the report is not an IFEval one. */
export function reviseIfeval(draft: string, report: string, p: SimParams, rng: HashRng): { text: string; fixed: string[] } | null {
  const unmet = parseIfevalReport(report);
  if (!unmet) return null;
  let text = draft;
  const fixed: string[] = [];
  // Fixes that must see the final text come last: the end phrase, then the quotes around everything.
  const LAST = ['startend:end_checker', 'startend:quotation'];
  const ordered = [...unmet.filter((u) => !LAST.includes(u.id)), ...LAST.flatMap((id) => unmet.filter((u) => u.id === id))];
  for (const { id, detail } of ordered) {
    const fix = FIXERS[id];
    if (fix && rng.chance(p.fix)) {
      text = fix(text, detail);
      fixed.push(id);
    }
  }
  return { text, fixed };
}
