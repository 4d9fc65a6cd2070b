// The in-process GGUF backend (node-llama-cpp) and the project's tiny test model. See docs/gguf.md.
export { createGgufModel, GgufModel } from './model.ts';
export type { GgufScoreResult } from './model.ts';
export type {
  RenderedPrompt,
  GenerateTokensRequest,
  GenerateTokensOutput,
  VerifySample,
  VerifyRow,
  VerifyReport,
} from '../capabilities.ts';
export type { GgufModelOptions, GgufSettings, GpuSetting, ScoreTokenization } from './options.ts';
export { parseGgufSpec, resolveGgufSettings } from './options.ts';
export type { GgufStats, TokenScore } from './runtime.ts';
export { disposeAllGgufRuntimes, ContextOverflowError, requireNodeLlamaCpp, NODE_LLAMA_CPP_VERSION } from './runtime.ts';
export { buildBanList, bannedNextTokens, findBannedOccurrence, type TokenSeq } from '../ban.ts';
export { checkLogprob, probabilityToLogprob, checkDistribution, NumericGuardError, LOGPROB_UNDERFLOW_FLOOR } from './numeric-guard.ts';
export { ChatRenderer, strftimeUtc, DEFAULT_TEMPLATE_KWARGS } from './chat-template.ts';
export {
  buildTinyLlamaGguf,
  writeTinyLlamaGguf,
  ensureTinyModel,
  tinyVocabulary,
  TINY_CHAT_TEMPLATE,
  TINY_MODEL_DIR,
} from './tiny-model.ts';
export type { TinyModelOptions } from './tiny-model.ts';
