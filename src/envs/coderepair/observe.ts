// How an execution result is shown to the model (docs/harness.md §7): the standard rendering keeps the
// interpreter's message and the quoted source line but drops the frame bookkeeping.
import { pyStrip } from '../../core/py/format.ts';
import { pySplitlines } from '../../core/py/strings.ts';
import type { ExecResult } from './runner.ts';

/** How much of a failed run an observation shows. */
export type CodeVerbosity = 'terse' | 'standard' | 'verbose';

/** The system prompt of CodeRepair items: reply with one Python function definition. */
export const CODEREPAIR_SYSTEM_PROMPT =
  'You are a Python programmer. The user gives a task and the tests that will be run against your code.\n\n' +
  'Rules:\n' +
  '- Reply with one Python function definition and nothing else.\n' +
  '- Do not include the tests, comments, explanations or markdown fences.\n' +
  '- Use exactly the function name that appears in the tests.';

/** The observation a model sees after its program ran: the outcome of the tests at the given verbosity (default `standard`). */
export function renderExecObservation(
  result: ExecResult,
  nTests: number,
  verbosity: CodeVerbosity = 'standard',
  echo = false,
  code = '',
): string {
  let body: string;
  if (result.ok) body = `All ${nTests} tests passed.`;
  else if (result.kind === 'test_failure') {
    if (verbosity === 'terse') body = 'Test failed.';
    else if (verbosity === 'verbose')
      body = `${result.passed}/${nTests} tests passed, then this assertion failed:\n${result.firstFailingTest}\nAssertionError`;
    else body = `${result.firstFailingTest}\nAssertionError`;
  } else if (result.kind === 'timeout') body = 'TimeoutError: execution timed out.';
  else {
    const raw = pyStrip(result.raw);
    const lines = pySplitlines(raw);
    if (verbosity === 'terse') body = lines.length ? lines[lines.length - 1] : 'Error';
    else if (verbosity === 'verbose') body = raw;
    else body = pyStrip(lines.filter((l) => !l.startsWith('Traceback (') && !l.includes('most recent call last')).join('\n'));
  }
  return echo && code ? `${body}\n  submitted:\n${code}` : body;
}

/** The counterfactual success observation: all of the tests passed. */
export const successExecObservation = (nTests: number): string => `All ${nTests} tests passed.`;
/** The neutral (uninformative) observation of CodeRepair's counterfactual conditions. */
export const NEUTRAL_SUBMISSION = 'Submission recorded.';

/** The program in a model turn: the first fenced block, else the text after the last fence, else the text. */
export function extractCode(action: string): string {
  const text = pyStrip(action);
  const fence = /```(?:python)?\s*\n([\s\S]*?)```/.exec(text);
  if (fence) return pyStrip(fence[1]);
  if (text.includes('```')) return pyStrip(text.split('```').pop()!);
  return text;
}
