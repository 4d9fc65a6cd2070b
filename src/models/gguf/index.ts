// Public API of the in-process GGUF backend (`revloop/models/gguf`, docs/gguf.md): the model class
// and its options, errors it throws, shutdown, and the project's tiny random-weight test model.
// `createModel('gguf:…')` from `revloop/models` reaches the same backend.
export { createGgufModel, GgufModel, type GgufScoreResult } from './model.ts';
export type { GgufModelOptions, GgufSettings, GpuSetting, ScoreTokenization } from './options.ts';
export {
  disposeAllGgufRuntimes,
  ContextOverflowError,
  requireNodeLlamaCpp,
  NODE_LLAMA_CPP_VERSION,
  type GgufStats,
  type TokenScore,
} from './runtime.ts';
export { NumericGuardError } from './numeric-guard.ts';
export { ensureTinyModel, writeTinyLlamaGguf, type TinyModelOptions } from './tiny-model.ts';
