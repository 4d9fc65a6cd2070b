// Probe runs in the run store, through the store's study kit. A probe run is one (model,
// environment) — its plan — with its items, length-matched paddings and one score per (item,
// condition, candidate), the reference's resume key, each a keyed record stored exactly once. A
// resumed session skips keys that are present; sessions record cost counters.
import { namingOption, UserError } from '../../core/errors.ts';
import { legacyModelLabelSlug, modelLabelSlug } from '../../core/util/slug.ts';
import type { Model } from '../../models/types.ts';
import {
  appendRecords,
  finishStudySession,
  openStudyRun,
  readRecords,
  recordKeys,
  startStudySession,
  studyRuns,
  studySessions,
  type StudySession,
} from '../../store/study-runs.ts';
import { openStore, type RunStore, type StoreOptions } from '../../store/store.ts';
import { registerRunKind } from '../../store/run-kinds.ts';
import { recordsRunKind } from '../kit/run-kind.ts';
import { itemSha256 } from './items.ts';
import type { CandidateName, Condition, ProbeItem, ScoreRecord } from './probe-types.ts';

/** The store's run kind of probe runs, registered with the store (one per model and environment). */
export const PROBE_RUN_KIND = 'probe';
registerRunKind(recordsRunKind({ kind: PROBE_RUN_KIND, study: 'probe', settings: ['env'] }));

interface ProbeRunRow {
  run_id: string;
  env: string;
  model_spec: string;
  model_label: string;
  simulated: boolean;
}

interface ProbeSessionStart {
  conditions: readonly Condition[];
  itemsSource: string;
  itemsSha256: string;
  nItems: number;
  backend: Record<string, unknown>;
}

interface ProbeSessionEnd {
  status: 'complete' | 'interrupted' | 'failed';
  nScored: number;
  nUnavailable: number;
  counters: { forwardTokens: number; forwardCalls: number; naiveTokens: number } | null;
  seconds: number;
}

interface ScoreRow extends ScoreRecord {
  session: number | null;
  at: string;
}

interface Padding {
  observation: string;
  units: number;
  targetTokens: number;
  tokens: number;
}

export function scoreKey(itemId: string, condition: string, candidate: string): string {
  return `${itemId}\t${condition}\t${candidate}`;
}

/** Default run id of a (model, environment): readable, stable across sessions. */
export function defaultProbeRunId(env: string, modelLabel: string): string {
  return `probe-${env}-${modelLabelSlug(modelLabel)}`;
}

/** The default run id earlier versions gave (`probe-toolshed-sim-steady-sim`), still resumed. */
export function earlierProbeRunId(env: string, modelLabel: string): string {
  return `probe-${env}-${legacyModelLabelSlug(modelLabel)}`;
}

/** The probe runs of one store. */
export class ProbeStore {
  constructor(readonly store: RunStore) {}

  /** Opens a store for this study's runs (close it with `close()`). */
  static async open(location: string, options: StoreOptions = {}): Promise<ProbeStore> {
    return new ProbeStore(await openStore(location, options));
  }

  close(): Promise<void> {
    return this.store.close();
  }

  async listRuns(): Promise<ProbeRunRow[]> {
    return (await studyRuns(this.store, PROBE_RUN_KIND)).map(({ runId, plan }) => ({
      run_id: runId,
      env: String(plan.settings.env),
      model_spec: plan.controller.spec,
      model_label: plan.controller.label,
      simulated: plan.controller.simulated,
    }));
  }

  /**
   * Creates the run on first use; a later session must name the same environment and model
   * (a different one is refused, naming what differs).
   */
  async openRun(
    runId: string,
    env: string,
    model: { spec: string; label: string; capabilities: Pick<Model['capabilities'], 'simulated'> },
  ): Promise<{ created: boolean }> {
    return openStudyRun(this.store, {
      runId,
      kind: PROBE_RUN_KIND,
      controller: { label: model.label, spec: model.spec, simulated: model.capabilities.simulated },
      settings: { env },
    });
  }

  /**
   * Adds items to a run. An item id already present must have identical content: scores of two
   * different items must never share a key.
   */
  async addItems(runId: string, items: readonly ProbeItem[], source: string): Promise<void> {
    const present = new Map((await readRecords<ProbeItem>(this.store, runId, 'item')).map((r) => [r.key, itemSha256(r.data)]));
    const fresh: ProbeItem[] = [];
    for (const it of items) {
      const sha = present.get(it.item_id);
      if (sha === undefined) {
        fresh.push(it);
        present.set(it.item_id, itemSha256(it));
      } else if (sha !== itemSha256(it)) {
        throw namingOption(
          'runId',
          (n) =>
            new UserError(
              `${source}: item ${it.item_id} differs from the item of the same id already scored in probe run '${runId}'; use a new ${n} for a different item set`,
            ),
        );
      }
    }
    await appendRecords(
      this.store,
      runId,
      'item',
      null,
      fresh.map((it) => ({ key: it.item_id, data: it })),
    );
  }

  async items(runId: string): Promise<ProbeItem[]> {
    const items = (await readRecords<ProbeItem>(this.store, runId, 'item')).map((r) => r.data);
    return items.sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : 0));
  }

  /** Keys `item_id\tcondition\tcandidate` already scored in the run. */
  scoredKeys(runId: string): Promise<Set<string>> {
    return recordKeys(this.store, runId, 'score');
  }

  startSession(runId: string, s: ProbeSessionStart): Promise<number> {
    return startStudySession(this.store, runId, {
      kind: PROBE_RUN_KIND,
      source: s.itemsSource,
      pending: s.nItems,
      options: { conditions: s.conditions, items_sha256: s.itemsSha256, backend: s.backend },
    });
  }

  endSession(runId: string, session: number, e: ProbeSessionEnd): Promise<void> {
    return finishStudySession(this.store, runId, {
      session,
      status: e.status,
      seconds: e.seconds,
      counters: {
        n_scored: e.nScored,
        n_unavailable: e.nUnavailable,
        forward_tokens: e.counters?.forwardTokens ?? null,
        forward_calls: e.counters?.forwardCalls ?? null,
        naive_tokens: e.counters?.naiveTokens ?? null,
      },
    });
  }

  sessions(runId: string): Promise<StudySession[]> {
    return studySessions(this.store, runId);
  }

  /** Records the scores of one (item, condition) in one transaction; keys in `present` are left out. */
  insertScores(runId: string, session: number, rows: readonly ScoreRecord[], present?: ReadonlySet<string>): Promise<number> {
    return appendRecords(
      this.store,
      runId,
      'score',
      session,
      rows.map((r) => ({ key: scoreKey(r.item_id, r.condition, r.candidate), data: r })),
      present,
    );
  }

  async savePadding(runId: string, itemId: string, p: Padding): Promise<void> {
    await appendRecords(this.store, runId, 'padding', null, [{ key: itemId, data: p }]);
  }

  /** The length-matched paddings already made for the run's items, by item id. */
  async paddings(runId: string): Promise<Map<string, Padding>> {
    return new Map((await readRecords<Padding>(this.store, runId, 'padding')).map((r) => [r.key, r.data]));
  }

  /** Every score of the run, ordered by item, condition and candidate. */
  async scores(runId: string): Promise<ScoreRow[]> {
    const rows = (await readRecords<ScoreRecord>(this.store, runId, 'score')).map((r) => ({
      ...r.data,
      candidate: r.data.candidate as CandidateName,
      session: r.session,
      at: r.at,
    }));
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return rows.sort((a, b) => cmp(a.item_id, b.item_id) || cmp(a.condition, b.condition) || cmp(a.candidate, b.candidate));
  }
}
