// Python semantics reproduced in TypeScript where a selection or a visible string depends on them:
// random.Random (MT19937), BLAKE2b with a digest size, difflib, round()/format(v, "g"), repr of
// literal values, str ordering/length, and ast.parse / literal_eval / unparse for expressions.
export { PyRandom } from './random.ts';
export { blake2b, blake2bHex } from './blake2b.ts';
export { SequenceMatcher, getCloseMatches } from './difflib.ts';
export { pyRound, pyFormatG } from './numbers.ts';
export {
  PyBytes,
  PyComplex,
  PyDict,
  PyEllipsis,
  PySet,
  PyTuple,
  pyEquals,
  pyHashable,
  pyReprValue,
  pyStr,
  pyTruthy,
  pyTypeName,
  type PyValue,
  type JsonValue,
} from './values.ts';
export { pyCompare, pyLen, pySorted, pyStripChars } from './strings.ts';
export { parseExpression, literalEval, unparse, PySyntaxError, LiteralEvalError, type Expr } from './ast/index.ts';
