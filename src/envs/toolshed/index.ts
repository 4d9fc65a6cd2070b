// ToolShed: the tool-use environment of the feedback-inversion study, its error families,
// counterfactual observations, perturbation operators, task templates and probe item builder.
export { TOOLS, TOOL_NAMES, TOOLS_BY_NAME, UNIT_TABLE, toolSignature, toolDoc, unitFactor } from './tools.ts';
export type { ArgSpec, ArgType, ToolSpec } from './tools.ts';
export { systemPrompt, withNegativeInstruction, DEMO, NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX } from './prompt.ts';
export type { SystemPromptOptions } from './prompt.ts';
export { ToolError, renderError, closest, errorGloss, ERROR_GLOSS, PROBE_ERROR_FAMILIES, ROLLOUT_ONLY_ERROR_FAMILIES } from './errors.ts';
export type { RenderOptions, Verbosity, NotFoundKind } from './errors.ts';
export { parseAction, cleanActionText, actionToolName } from './parse.ts';
export type { ParsedAction } from './parse.ts';
export { buildWorld, cloneWorld, FIRST_NAMES, LAST_NAMES, TEAMS, FOLDERS, FILE_STEMS, FILE_CONTENT } from './world.ts';
export type { World, Contact, CalendarEvent, FileEntry, Reminder, SentMessage } from './world.ts';
export { DEFAULT_SEED, deriveSeed, rngFor } from './seeding.ts';
export { step, bindArguments, renderResult } from './step.ts';
export type { Outcome } from './step.ts';
export { successObservation, neutralObservation, lengthMatchedNeutral, traceUnit, NEUTRAL_OBSERVATION } from './counterfactual.ts';
export type { NeutralOptions } from './counterfactual.ts';
export { generateTasks, generateAgentTasks, isSolved, taskWorld, formatCall, PROBE_TEMPLATES, AGENT_TEMPLATES } from './tasks.ts';
export type { Task, TaskPayload, TemplateName, ProbeTemplate, Difficulty } from './tasks.ts';
export { perturbations, TOOL_TYPOS, ARG_TYPOS, MONTHS, PROBE_OPERATORS } from './perturb.ts';
export type { Perturbation } from './perturb.ts';
export {
  buildToolshedItems,
  itemsAtStep,
  renderWorlds,
  itemToJson,
  itemsToJsonl,
  writeItemsJsonl,
  readItemsJsonl,
  summarizeItems,
  stratifiedSubsample,
  PAPER_TOOLSHED_OPTIONS,
} from './items.ts';
export type { ProbeItem, BuildToolshedOptions, ItemSummary, RenderWorlds, StepContext } from './items.ts';
