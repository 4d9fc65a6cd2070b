// Writing a case set in revloop's native format, atomically (temporary file + rename): either the
// complete file appears or nothing does.
import { writeFileAtomic } from '../util/atomic-file.ts';
import { getFamily, hasFamily } from '../verify/registry.ts';
import type { ConstraintCase } from '../verify/types.ts';
import { CaseSetError, caseSetMessage } from './errors.ts';
import { nativeRow } from './formats/native.ts';
import type { CaseProblem } from './types.ts';

/** Field problems of cases about to be written ("line" = the 1-based line each case will occupy). */
export function caseProblems(cases: ConstraintCase[]): CaseProblem[] {
  const problems: CaseProblem[] = [];
  const seen = new Map<string, number>();
  cases.forEach((c, i) => {
    const line = i + 1;
    if (typeof c.id !== 'string' || c.id === '') problems.push({ line, field: 'id', problem: 'must be a non-empty string' });
    else if (seen.has(c.id))
      problems.push({ line, field: 'id', problem: `duplicate id ${JSON.stringify(c.id)} (first on line ${seen.get(c.id)})` });
    else seen.set(c.id, line);
    if (!hasFamily(c.family)) {
      problems.push({ line, field: 'family', problem: `unknown family '${c.family}'` });
      return;
    }
    for (const [field, problem] of getFamily(c.family).validateCase(c)) problems.push({ line, field, problem });
  });
  return problems;
}

/**
 * Writes cases as native JSON Lines (docs/cases.md), one object per line in the given order.
 * Field problems (unknown family, missing targets, duplicate ids) refuse the write with a
 * CaseSetError and leave no file behind. Witnesses are not re-verified here.
 */
export async function writeCaseSet(path: string, cases: ConstraintCase[]): Promise<void> {
  const problems = caseProblems(cases);
  if (problems.length) throw new CaseSetError(caseSetMessage(path, problems), { file: path, problems });
  const body = cases.map((c) => JSON.stringify(nativeRow(c)) + '\n').join('');
  await writeFileAtomic(path, body);
}
