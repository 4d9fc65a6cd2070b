// NLTK's NLTKWordTokenizer (the improved Treebank tokenizer behind `word_tokenize`), ported from
// NLTK 3.8/3.9.2 (`nltk/tokenize/destructive.py`). Later NLTK releases split en/em dashes and changed
// the clitic rule; the reference data predates that (docs/text.md). Each rule is NLTK's regex with
// Python semantics spelled out: Unicode `\w`/`\d`/`\s`, `\b` as lookarounds, `$` = end or before a
// final newline, and `(?i)` as Python's IGNORECASE (pyCaselessLiteral), not JavaScript's `i`.
import { B_AFTER_WORD, B_BEFORE_WORD, D, END, pyCaselessLiteral, pySplit, S, W } from '../py/re.ts';

/**
 * One substitution: NLTK's regex and replacement, plus a cheap necessary condition on the current text
 * (a character or substring every match must contain). Skipping a rule whose trigger is absent cannot
 * change the result and saves most of the regex scans (bench/text.ts).
 */
type Rule = readonly [RegExp, string, (text: string) => boolean];

const rule = (source: string, replacement: string, trigger: (text: string) => boolean): Rule => [
  new RegExp(source, 'gu'),
  replacement,
  trigger,
];
const has =
  (...needles: string[]) =>
  (text: string): boolean =>
    needles.some((n) => text.includes(n));

// Python `(?i)` alternatives of a few letters, e.g. (?!re|ve|…) → explicit classes.
const ci = (alternatives: string[]): string => alternatives.map(pyCaselessLiteral).join('|');

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 ', has('«', '“', '‘', '„', '`')),
  rule('^"', '``', (t) => t.startsWith('"')),
  rule('(``)', ' $1 ', has('``')),
  rule(`([ ([{<])("|'{2})`, '$1 `` ', has('"', "''")),
  rule(`(')(?!${ci(['re', 've', 'll', 'm', 't', 's', 'd', 'n'])})(${W})${B_AFTER_WORD}`, '$1 $2', has("'")),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*${END}`, '$1 $2 $3 ', has('.')),
  rule(`([:,])([^${D}])`, ' $1 $2', has(':', ',')),
  rule(`([:,])${END}`, ' $1 ', has(':', ',')),
  rule('\\.{2,}', ' $& ', has('..')),
  rule('[;@#$%&]', ' $& ', has(';', '@', '#', '$', '%', '&')),
  rule(`([^.])(\\.)([\\])}>"']*)${S}*${END}`, '$1 $2$3 ', has('.')),
  rule('[?!]', ' $& ', has('?', '!')),
  rule("([^'])' ", "$1 ' ", has("' ")),
  rule('[*]', ' $& ', has('*')),
];

const PARENS_BRACKETS: Rule = rule('[\\][(){}<>]', ' $& ', has('[', ']', '(', ')', '{', '}', '<', '>'));
const DOUBLE_DASHES: Rule = rule('--', ' -- ', has('--'));

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 ', has('»', '”', '’')),
  rule("''", " '' ", has("''")),
  rule('"', " '' ", has('"')),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 ', has("'")),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 ', has("'")),
];

// MacIntyre contractions: (?i)\b(can)(not)\b … ; CONTRACTIONS3: (?i) ('t)(is)\b. Each carries its
// lower-case literal: earlier rules only insert spaces and replace quotes with space-padded tokens, so a
// match in the current text implies the literal in the lower-cased input sentence, unless the sentence
// has one of the characters Python's IGNORECASE equates with i or s (İ, ı, ſ), which disables the shortcut.
type Contraction = readonly [RegExp, string, string];
const contraction2 = (a: string, b: string, tail = B_AFTER_WORD): Contraction => [
  new RegExp(`${B_BEFORE_WORD}(${pyCaselessLiteral(a)})(${pyCaselessLiteral(b)})${tail}`, 'gu'),
  ' $1 $2 ',
  a + b,
];
const contraction3 = (a: string, b: string): Contraction => [
  new RegExp(` (${pyCaselessLiteral(a)})(${pyCaselessLiteral(b)})${B_AFTER_WORD}`, 'gu'),
  ' $1 $2 ',
  a + b,
];
const CONTRACTIONS: Contraction[] = [
  contraction2('can', 'not'),
  contraction2('d', "'ye"),
  contraction2('gim', 'me'),
  contraction2('gon', 'na'),
  contraction2('got', 'ta'),
  contraction2('lem', 'me'),
  contraction2('more', "'n"),
  contraction2('wan', 'na', `(?=${S})`),
  contraction3("'t", 'is'),
  contraction3("'t", 'was'),
];
const ODD_CASE = /[\u0130\u0131\u017f]/u;

function apply(text: string, rules: readonly Rule[]): string {
  for (const [re, replacement, trigger] of rules) if (trigger(text)) text = text.replace(re, replacement);
  return text;
}

/** NLTK `NLTKWordTokenizer().tokenize(sentence)` (convert_parentheses=False). */
export function treebankWordTokenize(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ' ' + text + ' ';
  text = apply(text, ENDING_QUOTES);
  const lower = sentence.toLowerCase();
  const odd = ODD_CASE.test(sentence);
  for (const [re, replacement, literal] of CONTRACTIONS) {
    if (odd || lower.includes(literal)) text = text.replace(re, replacement);
  }
  return pySplit(text);
}
