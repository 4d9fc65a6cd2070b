// Public API of CodeRepair (`revloop/envs/coderepair`; docs/harness.md §7, optional): MBPP program repair with real execution feedback. Needs a
// Python 3 interpreter and the sanitized MBPP file the user supplies; see docs/probe.md.
export { runProgram, findPython, type ExecResult, type ExecKind, type PythonInfo } from './runner.ts';
export { mutate, type Mutation } from './mutate.ts';
export {
  renderExecObservation,
  successExecObservation,
  extractCode,
  CODEREPAIR_SYSTEM_PROMPT,
  NEUTRAL_SUBMISSION,
  type CodeVerbosity,
} from './observe.ts';
export { loadMbpp, buildCodeRepairItems, PAPER_CODEREPAIR_OPTIONS, type MbppProblem, type BuildCodeRepairOptions } from './items.ts';
