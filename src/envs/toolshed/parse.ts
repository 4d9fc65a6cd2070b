// Action parsing (docs/harness.md §1.4): strip fences and a speaker label, parse one Python expression,
// require a call to a bare name, and evaluate every argument with literal_eval semantics.
import { parseExpression, PySyntaxError } from '../../core/py/ast/parse.ts';
import { literalEval, LiteralEvalError } from '../../core/py/ast/literal.ts';
import { unparse } from '../../core/py/ast/unparse.ts';
import type { Expr } from '../../core/py/ast/nodes.ts';
import type { PyValue } from '../../core/py/values.ts';
import { PY_SPACE_CLASS, pyStrip } from '../../core/py/format.ts';
import { parseEmptyError, parseKwargsError, parseNonLiteralError, parseNotCallError, parseSyntaxError, ToolError } from './errors.ts';

/** A parsed tool call: the tool name and its keyword arguments as Python values. */
export interface ParsedAction {
  name: string;
  /** Keyword arguments in call order (a repeated keyword keeps its first position, last value). */
  kwargs: Map<string, PyValue>;
  positional: PyValue[];
}

const LEADING_FENCE = new RegExp(`^\`\`\`(?:python|tool_code)?${PY_SPACE_CLASS}*`, 'u');
const TRAILING_FENCE = new RegExp(`${PY_SPACE_CLASS}*\`\`\`$`, 'u');
// Python's re.IGNORECASE also matches U+0130 and U+0131 for "i"; JS case folding does not.
const LABEL = new RegExp(
  `^(?:act[i\\u0130\\u0131]on|tool|call|you|user|ass[i\\u0130\\u0131]stant|response|reply)${PY_SPACE_CLASS}*:${PY_SPACE_CLASS}*`,
  'iu',
);

/** The text that is handed to the Python parser: fences and one leading label removed. */
export function cleanActionText(action: string): string {
  let text = pyStrip(action);
  text = text.replace(LEADING_FENCE, '');
  text = pyStrip(text.replace(TRAILING_FENCE, ''));
  text = pyStrip(text.replace(LABEL, ''));
  return text;
}

function literal(node: Expr, tool: string): PyValue {
  try {
    return literalEval(node);
  } catch (e) {
    if (e instanceof LiteralEvalError) throw parseNonLiteralError(tool, unparse(node));
    throw e;
  }
}

/** Parse `tool(arg=value, …)`; throws a `parse_error` ToolError on anything else. */
export function parseAction(action: string): ParsedAction {
  const text = cleanActionText(action);
  if (!text) throw parseEmptyError();
  let node: Expr;
  try {
    node = parseExpression(text);
  } catch (e) {
    if (e instanceof PySyntaxError) throw parseSyntaxError(e.message);
    throw e;
  }
  if (node.kind !== 'Call' || node.func.kind !== 'Name') throw parseNotCallError();
  const name = node.func.id;
  const kwargs = new Map<string, PyValue>();
  for (const kw of node.keywords) {
    if (kw.arg === null) throw parseKwargsError();
    kwargs.set(kw.arg, literal(kw.value, name));
  }
  const positional = node.args.map((a) => literal(a, name));
  return { name, kwargs, positional };
}

/** The parsed tool name, or null when the action does not parse (used for `tool` fields). */
export function actionToolName(action: string): string | null {
  try {
    return parseAction(action).name;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}
