// Reading actions out of model turns and measuring repetition (docs/harness.md §5.2 step 5, §5.3). The
// canonical form is for measurement only (never executed): kwargs sorted, values as Python repr,
// so the same call with other spacing or argument order counts as a repeat.
import { parseAction, ToolError } from '../../envs/toolshed/index.ts';
import { TOOL_NAMES } from '../../envs/toolshed/tools.ts';
import { pyReprValue } from '../../core/py/values.ts';
import { pyCompare, pySplitlines, pyStripChars } from '../../core/py/strings.ts';
import { PY_SPACE_CLASS, pyStrip } from '../../core/py/format.ts';

// Python's str.splitlines() boundaries.
// re.sub(r"^(?:Action|Tool|Call)\s*:\s*", "", line, flags=re.I); Python's IGNORECASE also folds
// U+0130 and U+0131 to "i".
const LABEL = new RegExp(`^(?:act[i\\u0130\\u0131]on|tool|call)${PY_SPACE_CLASS}*:${PY_SPACE_CLASS}*`, 'iu');
const WS_RUN = new RegExp(`${PY_SPACE_CLASS}+`, 'gu');

/**
 * The action of a ToolShed turn: the first non-empty line after stripping whitespace and then
 * backticks, minus an `Action:`/`Tool:`/`Call:` label; the whole stripped text if no line is left.
 * (A fenced reply whose first line is ```python yields the action `python`, as in the reference.)
 */
export function extractAction(text: string): string {
  const t = pyStrip(text);
  for (const raw of pySplitlines(t)) {
    let line = pyStripChars(pyStrip(raw), '`');
    if (!line) continue;
    line = line.replace(LABEL, '');
    if (line) return line;
  }
  return t;
}

/** `name(<positional reprs>|<k=repr(v) sorted by key>)`, or the action with whitespace runs collapsed. */
export function canonicalAction(action: string): string {
  try {
    const p = parseAction(action);
    const args = [...p.kwargs.entries()]
      .sort((a, b) => pyCompare(a[0], b[0]))
      .map(([k, v]) => `${k}=${pyReprValue(v)}`)
      .join(',');
    const pos = p.positional.map((v) => pyReprValue(v)).join(',');
    return `${p.name}(${pos}|${args})`;
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    return pyStrip(action).replace(WS_RUN, ' ');
  }
}

/** Canonical form of a CodeRepair submission: comments (naively) removed, whitespace collapsed. */
export function canonicalCode(code: string): string {
  return pyStrip(code.replace(/#[^\n]*/g, '')).replace(WS_RUN, ' ');
}

interface StepLike {
  action: string;
  ok: boolean;
}

export interface RepeatStats {
  n_failed_actions: number;
  n_exact_repeats: number;
  n_canonical_repeats: number;
  n_consecutive_repeats: number;
  /** null when the rollout has no failed action (NaN in the reference; such rollouts drop out of means). */
  exact_repeat_rate: number | null;
  canonical_repeat_rate: number | null;
}

/** The reference's `repeat_stats`: repeats among FAILED steps, exact (stripped) and canonical. */
export function repeatStats(steps: readonly StepLike[], canonical: (action: string) => string = canonicalAction): RepeatStats {
  const seenExact = new Set<string>();
  const seenCanon = new Set<string>();
  let nFail = 0;
  let exact = 0;
  let canon = 0;
  let consecutive = 0;
  let prev: string | null = null;
  for (const s of steps) {
    const c = canonical(s.action);
    if (prev !== null && c === prev) consecutive++;
    prev = c;
    if (s.ok) continue;
    nFail++;
    const stripped = pyStrip(s.action);
    if (seenExact.has(stripped)) exact++;
    if (seenCanon.has(c)) canon++;
    seenExact.add(stripped);
    seenCanon.add(c);
  }
  return {
    n_failed_actions: nFail,
    n_exact_repeats: exact,
    n_canonical_repeats: canon,
    n_consecutive_repeats: consecutive,
    exact_repeat_rate: nFail ? exact / nFail : null,
    canonical_repeat_rate: nFail ? canon / nFail : null,
  };
}

const CALL_NAMES = new Set([...TOOL_NAMES, 'finish']);

/** Parse failures split into actions cut off by the token budget and prose (docs/harness.md §5.3). */
export function parseErrorBreakdown(
  actions: readonly string[],
  errorTypes: ReadonlyArray<string | null>,
): { truncated: number; prose: number } {
  let truncated = 0;
  let prose = 0;
  actions.forEach((a, i) => {
    if (errorTypes[i] !== 'parse_error') return;
    const head = pyStrip(pyStrip(a).split('(')[0]);
    const opens = a.split('(').length - 1;
    const closes = a.split(')').length - 1;
    if (CALL_NAMES.has(head) && opens > closes) truncated++;
    else if (!CALL_NAMES.has(head)) prose++;
  });
  return { truncated, prose };
}
