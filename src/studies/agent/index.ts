// Public API of the agent rollouts (`revloop/studies/agent`, docs/agent.md): ToolShed tasks run under the
// six harness variants with any model, their store, and their analysis.
export { runToolShedRollout, agentTasks, type RolloutSettings, type RolloutRecord } from './engine.ts';
export { STUDY_SETTINGS } from './defaults.ts';
export { STUDY_HARNESSES } from './study-harnesses.ts';
export { turnGeneratorFor, TurnFailedError, type TurnGenerator, type TurnRequest, type TurnResult } from './generator.ts';
export { AgentStore } from './agent-store.ts';
export { analyzeAgentStore, type AgentAnalysis, type AgentRunAnalysis, type AgentContrast, type MetricSummary } from './agent-analysis.ts';
export { renderAgentAnalysis } from './agent-tables.ts';
