// Refusing cleanly: experiments that need teacher-forced scoring or decoder bans call these before
// starting, so a backend that cannot do it stops the run with a message instead of approximating.
import { CapabilityError } from '../core/errors.ts';
import type { Model } from './types.ts';

const HOW =
  'Use a gguf: model (in-process llama.cpp) or a vllm: spec (a vLLM server: prompt_logprobs scoring, bad_words bans); sim: models emulate both with a toy LM.';

/** Throws a CapabilityError unless the model can score continuations (teacher forcing). */
export function requireScore(model: Model, purpose = 'this experiment'): asserts model is Model & { score: NonNullable<Model['score']> } {
  if (!model.capabilities.score || typeof model.score !== 'function') {
    throw new CapabilityError(
      `${model.label} cannot score a given continuation (no teacher-forced log-probabilities), which ${purpose} needs. ${HOW}`,
    );
  }
}

/** Throws a CapabilityError unless the model can ban token sequences during decoding. */
export function requireBan(model: Model, purpose = 'this harness'): void {
  if (!model.capabilities.ban) {
    throw new CapabilityError(`${model.label} cannot ban token sequences during decoding, which ${purpose} needs. ${HOW}`);
  }
}
