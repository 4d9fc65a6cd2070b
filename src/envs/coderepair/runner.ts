// Executing a candidate program against MBPP tests in a fresh Python subprocess (docs/harness.md §7): the
// solution and the tests are written to "solution.py" / "tests.py" in a temporary folder (so that a
// traceback quotes the offending source line), the driver script lives outside that folder (so its
// own frames are filtered out), and the folder path is removed from the output. Kind and number of
// passed asserts come back through @@KIND@@ / @@PASSED@@ markers, which are stripped.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namingOption, UserError } from '../../core/errors.ts';
import { pyStrip } from '../../core/py/format.ts';
import { pySplitlines } from '../../core/py/strings.ts';

/** How a program run ended. */
export type ExecKind = 'ok' | 'syntax_error' | 'runtime_error' | 'test_failure' | 'timeout' | 'unknown';

/** The outcome of `runProgram`: whether every test passed, how it ended, the cleaned interpreter output and the first failing test. */
export interface ExecResult {
  ok: boolean;
  kind: ExecKind;
  /** The cleaned interpreter output (markers removed, temp paths removed, stripped). */
  raw: string;
  /** Asserts that passed before the failure (all of them when ok). */
  passed: number;
  /** First output line that starts with "assert" (test failures only). */
  firstFailingTest: string | null;
}

// Our driver: exec the solution in a fresh namespace, then the tests; format the traceback with
// only the frames that belong to the sandbox folder; count the asserts above the failing line.
const DRIVER = String.raw`
import os, sys, traceback

solution_file, tests_file = sys.argv[1], sys.argv[2]
sandbox = os.path.dirname(os.path.abspath(solution_file))


def report(kind, passed, text=""):
    if text:
        sys.stdout.write(text.rstrip() + "\n")
    sys.stdout.write("@@KIND@@" + kind + "\n@@PASSED@@" + str(passed) + "\n")
    sys.stdout.flush()


def formatted():
    etype, evalue, tb = sys.exc_info()
    frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename).startswith(sandbox)]
    lines = ["Traceback (most recent call last):"] if frames else []
    lines.extend(line.rstrip("\n") for line in traceback.format_list(frames))
    lines.extend(line.rstrip("\n") for line in traceback.format_exception_only(etype, evalue))
    text = "\n".join(lines)
    return text.replace(sandbox + os.sep, "").replace(sandbox, "").replace('"' + os.sep, '"')


namespace = {"__name__": "__solution__"}
with open(solution_file, "r", encoding="utf-8") as fh:
    solution = fh.read()
try:
    exec(compile(solution, solution_file, "exec"), namespace)
except SyntaxError:
    report("syntax_error", 0, formatted())
    sys.exit(1)
except Exception:
    report("runtime_error", 0, formatted())
    sys.exit(1)

with open(tests_file, "r", encoding="utf-8") as fh:
    tests = fh.read()
assert_lines = [n for n, line in enumerate(tests.splitlines(), 1) if line.strip().startswith("assert")]
try:
    exec(compile(tests, tests_file, "exec"), namespace)
except AssertionError:
    frames = traceback.extract_tb(sys.exc_info()[2])
    failing = frames[-1].lineno if frames else 0
    report("test_failure", sum(1 for n in assert_lines if n < failing), formatted())
    sys.exit(1)
except Exception:
    frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if os.path.abspath(f.filename) == os.path.abspath(tests_file)]
    failing = frames[-1].lineno if frames else 0
    report("runtime_error", sum(1 for n in assert_lines if n < failing), formatted())
    sys.exit(1)
report("ok", len(assert_lines))
`;

const DEFAULT_TIMEOUT_S = 10;

/** The Python interpreter `findPython` found: its path and version. */
export interface PythonInfo {
  executable: string;
  version: string;
}

/** Finds a working Python 3 (`python` option, $REVLOOP_PYTHON, then python3); explains what to do otherwise. */
export function findPython(executable?: string): PythonInfo {
  const candidates = executable ? [executable] : [process.env.REVLOOP_PYTHON, 'python3'].filter((x): x is string => !!x);
  for (const exe of candidates) {
    const r = spawnSync(exe, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); assert sys.version_info[0] == 3'], {
      encoding: 'utf8',
    });
    if (r.status === 0) return { executable: exe, version: r.stdout.trim() };
  }
  throw namingOption(
    'python',
    (n) =>
      new UserError(
        `CodeRepair needs a Python 3 interpreter to run candidate programs, and none was found (tried ${candidates.join(', ')}). ` +
          `Install python3, or name one with ${n} (a path) or REVLOOP_PYTHON. (The reference ran CPython 3.12; other versions word some tracebacks differently.)`,
      ),
  );
}

let driverFile: string | null = null;
function driverPath(): string {
  if (!driverFile) {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-coderepair-driver-'));
    driverFile = join(dir, 'driver.py');
    writeFileSync(driverFile, DRIVER);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return driverFile;
}

/** Parses the driver's output into an ExecResult. */
export function parseExecOutput(out: string): ExecResult {
  const kindMatch = /@@KIND@@(\w+)/.exec(out);
  const kind = (kindMatch ? kindMatch[1] : 'unknown') as ExecKind;
  const passedMatch = /@@PASSED@@(\d+)/.exec(out);
  const passed = passedMatch ? Number(passedMatch[1]) : 0;
  const raw = pyStrip(out.replace(/@@(KIND|PASSED)@@\S*\n?/g, ''));
  let firstFailingTest: string | null = null;
  if (kind === 'test_failure') {
    const line = pySplitlines(raw).find((l) => pyStrip(l).startsWith('assert'));
    firstFailingTest = line === undefined ? null : pyStrip(line);
  }
  return { ok: kind === 'ok', kind, raw, passed, firstFailingTest };
}

/** Runs `code` and then the tests (joined by "\n" plus a final "\n") in a fresh interpreter. */
export async function runProgram(
  code: string,
  tests: readonly string[],
  options: { python: string; timeoutS?: number },
): Promise<ExecResult> {
  const sandbox = mkdtempSync(join(tmpdir(), 'revloop-coderepair-'));
  try {
    const solution = join(sandbox, 'solution.py');
    const testFile = join(sandbox, 'tests.py');
    writeFileSync(solution, code);
    writeFileSync(testFile, tests.join('\n') + '\n');
    const timeoutMs = (options.timeoutS ?? DEFAULT_TIMEOUT_S) * 1000;
    const out = await new Promise<string | null>((resolve, reject) => {
      const child = spawn(options.python, [driverPath(), solution, testFile], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', () => {
        clearTimeout(timer);
        resolve(stdout + stderr);
      });
    });
    if (out === null) return { ok: false, kind: 'timeout', raw: 'TimeoutError: execution timed out', passed: 0, firstFailingTest: null };
    return parseExecOutput(out);
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}
