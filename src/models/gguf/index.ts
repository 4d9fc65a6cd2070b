// Public API of the in-process GGUF backend (`revloop/models/gguf`, docs/gguf.md): the model class
// and its options, errors it throws, and shutdown (the tiny random-weight test model is revloop/test's).
// `createModel('gguf:…')` from `revloop/models` reaches the same backend.
export { createGgufModel, GgufModel, type GgufScoreResult } from './model.ts';
export type { GgufModelOptions, GgufSettings, GpuSetting, ScoreTokenization } from './options.ts';
export {
  disposeAllGgufRuntimes,
  requireNodeLlamaCpp,
  ContextOverflowError,
  NODE_LLAMA_CPP_VERSION,
  type GgufStats,
  type TokenScore,
} from './runtime.ts';
export { NumericGuardError } from './numeric-guard.ts';
