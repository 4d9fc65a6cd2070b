// A simulated controller: a pure function of (parameters, messages) → text.
//
// It reads the task from the first user message and the verifier's report from the last one, plans
// the next draft as a few numbers (word count, sentence lengths, which content items to include),
// moves those numbers towards what the report asked through a response curve (gain, dead zone,
// add/remove asymmetry, noise), and writes the draft from its own vocabulary. Every random draw
// comes from a hash of the seed and the messages (see rng.ts); the words of a case come from a stream
// keyed on the seed and the initial prompt, so the same plan always gives the same text.
import { canonicalJson, sha256Hex } from '../../core/util/hash.ts';
import type { ChatMessage } from '../types.ts';
import type { SimParams } from './profiles.ts';
import { reviseIfeval } from './ifeval-controller.ts';
import { parseReport, type ExactReport, type StructuredReport } from './report-reader.ts';
import { HashRng, stream } from './rng.ts';
import { parseTask, type SimTask } from './task.ts';
import { FillerStream, capitalize } from './vocabulary.ts';

type SimDecisionKind = 'draft' | 'revise' | 'recur' | 'redraft' | 'unknown-task';

export interface SimOutput {
  text: string;
  decision: { kind: SimDecisionKind; family: SimTask['family']; detail?: Record<string, unknown> };
}

/** Bump when the simulation's behaviour changes: it is mixed into every key. */
export const SIM_VERSION = 'revloop-sim-1';

/** The exact-length word counter's pattern (Python `\b\w+(?:[-']\w+)*\b`), used to plan counts. */
const PY_WORD = /[\p{L}\p{N}_]+(?:[-'][\p{L}\p{N}_]+)*/gu;
export function countPlanWords(text: string): number {
  return text.match(PY_WORD)?.length ?? 0;
}

/**
 * Applies the response curve to a requested integer correction, scaled by `scale` (the memory
 * profile's compensation for the gain it observed; 1 leaves the arithmetic exactly as without it).
 */
function respond(requested: number, p: SimParams, rng: HashRng, scale = 1): number {
  const z = rng.normal();
  if (requested === 0 || Math.abs(requested) <= p.dead) return 0;
  const gain = requested > 0 ? p.gain * (1 + p.asym) : p.gain * (1 - p.asym);
  const x = gain * requested * (1 + p.noise * z);
  return rng.stochasticRound(scale === 1 ? x : x * scale);
}

/** The one number a report asks to move (words, else sentences), for the memory effect. */
function measureOf(report: ExactReport | StructuredReport | null): { observed: number; target: number } | null {
  if (!report) return null;
  if (report.kind === 'exact-length') return { observed: report.count, target: report.target };
  return report.totalWords ?? report.sentences ?? null;
}

/**
 * The memory effect (profile parameter `memory`): the gain the controller observes in its own
 * context — for each earlier revision, how far the measure moved against what the report before it
 * asked, returned drafts left out — and the scale (1 − memory) + memory/ĝ it applies to the next
 * correction. 1 when memory is 0 or the context holds no such pair (the first revision, or after a
 * history reset: the context then holds one draft).
 */
export function memoryScale(messages: readonly ChatMessage[], p: SimParams): number {
  if (!(p.memory > 0)) return 1;
  const exchanges: Array<{ draft: string; m: { observed: number; target: number } | null }> = [];
  for (let i = 1; i + 1 < messages.length; i++)
    if (messages[i].role === 'assistant' && messages[i + 1].role === 'user')
      exchanges.push({ draft: messages[i].content, m: measureOf(parseReport(messages[i + 1].content)) });
  const gains: number[] = [];
  for (let j = 0; j + 1 < exchanges.length; j++) {
    const [a, b] = [exchanges[j].m, exchanges[j + 1].m];
    if (!a || !b || a.target !== b.target || a.target === a.observed) continue;
    if (exchanges.slice(0, j + 1).some((e) => e.draft === exchanges[j + 1].draft)) continue;
    gains.push((b.observed - a.observed) / (a.target - a.observed));
  }
  if (!gains.length) return 1;
  const g = Math.min(3, Math.max(0.2, gains.reduce((s, x) => s + x, 0) / gains.length));
  return 1 - p.memory + p.memory / g;
}

/** Per-case layout: the word stream and sentence lengths, fixed for the whole trajectory. */
class CaseLayout {
  readonly words: FillerStream;
  private readonly lengths: number[] = [];
  private readonly lengthRng: HashRng;

  constructor(
    readonly key: string,
    exclude: Iterable<string>,
  ) {
    this.words = new FillerStream(stream(key, 'words'), new Set([...exclude].map((w) => w.toLowerCase())));
    this.lengthRng = stream(key, 'sentence-lengths');
  }

  /** Length of sentence i (8–15 words) in multi-sentence drafts. */
  sentenceLength(i: number): number {
    while (this.lengths.length <= i) this.lengths.push(8 + this.lengthRng.int(8));
    return this.lengths[i];
  }
}

function sentence(words: string[], capitalizeFirst = true, end = '.'): string {
  if (!words.length) return '';
  const ws = capitalizeFirst ? [capitalize(words[0]), ...words.slice(1)] : words;
  return ws.join(' ') + end;
}

/**
 * A sentence ending in a word that looks like an abbreviation or an initial ("Mr", "A", "U.S")
 * would not be split there by a Punkt sentence splitter; such sentences end with "!" instead.
 */
function endFor(lastWord: string): string {
  return /^\p{Lu}/u.test(lastWord) || lastWord.length <= 2 || lastWord.includes('.') ? '!' : '.';
}

/** Splits a token list into sentences of the layout's lengths. */
function paragraph(tokens: Array<{ w: string; filler: boolean }>, layout: CaseLayout): string {
  const out: string[] = [];
  for (let i = 0, s = 0; i < tokens.length; s++) {
    const n = layout.sentenceLength(s);
    const part = tokens.slice(i, i + n);
    out.push(
      sentence(
        part.map((t) => t.w),
        part[0].filler,
      ),
    );
    i += n;
  }
  return out.join(' ');
}

// ---- builders: plan → text -------------------------------------------------------------------

function buildExact(layout: CaseLayout, words: number, anchors: string[]): string {
  const anchorWords = anchors.reduce((s, a) => s + countPlanWords(a), 0);
  const fillers = layout.words.take(Math.max(0, words - anchorWords)).map((w) => ({ w, filler: true }));
  const tokens = [...fillers];
  // Spread the anchors through the text, last first so earlier insertion points stay valid.
  for (let j = anchors.length - 1; j >= 0; j--) {
    const at = Math.floor(((j + 1) * fillers.length) / (anchors.length + 1));
    tokens.splice(at, 0, { w: anchors[j], filler: false });
  }
  return paragraph(tokens, layout);
}

function buildC05(layout: CaseLayout, words: number, positions: number[], targets: string[], fixed: boolean[]): string {
  const fill = layout.words.take(Math.max(1, words));
  const ws = fill.slice(0, Math.max(1, words));
  positions.forEach((p, i) => {
    if (fixed[i] && p >= 1 && p <= ws.length) ws[p - 1] = targets[i];
  });
  return sentence(ws, !positions.some((p, i) => fixed[i] && p === 1));
}

function buildC07(layout: CaseLayout, required: string[], included: boolean[]): string {
  const base = 10 + (parseInt(layout.key.slice(0, 2), 16) % 7);
  const tokens = layout.words.take(base);
  const chosen = required.filter((_, i) => included[i]);
  for (let j = chosen.length - 1; j >= 0; j--) tokens.splice(Math.floor(((j + 1) * base) / (chosen.length + 1)), 0, chosen[j]);
  return sentence(tokens);
}

function buildSentences(
  layout: CaseLayout,
  lengths: number[],
  edit?: (i: number, ws: string[]) => string[],
  ends?: (i: number) => string,
): string {
  const total = lengths.reduce((s, n) => s + Math.max(1, n), 0);
  const all = layout.words.take(total);
  const out: string[] = [];
  let at = 0;
  lengths.forEach((n, i) => {
    let ws = all.slice(at, at + Math.max(1, n));
    at += Math.max(1, n);
    if (edit) ws = edit(i, ws);
    out.push(sentence(ws, true, ends?.(i) ?? '.'));
  });
  return out.join(' ');
}

function buildC09(layout: CaseLayout, sentences: number, forbidden: string[], included: boolean[]): string {
  const lengths = Array.from({ length: Math.max(1, sentences) }, (_, i) => layout.sentenceLength(i));
  const inserts = forbidden.filter((_, i) => included[i]);
  return buildSentences(layout, lengths, (i, ws) => {
    // Forbidden word j goes into sentence j mod n, after its second word.
    const mine = inserts.filter((_, j) => j % lengths.length === i);
    return mine.length ? [...ws.slice(0, 2), ...mine, ...ws.slice(2)] : ws;
  });
}

function buildC12(layout: CaseLayout, sentences: number, lastWords: string[], fixed: boolean[]): string {
  const lengths = Array.from({ length: Math.max(1, sentences) }, (_, i) => layout.sentenceLength(i));
  const ends = (i: number) => (i < lastWords.length && fixed[i] ? endFor(lastWords[i]) : '.');
  return buildSentences(layout, lengths, (i, ws) => (i < lastWords.length && fixed[i] ? [...ws.slice(0, -1), lastWords[i]] : ws), ends);
}

// ---- the controller ------------------------------------------------------------------------

function firstDraftSize(target: number, p: SimParams, rng: HashRng): number {
  return Math.max(1, Math.round(target * (1 + p.draft_bias + p.draft_noise * rng.normal())));
}

function draft(task: SimTask, layout: CaseLayout, p: SimParams, rng: HashRng): string {
  switch (task.family) {
    case 'exact-length': {
      const n = firstDraftSize(task.target, p, rng);
      return buildExact(
        layout,
        n,
        task.anchors.filter(() => rng.chance(p.draft_fix)),
      );
    }
    case 'c05':
      return buildC05(
        layout,
        firstDraftSize(task.words, p, rng),
        task.positions,
        task.targetWords,
        task.positions.map(() => rng.chance(p.draft_fix)),
      );
    case 'c07':
      return buildC07(
        layout,
        task.required,
        task.required.map(() => rng.chance(p.draft_fix)),
      );
    case 'c09':
      return buildC09(
        layout,
        firstDraftSize(task.sentences, p, rng),
        task.forbidden,
        task.forbidden.map(() => !rng.chance(p.draft_fix)),
      );
    case 'c10': {
      const n = firstDraftSize(task.sentences, p, rng);
      const mid = (task.lower + task.upper) / 2;
      return buildSentences(
        layout,
        Array.from({ length: n }, () => firstDraftSize(mid, p, rng)),
      );
    }
    case 'c12':
      return buildC12(
        layout,
        firstDraftSize(task.sentences, p, rng),
        task.lastWords,
        task.lastWords.map(() => rng.chance(p.draft_fix)),
      );
    case 'unknown':
      return buildSentences(layout, [layout.sentenceLength(0), layout.sentenceLength(1), layout.sentenceLength(2)]);
  }
}

/** Keeps a satisfied item (unless it slips) or fixes a violated one (with probability `fix`). */
function nextFlag(satisfied: boolean, p: SimParams, rng: HashRng): boolean {
  return satisfied ? !rng.chance(p.slip) : rng.chance(p.fix);
}

function revise(
  task: SimTask,
  report: ExactReport | StructuredReport,
  layout: CaseLayout,
  p: SimParams,
  rng: HashRng,
  scale = 1,
): { text: string; detail: Record<string, unknown> } | null {
  if (task.family === 'exact-length' && report.kind === 'exact-length') {
    const delta = respond(report.target - report.count, p, rng, scale);
    const words = Math.max(1, report.count + delta);
    const missing = new Set(report.missing);
    const anchors = task.anchors.filter((a) => nextFlag(!missing.has(a), p, rng));
    return { text: buildExact(layout, words, anchors), detail: { requested: report.target - report.count, applied: delta } };
  }
  if (report.kind !== 'structured') return null;
  switch (task.family) {
    case 'c05': {
      if (!report.totalWords) return null;
      const req = report.totalWords.target - report.totalWords.observed;
      const delta = respond(req, p, rng, scale);
      const fixed = task.positions.map((_, i) => nextFlag(report.positions[i]?.correct ?? false, p, rng));
      return {
        text: buildC05(layout, Math.max(1, report.totalWords.observed + delta), task.positions, task.targetWords, fixed),
        detail: { requested: req, applied: delta },
      };
    }
    case 'c07': {
      const included = task.required.map((_, i) => nextFlag(report.required[i]?.present ?? false, p, rng));
      return { text: buildC07(layout, task.required, included), detail: {} };
    }
    case 'c09': {
      if (!report.sentences) return null;
      const req = report.sentences.target - report.sentences.observed;
      const delta = respond(req, p, rng, scale);
      // "Satisfied" for a forbidden word means absent.
      const included = task.forbidden.map((_, i) => !nextFlag((report.forbidden[i]?.count ?? 0) === 0, p, rng));
      return {
        text: buildC09(layout, Math.max(1, report.sentences.observed + delta), task.forbidden, included),
        detail: { requested: req, applied: delta },
      };
    }
    case 'c10': {
      if (!report.sentences || report.sentences.observed === 0 || !report.sentenceWords.length) return null;
      const lengths = report.sentenceWords.map((s) => Math.max(1, s.words + respond(s.deficit - s.excess, p, rng, scale)));
      const req = report.sentences.target - report.sentences.observed;
      const delta = respond(req, p, rng, scale);
      const n = Math.max(1, lengths.length + delta);
      const mid = Math.round((task.lower + task.upper) / 2);
      while (lengths.length < n) lengths.push(mid);
      lengths.length = n;
      return { text: buildSentences(layout, lengths), detail: { requested: req, applied: delta } };
    }
    case 'c12': {
      if (!report.sentences) return null;
      const req = report.sentences.target - report.sentences.observed;
      const delta = respond(req, p, rng, scale);
      const fixed = task.lastWords.map((_, i) => nextFlag(report.lastWords[i]?.correct ?? false, p, rng));
      return {
        text: buildC12(layout, Math.max(1, report.sentences.observed + delta), task.lastWords, fixed),
        detail: { requested: req, applied: delta },
      };
    }
    default:
      return null;
  }
}

function exclusions(task: SimTask): string[] {
  switch (task.family) {
    case 'exact-length':
      return task.anchors.flatMap((a) => a.toLowerCase().split(/\s+/));
    case 'c05':
      return task.targetWords;
    case 'c07':
      return task.required;
    case 'c09':
      return task.forbidden;
    case 'c12':
      return task.lastWords;
    default:
      return [];
  }
}

/** The simulated controller's reply to a conversation. Pure: same inputs, same text. */
export function simulate(messages: ChatMessage[], p: SimParams): SimOutput {
  const users = messages.filter((m) => m.role === 'user');
  const initial = users[0]?.content ?? '';
  const task = parseTask(initial);
  const caseKey = sha256Hex(`${SIM_VERSION}\u001f${p.seed}\u001f${initial}`);
  const turnKey = sha256Hex(`${SIM_VERSION}\u001f${p.seed}\u001f${canonicalJson(messages.map((m) => [m.role, m.content]))}`);
  const layout = new CaseLayout(caseKey, exclusions(task));
  const rng = stream(turnKey, 'decisions');
  const drafts = messages.filter((m) => m.role === 'assistant').map((m) => m.content);
  const last = messages[messages.length - 1];

  if (task.family === 'unknown') {
    // An IFEval report (the only unparsed task whose report it can act on): fix the listed instructions.
    const revised =
      drafts.length && last?.role === 'user' && last !== users[0] ? reviseIfeval(drafts[drafts.length - 1], last.content, p, rng) : null;
    if (revised) return { text: revised.text, decision: { kind: 'revise', family: task.family, detail: { fixed: revised.fixed } } };
    return { text: draft(task, layout, p, rng), decision: { kind: 'unknown-task', family: task.family } };
  }
  if (!drafts.length || last?.role !== 'user' || last === users[0]) {
    return { text: draft(task, layout, p, rng), decision: { kind: 'draft', family: task.family } };
  }
  // Recurrence: return one of the earlier drafts verbatim (more often with more drafts, under `echo`).
  const recur = p.echo > 0 ? 1 - (1 - p.recur) * (1 - p.echo) ** Math.max(0, drafts.length - 1) : p.recur;
  if (rng.chance(recur)) {
    const i = rng.int(drafts.length);
    return { text: drafts[i], decision: { kind: 'recur', family: task.family, detail: { draft: i } } };
  }
  const report = parseReport(last.content);
  const revised = report ? revise(task, report, layout, p, rng, memoryScale(messages, p)) : null;
  if (!revised) return { text: draft(task, layout, p, rng), decision: { kind: 'redraft', family: task.family } };
  return { text: revised.text, decision: { kind: 'revise', family: task.family, detail: revised.detail } };
}
