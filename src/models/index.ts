// Public API of the model layer (`revloop/models`, docs/models.md): `createModel(spec, options)` turns a spec string into a Model.
//   openai:<model>                      OpenAI's API (key from OPENAI_API_KEY or options.apiKeyEnv)
//   openai-compatible:<base-url>#<model> any OpenAI-compatible server (vLLM, llama.cpp, Ollama, …)
//   vllm:<base-url>#<model>             the same, plus vLLM's scoring (prompt_logprobs) and bans (bad_words)
//   gguf:<path>                         in-process llama.cpp (src/models/gguf)
//   sim:<profile>[?k=v&…]               a simulated controller (always labelled as a simulation)

export { createModel } from './create.ts';
// ChatMessage, GenerateResult and AttemptRecord, which Model's methods take and return, are the app
// library's: import them from '@revloop/revise'.
export type { Model, GenerateOptions, ScoreResult, ModelCapabilities } from './types.ts';
export type { ModelOptions, HttpRetryPolicy, Clock } from './options.ts';
export { SIM_PROFILES } from './sim/profiles.ts';
export { startSimServer, type SimServer, type SimServerOptions } from './sim/server.ts';
export {
  canScore,
  canBan,
  canBanAnswers,
  canStopOnTokens,
  canTokenize,
  canDecodeTokens,
  hasScoringCounters,
  hasBackendInfo,
  requireScore,
  requireBan,
  requireTokenize,
  modelCapabilities,
  type ScoringModel,
  type BanningModel,
  type AnswerBanningModel,
  type StopTokenModel,
  type TokenizingModel,
  type TokenDecodingModel,
  type ScoringCostModel,
  type BackendInfoModel,
  type ContextSizingModel,
  type ContextFit,
  type CapabilitiesWith,
  type ScoringCounters,
  type VerifySample,
  type VerifyRow,
  type VerifyReport,
  type RenderedPrompt,
  type GenerateTokensRequest,
  type GenerateTokensOutput,
} from './capabilities.ts';
