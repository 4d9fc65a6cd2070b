// Helpers for store tests: run the toy family through the real engine and store, and compare
// stores modulo what legitimately differs between sessions (timestamps, ids, session markers,
// and attempts lost in flight at a crash).
import { executeRun, type RunRequest, type RunResult } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL, type ProtocolConfig } from '../../src/engine/protocol.ts';
import type { StoredEvent } from '../../src/store/events.ts';
import { openStore, type RunStore, type StoreOptions } from '../../src/store/store.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { fakeModel, resolveToy, toyCases, type FakeModelOptions } from '../loop/fakes.ts';
import { tempDir as makeTempDir } from '../tmp.ts';

export function tempDir(prefix = 'revloop-store-'): string {
  return makeTempDir(prefix);
}

export interface ToyRunOptions {
  runId?: string;
  cases?: ConstraintCase[];
  protocol?: Partial<ProtocolConfig>;
  model?: FakeModelOptions;
  concurrency?: number;
  store?: StoreOptions;
  extra?: Partial<RunRequest>;
}

export async function toyRun(path: string, o: ToyRunOptions = {}): Promise<RunResult> {
  const store = await openStore(path, o.store);
  try {
    return await runToyIn(store, o);
  } finally {
    await store.close();
  }
}

export function runToyIn(store: RunStore, o: ToyRunOptions = {}): Promise<RunResult> {
  const cases = o.cases ?? toyCases(8);
  return executeRun({
    store,
    runId: o.runId ?? 'toy',
    cases,
    caseSet: { format: 'toy', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
    model: fakeModel(o.model),
    protocol: { ...PAPER_PROTOCOL, ...o.protocol },
    resolveFamily: resolveToy,
    concurrency: o.concurrency ?? 3,
    abandonAfterMs: 50,
    ...o.extra,
  });
}

/**
 * Per-case event payloads with timestamps, ids and session markers removed, and generations that
 * never ended (attempts in flight when a process died) dropped. Returns them and the drop count.
 */
export function normalisedEvents(events: readonly StoredEvent[]): { byCase: Map<number, unknown[]>; lostGenerations: number } {
  const byCase = new Map<number, StoredEvent[]>();
  for (const e of events) {
    if (e.caseIndex === null) continue;
    const l = byCase.get(e.caseIndex) ?? [];
    l.push(e);
    byCase.set(e.caseIndex, l);
  }
  let lost = 0;
  const out = new Map<number, unknown[]>();
  for (const [i, list] of byCase) {
    const kept: unknown[] = [];
    let generation: StoredEvent[] = [];
    const flush = (ended: boolean) => {
      if (!generation.length) return;
      if (ended) kept.push(...generation.map(strip));
      else lost++;
      generation = [];
    };
    for (const e of list) {
      if (e.type === 'attempt_started') {
        flush(false);
        generation.push(e);
      } else if (e.type === 'attempt_finished') generation.push(e);
      else {
        flush(e.type === 'draft_accepted' || e.type === 'trajectory_incomplete');
        kept.push(strip(e));
      }
    }
    flush(false);
    out.set(i, kept);
  }
  return { byCase: out, lostGenerations: lost };
}

function strip(e: StoredEvent): unknown {
  const payload = structuredClone(e.payload) as unknown as Record<string, unknown>;
  if (e.type === 'attempt_finished') {
    const rec = { ...(payload.record as Record<string, unknown>) };
    delete rec.startedAt;
    delete rec.latencyMs;
    payload.record = rec;
  }
  return { type: e.type, caseIndex: e.caseIndex, revision: e.revision, payload };
}
