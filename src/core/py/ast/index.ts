// Python expression parsing, literal evaluation and unparsing (ast.parse / ast.literal_eval /
// ast.unparse), for tool-call actions written as Python calls.
export type { Expr, Keyword, Comprehension } from './nodes.ts';
export { parseExpression, PySyntaxError } from './parse.ts';
export { literalEval, LiteralEvalError } from './literal.ts';
export { unparse } from './unparse.ts';
export { tokenize } from './tokenize.ts';
