// The long form of test/text/treebank-fast.test.ts: every string of up to 6 (or 7) characters over
// alphabets of the characters NLTK's Treebank rules care about, through the single-pass scanner and
// through the rule-by-rule port; prints how many strings the scanner answered and every difference
// (there should be none). About 77 million strings, 1.5–3 minutes. Run by hand, never at test time:
//
//   npx tsx scripts/treebank-exhaustive.ts
import { simpleTreebankTokens, treebankRegexTokenize } from '../src/core/text/treebank.ts';

const RUNS: Array<[string[], number]> = [
  [['a', 'n', 't', 's', "'", '"', '.', ',', ':', '1', ' ', '\n', ')', '(', '!', '\u2019', '\u201c'], 6],
  [['d', 'n', 'N', 't', 'T', 's', 'l', 'L', "'", ' ', '.', ',', '?', '\u00a0', '"', ')'], 6],
  [['x', '.', ')', ']', '"', '\u201d', '>', ' ', '\t', '\n', '-', ';', ',', "'", ':'], 6],
  [['a', 's', 't', '.', '-', "'", '"', ')', ' ', '\n', ','], 7],
];

let differences = 0;
for (const [alphabet, max] of RUNS) {
  let total = 0;
  let answered = 0;
  const walk = (prefix: string, depth: number): void => {
    if (depth > 0) {
      total++;
      const fast = simpleTreebankTokens(prefix);
      if (fast) {
        answered++;
        const rules = treebankRegexTokenize(prefix);
        if (fast.length !== rules.length || fast.some((t, i) => t !== rules[i])) {
          if (differences++ < 20)
            console.log(`DIFFERENT ${JSON.stringify(prefix)}: scanner ${JSON.stringify(fast)}, rules ${JSON.stringify(rules)}`);
        }
      }
    }
    if (depth < max) for (const ch of alphabet) walk(prefix + ch, depth + 1);
  };
  walk('', 0);
  console.log(
    `${alphabet.length} characters, up to ${max}: ${total.toLocaleString('en')} strings, scanner answered ${answered.toLocaleString('en')}`,
  );
}
console.log(differences === 0 ? 'no differences' : `${differences} differences`);
process.exitCode = differences === 0 ? 0 : 1;
