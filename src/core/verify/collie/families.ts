// The eight COLLIE structures the paper does not use, as `Family` objects. Prompts are COLLIE's own
// task text wrapped exactly as the paper wraps c05…c12 (collieTaskFamily); feedback is the
// report (feedback-text.ts) plus the paper's closing instruction; token limits follow c07/c09/c12.
import { describe, intProblem, stringListProblem, textProblem } from '../checks.ts';
import { collieTaskFamily, witnessSizedTokens } from '../structured/families.ts';
import type { Family, VerifierState } from '../types.ts';
import { reportC01, reportC02, reportC03, reportC04, reportC06a, reportC08, reportC11, reportC14 } from './feedback-text.ts';
import type { CollieCode } from './types.ts';
import { verifyC01, verifyC02, verifyC03, verifyC04, verifyC06a, verifyC08, verifyC11, verifyC14 } from './verifiers.ts';

interface CollieSpec<S extends VerifierState> {
  name: CollieCode;
  description: string;
  verify(text: string, targets: unknown): S;
  report(state: S): string;
  targetsProblem(targets: unknown): string | null;
}

/**
 * COLLIE's structures: token limits as c07/c09/c12, no corruption checks; outside the revision loop
 * they judge the text as given, as COLLIE's checker does (text-rule.ts).
 */
function makeFamily<S extends VerifierState>(spec: CollieSpec<S>): Family<S> {
  return { ...collieTaskFamily({ ...spec, maxNewTokens: witnessSizedTokens }), textRule: 'as-given' };
}

function pair(t: unknown, shape: string, what: [string, string], mins: [number, number]): string | null {
  if (!Array.isArray(t) || t.length !== 2) return `must be ${shape}, got ${describe(t)}`;
  for (let i = 0; i < 2; i++) {
    const p = intProblem(t[i], mins[i]);
    if (p) return `${what[i]} ${p}`;
  }
  return null;
}

function singleCharacter(x: unknown, what: string): string | null {
  if (typeof x !== 'string') return `${what} must be a string, got ${describe(x)}`;
  if ([...x].length !== 1) return `${what} must be one character, got ${JSON.stringify(x)}`;
  return null;
}

const c01Family = makeFamily({
  name: 'c01',
  description: 'a word with at least N characters',
  verify: verifyC01,
  report: reportC01,
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 1) return `must be [minimum characters], got ${describe(t)}`;
    return intProblem(t[0], 1);
  },
});

const c02Family = makeFamily({
  name: 'c02',
  description: 'a word with exactly N characters and given characters at positions 4, 8 and 11',
  verify: verifyC02,
  report: reportC02,
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 2)
      return `must be [character count, [character 4, character 8, character 11]], got ${describe(t)}`;
    const p = intProblem(t[0], 1);
    if (p) return `character count ${p}`;
    const w = stringListProblem(t[1], { exact: 3 });
    if (w) return `position characters ${w}`;
    for (const ch of t[1] as string[]) {
      const c = singleCharacter(ch, 'each position character');
      if (c) return c;
    }
    return null;
  },
});

const c03Family = makeFamily({
  name: 'c03',
  description: 'a word with exactly N characters whose last character is given',
  verify: verifyC03,
  report: reportC03,
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 2) return `must be [character count, last character], got ${describe(t)}`;
    const p = intProblem(t[0], 1);
    if (p) return `character count ${p}`;
    return singleCharacter(t[1], 'the last character');
  },
});

const c04Family = makeFamily({
  name: 'c04',
  description: 'a sentence with exactly N characters, whitespace included',
  verify: verifyC04,
  report: reportC04,
  targetsProblem: (t) => intProblem(t, 1),
});

const c06aFamily = makeFamily({
  name: 'c06a',
  description: 'at least N words, each with at most M characters',
  verify: verifyC06a,
  report: reportC06a,
  targetsProblem: (t) => pair(t, '[minimum words, maximum characters per word]', ['minimum words', 'maximum characters'], [1, 1]),
});

const c08Family = makeFamily({
  name: 'c08',
  description: 'every sentence starts with the given word',
  verify: verifyC08,
  report: reportC08,
  targetsProblem: (t) => textProblem(t, 'the first word of every sentence'),
});

const c11Family = makeFamily({
  name: 'c11',
  description: 'at least N sentences, each with at least L words',
  verify: verifyC11,
  report: reportC11,
  targetsProblem: (t) => pair(t, '[minimum sentences, minimum words per sentence]', ['minimum sentences', 'minimum words'], [1, 0]),
});

const c14Family = makeFamily({
  name: 'c14',
  description: 'one paragraph per given sentence, ending in it, each with at least M sentences',
  verify: verifyC14,
  report: reportC14,
  targetsProblem: (t) => {
    if (!Array.isArray(t) || t.length !== 2) return `must be [[final sentence, …], minimum sentences per paragraph], got ${describe(t)}`;
    const w = stringListProblem(t[0], { min: 1 });
    if (w) return `final sentences ${w}`;
    const p = intProblem(t[1], 0);
    return p ? `minimum sentences per paragraph ${p}` : null;
  },
});

export const COLLIE_FAMILIES = [c01Family, c02Family, c03Family, c04Family, c06aFamily, c08Family, c11Family, c14Family];
