// Plans kept parsed per open store, least recently used first: a paper-size plan with its frozen
// cases is a few MB, so a long-lived reader of a store with many runs (the viewer) keeps only the
// few it reads most recently, on every backend.
import type { RunPlannedPayload } from './events.ts';

const PLANS_CACHED = 8;

export class PlanCache {
  private readonly plans = new Map<string, RunPlannedPayload>();

  get(runId: string): RunPlannedPayload | undefined {
    const p = this.plans.get(runId);
    if (p) this.set(runId, p);
    return p;
  }

  set(runId: string, p: RunPlannedPayload): void {
    this.plans.delete(runId);
    this.plans.set(runId, p);
    while (this.plans.size > PLANS_CACHED) this.plans.delete(this.plans.keys().next().value as string);
  }

  /** A run_planned payload as stored (JSON), parsed and kept. */
  parse(runId: string, payload: string): RunPlannedPayload {
    const p = JSON.parse(payload) as RunPlannedPayload;
    this.set(runId, p);
    return p;
  }

  clear(): void {
    this.plans.clear();
  }
}
