// Public API of the agent rollouts (docs/agent.md): ToolShed tasks run under the six harness
// variants, with the rollout tables of the run store and their analysis.
export { runToolShedRollout, agentTasks, STUDY_SETTINGS, type RolloutSettings, type RolloutRecord, type StopReason } from './engine.ts';
export { runAgentTasks, type AgentRunResult } from '../../app/agent.ts';
export { HARNESSES, HARNESS_NAMES, STUDY_HARNESSES, getHarness, type Harness, type HarnessName } from './harness.ts';
export {
  turnGeneratorFor,
  TurnFailedError,
  END_OF_TURN_MARKERS,
  type TurnGenerator,
  type TurnRequest,
  type TurnResult,
} from './generator.ts';
export {
  extractAction,
  canonicalAction,
  canonicalCode,
  repeatStats,
  parseErrorBreakdown,
  type RepeatStats,
  type StepLike,
} from './actions.ts';
export {
  AgentStore,
  ensureAgentSchema,
  hasAgentTables,
  defaultAgentRunId,
  AGENT_SCHEMA_VERSION,
  type AgentRunRow,
  type AgentRunSettings,
} from './store.ts';
export {
  analyzeAgentStore,
  summariseRollouts,
  pairedContrasts,
  AGENT_ANALYSIS_SCHEMA,
  AGENT_METRICS,
  type AgentAnalysis,
  type AgentRunAnalysis,
  type AgentContrast,
  type MetricSummary,
} from './analyze.ts';
export { renderAgentAnalysis } from './render.ts';
