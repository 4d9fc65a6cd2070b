// Public API of ToolShed (`revloop/envs/toolshed`, docs/toolshed.md), the tool-use environment of the
// feedback-inversion study: seeded worlds, the tools, the action parser and runtime, counterfactual
// observations, perturbations, tasks with goal predicates, and the probe item builder. The data
// tables and rendering helpers behind them stay inside the repository.
export { TOOLS, type ToolSpec, type ArgSpec, type ArgType } from './tools.ts';
export { systemPrompt, withNegativeInstruction, type SystemPromptOptions } from './prompt.ts';
export {
  buildWorld,
  cloneWorld,
  type World,
  type Contact,
  type CalendarEvent,
  type FileEntry,
  type Reminder,
  type SentMessage,
} from './world.ts';
export { parseAction, type ParsedAction } from './parse.ts';
export { step, type Outcome } from './step.ts';
export { ToolError, errorGloss, PROBE_ERROR_FAMILIES, type RenderOptions, type Verbosity } from './errors.ts';
export { successObservation, neutralObservation, lengthMatchedNeutral, type NeutralOptions } from './counterfactual.ts';
export {
  generateTasks,
  generateAgentTasks,
  taskWorld,
  isSolved,
  type Task,
  type TaskPayload,
  type TemplateName,
  type Difficulty,
} from './tasks.ts';
export { perturbations, type Perturbation } from './perturb.ts';
export {
  buildToolshedItems,
  stratifiedSubsample,
  writeItemsJsonl,
  readItemsJsonl,
  PAPER_TOOLSHED_OPTIONS,
  type BuildToolshedOptions,
} from './items.ts';
