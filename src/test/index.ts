// Test doubles and hooks (`revloop/test`, docs/library.md): for the tests of code built on revloop,
// never for production. Crash injection into a store, the tiny random-weight GGUF model that runs
// the real llama.cpp paths, and a scripted, fault-injecting OpenAI-compatible server. Nothing in
// src/ imports this folder (eslint-rules/layers.mjs); the simulated controllers (`sim:`, `revloop
// serve-sim`) are a product feature and stay in 'revloop/models'.
export { openCrashingStore, SimulatedCrash } from './crash.ts';
export { ensureTinyModel, writeTinyLlamaGguf, type TinyModelOptions } from './tiny-model.ts';
export { startFaultServer, chatOk, type FaultServer, type SeenRequest, type FaultStep, type FaultFallback } from './fault-server.ts';
