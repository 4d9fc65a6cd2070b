// A whole file's row problems in one error: `file:line: field: problem` lines, at most a few of
// each kind (a binary or wrong file repeats one problem on every line) and N in all, then counts of
// the rest.
import { InputError, formatLocation, markErrorClass, printable } from '../errors.ts';
import type { CaseProblem } from './types.ts';

export const DEFAULT_MAX_SHOWN = 20;
/** Problems of one kind shown before the rest of that kind are counted. */
export const MAX_SHOWN_PER_KIND = 3;

/**
 * What a problem is, without its particulars: its field and its text up to any parenthesis or
 * semicolon, with quoted values and numbers blanked ("invalid JSON (Unexpected token …)" →
 * "invalid JSON").
 */
export function problemKind(p: Pick<CaseProblem, 'field' | 'problem'>): string {
  const text = p.problem
    .replace(/\s*[(;].*$/s, '')
    .replace(/"[^"]*"|'[^']*'/g, '…')
    .replace(/(?<!UTF-)\d+/g, 'N');
  return p.field ? `${p.field}: ${text}` : text;
}

/** Line numbers as ranges: 4–50, 52, 60–61. */
function lineRanges(lines: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    out.push(i === j ? String(lines[i]) : `${lines[i]}–${lines[j]}`);
    i = j;
  }
  return out.length > 6 ? `${out.slice(0, 6).join(', ')}, …` : out.join(', ');
}

export function renderProblems(file: string, problems: CaseProblem[], maxShown = DEFAULT_MAX_SHOWN): string {
  const shown: string[] = [];
  const perKind = new Map<string, { shown: number; held: CaseProblem[] }>();
  let over = 0;
  for (const p of problems) {
    const kind = problemKind(p);
    let k = perKind.get(kind);
    if (!k) perKind.set(kind, (k = { shown: 0, held: [] }));
    if (k.shown < MAX_SHOWN_PER_KIND && shown.length < maxShown) {
      k.shown++;
      shown.push(formatLocation(file, p.line, p.field, p.problem));
    } else if (k.shown >= MAX_SHOWN_PER_KIND) k.held.push(p);
    else over++;
  }
  for (const [kind, k] of perKind) {
    if (!k.held.length) continue;
    const lines = k.held.map((p) => p.line).filter((l): l is number => l !== null);
    shown.push(
      printable(
        `… and ${k.held.length} more of the kind "${kind}"${lines.length ? ` (line${lines.length === 1 ? '' : 's'} ${lineRanges(lines)})` : ''}`,
      ),
    );
  }
  if (over > 0) shown.push(printable(`… and ${over} more problem${over === 1 ? '' : 's'} in ${file}`));
  return shown.join('\n');
}

/**
 * Thrown by `loadCaseSet` when a case file has problems: an `InputError` carrying every problem
 * (`problems`; `line`, `field` and `problem` are the first one's). Its message is `message` as
 * given: `caseSetMessage` words it, a count and `file:line: field: problem` lines.
 */
export class CaseSetError extends InputError {
  /** Whether `e` is a CaseSetError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<CaseSetError>(this, 'revloop.error.CaseSetError');
  readonly problems: CaseProblem[];

  constructor(message: string, options: { file: string; problems: CaseProblem[]; cause?: unknown }) {
    const first = options.problems[0] ?? { line: null, field: null, problem: 'invalid case set' };
    super(first.problem, { ...options, line: first.line, field: first.field });
    this.problems = options.problems;
    this.name = 'CaseSetError';
    this.message = message;
  }
}

/** The message of a CaseSetError: how many problems `file` has, then at most `maxShown` of them (see renderProblems). */
export function caseSetMessage(file: string, problems: CaseProblem[], maxShown = DEFAULT_MAX_SHOWN): string {
  const head = `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was loaded`;
  return `${head}\n${renderProblems(file, problems, maxShown)}`;
}
