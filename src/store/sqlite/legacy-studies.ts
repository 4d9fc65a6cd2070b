// Migration 1 → 2, the data part. Schema 1 kept probe scores and agent rollouts in tables of their
// own (probe_*, agent_*), outside the event log. Schema 2 keeps every study's results in the log
// as keyed `record` events, so one audit, one copy and one listing cover them. This turns each
// legacy run into a run of events with the original timestamps, once; the old tables stay as they
// were (nothing is deleted) and are ignored afterwards.
import type Database from 'better-sqlite3';
import { REVLOOP_VERSION } from '../../core/version.ts';
import { canonicalJson, sha256Hex } from '../../core/util/hash.ts';
import type { NewEvent, RunPlannedPayload } from '../events.ts';
import type { StudyPlan } from '../plan.ts';

const DONE_KEY = 'legacy_studies_migrated';

type Row = Record<string, unknown>;
type Append = (runId: string, events: NewEvent[], at: string) => void;

function hasTable(db: Database.Database, name: string): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);
}

function planned(plan: StudyPlan): RunPlannedPayload {
  return { plan, cases: [], per_case: null, plan_sha256: sha256Hex(canonicalJson({ plan, cases: [], per_case: null })) };
}

function sessionEvents(kind: string, s: Row, options: Row, pending: number, counters: Record<string, number | null>): NewEvent[] {
  const started: NewEvent = {
    type: 'session_started',
    payload: { kind, revloop_version: REVLOOP_VERSION, pid: 0, host: 'migrated', cases_path: null, options, pending },
  };
  if (s.finished_at == null) return [started];
  const status = s.status === 'complete' || s.status === 'failed' ? s.status : 'interrupted';
  return [
    started,
    { type: 'session_finished', payload: { session: Number(s.session), status, seconds: Number(s.seconds ?? 0), counters } },
  ];
}

function migrateProbe(db: Database.Database, append: Append): void {
  if (!hasTable(db, 'probe_runs')) return;
  for (const run of db.prepare('SELECT * FROM probe_runs ORDER BY created_at, run_id').all() as Row[]) {
    const runId = String(run.run_id);
    const plan: StudyPlan = {
      format: 'revloop.plan/1',
      kind: 'probe',
      controller: { label: String(run.model_label), spec: String(run.model_spec), simulated: run.simulated === 1 },
      settings: { env: run.env },
    };
    append(runId, [{ type: 'run_planned', payload: planned(plan) }], String(run.created_at));
    const items = db.prepare('SELECT item_id, item FROM probe_items WHERE run_id = ? ORDER BY item_id').all(runId) as Row[];
    if (items.length)
      append(
        runId,
        items.map((r) => ({
          type: 'record',
          payload: { kind: 'item', key: String(r.item_id), session: null, data: JSON.parse(String(r.item)) },
        })),
        String(run.created_at),
      );
    for (const s of db.prepare('SELECT * FROM probe_sessions WHERE run_id = ? ORDER BY session').all(runId) as Row[]) {
      const options = {
        model_spec: s.model_spec,
        conditions: JSON.parse(String(s.conditions)),
        items_sha256: s.items_sha256,
        backend: JSON.parse(String(s.backend)),
      };
      const [started, finished] = sessionEvents('probe', s, { ...options, items_source: s.items_source }, Number(s.n_items), {
        n_scored: Number(s.n_scored),
        n_unavailable: Number(s.n_unavailable),
        forward_tokens: s.forward_tokens as number | null,
        forward_calls: s.forward_calls as number | null,
        naive_tokens: s.naive_tokens as number | null,
      });
      append(runId, [started], String(s.started_at));
      const scores = db
        .prepare('SELECT * FROM probe_scores WHERE run_id = ? AND session = ? ORDER BY at, item_id, condition, candidate')
        .all(runId, s.session) as Row[];
      for (const sc of scores) {
        const data = {
          item_id: sc.item_id,
          condition: sc.condition,
          candidate: sc.candidate,
          logprob: sc.logprob,
          n_tokens: sc.n_tokens,
          n_argmax_match: sc.n_argmax_match,
          is_greedy: sc.is_greedy === null ? null : sc.is_greedy === 1,
          ctx_tokens: sc.ctx_tokens,
        };
        const key = `${sc.item_id}\t${sc.condition}\t${sc.candidate}`;
        append(runId, [{ type: 'record', payload: { kind: 'score', key, session: Number(s.session), data } }], String(sc.at));
      }
      if (finished) append(runId, [finished], String(s.finished_at));
    }
    const pads = db.prepare('SELECT * FROM probe_padding WHERE run_id = ? ORDER BY item_id').all(runId) as Row[];
    if (pads.length)
      append(
        runId,
        pads.map((p) => ({
          type: 'record',
          payload: {
            kind: 'padding',
            key: String(p.item_id),
            session: null,
            data: { observation: p.observation, units: p.units, targetTokens: p.target_tokens, tokens: p.tokens },
          },
        })),
        String(run.created_at),
      );
  }
}

function migrateAgent(db: Database.Database, append: Append): void {
  if (!hasTable(db, 'agent_runs')) return;
  for (const run of db.prepare('SELECT * FROM agent_runs ORDER BY created_at, run_id').all() as Row[]) {
    const runId = String(run.run_id);
    const plan: StudyPlan = {
      format: 'revloop.plan/1',
      kind: 'agent',
      controller: { label: String(run.model_label), spec: String(run.model_spec), simulated: run.simulated === 1 },
      settings: { env: run.env, harness: run.harness, ...(JSON.parse(String(run.settings)) as Row) },
    };
    append(runId, [{ type: 'run_planned', payload: planned(plan) }], String(run.created_at));
    const sessions = db.prepare('SELECT * FROM agent_sessions WHERE run_id = ? ORDER BY session').all(runId) as Row[];
    const rollouts = db
      .prepare('SELECT task_id, record, at FROM agent_rollouts WHERE run_id = ? ORDER BY at, task_index, task_id')
      .all(runId) as Row[];
    const record = (r: Row, session: number | null): NewEvent => ({
      type: 'record',
      payload: { kind: 'rollout', key: String(r.task_id), session, data: JSON.parse(String(r.record)) },
    });
    // Schema 1 did not say which session wrote a rollout: each goes to the session running at its time.
    let next = 0;
    for (const s of sessions) {
      const [started, finished] = sessionEvents(
        'agent',
        s,
        { model_spec: s.model_spec, backend: JSON.parse(String(s.backend)) },
        Number(s.n_tasks),
        {
          n_done: Number(s.n_done),
          n_failed: Number(s.n_failed),
        },
      );
      append(runId, [started], String(s.started_at));
      const end = s.finished_at == null ? null : String(s.finished_at);
      while (next < rollouts.length && (end === null || String(rollouts[next].at) <= end)) {
        append(runId, [record(rollouts[next], Number(s.session))], String(rollouts[next].at));
        next++;
      }
      if (finished) append(runId, [finished], String(s.finished_at));
    }
    for (; next < rollouts.length; next++) append(runId, [record(rollouts[next], null)], String(rollouts[next].at));
  }
}

/** Turns schema-1 probe and agent tables into event runs, once (idempotent across opens). */
export function migrateLegacyStudyTables(db: Database.Database, append: Append): void {
  const done = db.prepare('SELECT value FROM meta WHERE key = ?').get(DONE_KEY);
  if (done) return;
  db.transaction(() => {
    migrateProbe(db, append);
    migrateAgent(db, append);
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(DONE_KEY, '1');
  }).immediate();
}
