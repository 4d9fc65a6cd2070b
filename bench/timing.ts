// Time spent inside a family's or a model's calls, added to a counter, so a benchmark can take the
// verifier's and the simulator's time out of its engine and store figures.
import { getFamily } from '../src/core/verify/index.ts';
import type { Family } from '../src/core/verify/types.ts';
import type { Model } from '../src/models/types.ts';

/** Receives the milliseconds one call took. */
export type AddTime = (ms: number) => void;

/** `fn`, timed. */
export function timed<A extends unknown[], R>(fn: (...a: A) => R, add: AddTime): (...a: A) => R {
  return (...a: A): R => {
    const s = performance.now();
    try {
      return fn(...a);
    } finally {
      add(performance.now() - s);
    }
  };
}

/** A family whose verifier calls (verify, energy, feedback, prompts, token limit) are timed. */
export function timedFamily(f: Family, add: AddTime): Family {
  return {
    ...f,
    verify: timed(f.verify, add),
    energy: timed(f.energy, add),
    feedback: timed(f.feedback, add),
    initialPrompt: timed(f.initialPrompt, add),
    maxNewTokens: timed(f.maxNewTokens, add),
  };
}

/** Registered families by name, each timed (made once per name). */
export function timedFamilies(add: AddTime): (name: string) => Family {
  const families = new Map<string, Family>();
  return (name) => {
    if (!families.has(name)) families.set(name, timedFamily(getFamily(name), add));
    return families.get(name)!;
  };
}

/** A model whose generations are timed. */
export function timedModel(m: Model, add: AddTime): Model {
  return {
    ...m,
    spec: m.spec,
    label: m.label,
    capabilities: m.capabilities,
    generate: async (msgs, o) => {
      const s = performance.now();
      try {
        return await m.generate(msgs, o);
      } finally {
        add(performance.now() - s);
      }
    },
  };
}
