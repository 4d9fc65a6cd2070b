// A whole file's row problems in one error: `file:line: field: problem` lines, the first N shown,
// then a count of the rest.
import { InputError, formatLocation } from '../errors.ts';
import type { CaseProblem } from './types.ts';

export const DEFAULT_MAX_SHOWN = 20;

export function renderProblems(file: string, problems: CaseProblem[], maxShown = DEFAULT_MAX_SHOWN): string {
  const shown = problems.slice(0, maxShown).map((p) => formatLocation(file, p.line, p.field, p.problem));
  const rest = problems.length - shown.length;
  if (rest > 0) shown.push(`… and ${rest} more problem${rest === 1 ? '' : 's'} in ${file}`);
  return shown.join('\n');
}

/**
 * Thrown by `loadCaseSet` when a case file has problems: an `InputError` carrying every problem (`problems`), rendered `file:line: field:
 * problem`.
 */
export class CaseSetError extends InputError {
  constructor(
    file: string,
    readonly problems: CaseProblem[],
    maxShown = DEFAULT_MAX_SHOWN,
  ) {
    const first = problems[0] ?? { line: null, field: null, problem: 'invalid case set' };
    super(file, first.line, first.field, first.problem);
    this.name = 'CaseSetError';
    const head = `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was loaded`;
    this.message = `${head}\n${renderProblems(file, problems, maxShown)}`;
  }
}
