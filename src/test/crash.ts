// Crash injection for tests of resumability: a store that "dies" right after its n-th committed
// append, as a killed process would, so that a test can reopen the file and check that nothing
// committed was lost and that the run resumes (docs/store.md, "Fault injection").
import { openBackend, SimulatedCrash, type RunStore, type StoreOptions } from '../store/store.ts';

export { SimulatedCrash };

/**
 * Opens the store at `location` (as `openStore`) so that it crashes right after `afterAppends`
 * committed appends: the append that reaches the count commits, and it and every later write throw
 * SimulatedCrash; groups queued beyond it are lost whole. Reopen the location with `openStore` to
 * see what survived.
 */
export function openCrashingStore(location: string, afterAppends: number, options: StoreOptions = {}): Promise<RunStore> {
  if (!Number.isInteger(afterAppends) || afterAppends < 0) {
    throw new RangeError(`openCrashingStore: afterAppends must be a whole number ≥ 0, not ${afterAppends}`);
  }
  return openBackend(location, { ...options, crashAfterAppends: afterAppends });
}
