// `revloop runs`: every run in a store with status and counts — revision runs (src/store), probe
// runs (src/probe/store.ts) and agent rollout runs (src/agent/rollout/store.ts), which share the
// store file. The probe and agent summaries are read here with a few counting queries (their
// stores offer only whole-record reads); the revision table is src/store/commands.ts's.
import type { Command } from 'commander';
import type Database from 'better-sqlite3';
import { hasTable } from '../../store/study-tables.ts';
import { processAlive } from '../../core/util/process-alive.ts';
import type { RunSummary } from '../../store/store.ts';

export function register(program: Command): void {
  program
    .command('runs')
    .summary('list the runs in a store (revision, probe and agent runs) with status and counts')
    .description(
      'Lists every run in a store: revision runs, probe runs and agent rollout runs, one table each, with status and counts. ' +
        'Runs of simulated controllers are marked SIMULATED. The store is opened read-only, so it is safe while a run writes.',
    )
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--json', 'print one JSON array of run summaries; `kind` tells revision (run, import), probe and agent runs apart')
    .action(async (opts: { store: string; json?: boolean }) => {
      process.exitCode = (await runsCommand(opts, process.stdout)) || undefined;
    });
}

/** Status of a probe or agent run. `failed`: the last session stopped on an error. */
export type StudyRunStatus = 'complete' | 'incomplete' | 'running' | 'interrupted' | 'failed';

interface StudyRunBase {
  runId: string;
  status: StudyRunStatus;
  /** The model label (simulated ones say so). */
  controller: string;
  modelSpec: string;
  simulated: boolean;
  env: string;
  sessions: number;
  createdAt: string;
  updatedAt: string;
}

export interface ProbeRunSummary extends StudyRunBase {
  kind: 'probe';
  items: number;
  /** Conditions with at least one stored score, in the order first scored. */
  conditions: string[];
  scores: number;
}

export interface AgentRunSummary extends StudyRunBase {
  kind: 'agent';
  harness: string;
  settings: Record<string, unknown>;
  /** Tasks asked for (the largest --tasks of any session). */
  tasks: number;
  /** Rollouts stored. */
  done: number;
  solved: number;
  stuck: number;
  /** Tasks whose rollout failed in the last session (not stored; a rerun retries them). */
  failed: number;
}

export type RunListEntry = RunSummary | ProbeRunSummary | AgentRunSummary;

export interface Out {
  write(s: string): unknown;
}

export async function runsCommand(o: { store: string; json?: boolean }, out: Out): Promise<number> {
  const { openStore } = await import('../../store/store.ts');
  const store = openStore(o.store, { readonly: true });
  let revision: RunSummary[];
  let probe: ProbeRunSummary[];
  let agent: AgentRunSummary[];
  try {
    revision = store.listRuns();
    probe = probeRuns(store.db);
    agent = agentRuns(store.db);
  } finally {
    store.close();
  }
  if (o.json) {
    out.write(JSON.stringify([...revision, ...probe, ...agent], null, 2) + '\n');
    return 0;
  }
  if (!revision.length && !probe.length && !agent.length) {
    out.write(`no runs in ${o.store}\n`);
    return 0;
  }
  const { runsTable } = await import('../../app/store-commands.ts');
  const blocks: string[] = [];
  if (revision.length) blocks.push(`revision runs (${revision.length}):\n${runsTable(revision)}`);
  if (probe.length) blocks.push(`probe runs (${probe.length}):\n${await probeTable(probe)}`);
  if (agent.length) blocks.push(`agent runs (${agent.length}):\n${await agentTable(agent)}`);
  out.write(blocks.join('\n\n') + '\n');
  if ([...revision, ...probe, ...agent].some((r) => r.simulated)) {
    out.write('SIMULATED rows come from simulated controllers: they describe simulations, not language models.\n');
  }
  return 0;
}

// ---- reading ------------------------------------------------------------------------------------

interface SessionRow {
  run_id: string;
  session: number;
  started_at: string;
  finished_at: string | null;
  status: string;
}

/** The sessions of every run, in order, keyed by run id. */
function sessionsByRun(
  db: Database.Database,
  table: 'probe_sessions' | 'agent_sessions',
  extra = '',
): Map<string, Array<SessionRow & Record<string, unknown>>> {
  const map = new Map<string, Array<SessionRow & Record<string, unknown>>>();
  const rows = db
    .prepare(`SELECT run_id, session, started_at, finished_at, status${extra} FROM ${table} ORDER BY run_id, session`)
    .all() as Array<SessionRow & Record<string, unknown>>;
  for (const r of rows) {
    const list = map.get(r.run_id) ?? [];
    list.push(r);
    map.set(r.run_id, list);
  }
  return map;
}

/** Run ids whose lock is held by a live process (same rule as revision runs: unknowable on another host, so assumed alive). */
function liveLocks(db: Database.Database): Set<string> {
  const rows = db.prepare('SELECT run_id, pid, host FROM run_locks').all() as Array<{ run_id: string; pid: number; host: string }>;
  return new Set(rows.filter((r) => processAlive(r.pid, r.host)).map((r) => r.run_id));
}

/**
 * running: a live process holds the run; otherwise the last session decides — a session still
 * marked running belongs to a process that died (interrupted), and a run with no session yet was
 * stopped before its first one began.
 */
function studyStatus(live: boolean, last: SessionRow | undefined): StudyRunStatus {
  if (live) return 'running';
  if (!last) return 'interrupted';
  if (last.status === 'complete' || last.status === 'failed' || last.status === 'interrupted') return last.status;
  return 'interrupted';
}

function lastUpdate(createdAt: string, sessions: readonly SessionRow[]): string {
  let t = createdAt;
  for (const s of sessions) for (const x of [s.started_at, s.finished_at]) if (x && x > t) t = x;
  return t;
}

function countsByRun(db: Database.Database, sql: string): Map<string, Record<string, number>> {
  const rows = db.prepare(sql).all() as Array<{ run_id: string } & Record<string, number>>;
  return new Map(rows.map(({ run_id, ...rest }) => [run_id, rest]));
}

export function probeRuns(db: Database.Database): ProbeRunSummary[] {
  if (!hasTable(db, 'probe_runs')) return [];
  const runs = db.prepare('SELECT * FROM probe_runs ORDER BY created_at, run_id').all() as Array<{
    run_id: string;
    env: string;
    model_spec: string;
    model_label: string;
    simulated: number;
    created_at: string;
  }>;
  const items = countsByRun(db, 'SELECT run_id, COUNT(*) AS n FROM probe_items GROUP BY run_id');
  const scores = countsByRun(db, 'SELECT run_id, COUNT(*) AS n FROM probe_scores GROUP BY run_id');
  const conditions = new Map<string, string[]>();
  // rowid order = the order the scores were inserted, so conditions are listed as first scored.
  for (const r of db
    .prepare('SELECT run_id, condition FROM probe_scores GROUP BY run_id, condition ORDER BY run_id, MIN(rowid)')
    .all() as Array<{ run_id: string; condition: string }>) {
    conditions.set(r.run_id, [...(conditions.get(r.run_id) ?? []), r.condition]);
  }
  const sessions = sessionsByRun(db, 'probe_sessions');
  const live = liveLocks(db);
  return runs.map((r) => {
    const s = sessions.get(r.run_id) ?? [];
    return {
      runId: r.run_id,
      kind: 'probe',
      status: studyStatus(live.has(r.run_id), s.at(-1)),
      controller: r.model_label,
      modelSpec: r.model_spec,
      simulated: r.simulated === 1,
      env: r.env,
      items: items.get(r.run_id)?.n ?? 0,
      conditions: conditions.get(r.run_id) ?? [],
      scores: scores.get(r.run_id)?.n ?? 0,
      sessions: s.length,
      createdAt: r.created_at,
      updatedAt: lastUpdate(r.created_at, s),
    };
  });
}

export function agentRuns(db: Database.Database): AgentRunSummary[] {
  if (!hasTable(db, 'agent_runs')) return [];
  const runs = db.prepare('SELECT * FROM agent_runs ORDER BY created_at, run_id').all() as Array<{
    run_id: string;
    env: string;
    harness: string;
    model_spec: string;
    model_label: string;
    simulated: number;
    settings: string;
    created_at: string;
  }>;
  const rollouts = countsByRun(
    db,
    'SELECT run_id, COUNT(*) AS done, SUM(solved) AS solved, SUM(stuck) AS stuck FROM agent_rollouts GROUP BY run_id',
  );
  const sessions = sessionsByRun(db, 'agent_sessions', ', n_tasks, n_failed');
  const live = liveLocks(db);
  return runs.map((r) => {
    const s = sessions.get(r.run_id) ?? [];
    const c = rollouts.get(r.run_id);
    const done = c?.done ?? 0;
    const tasks = Math.max(done, ...s.map((x) => Number(x.n_tasks)));
    const last = s.at(-1);
    let status = studyStatus(live.has(r.run_id), last);
    // A finished session whose failed tasks were left unstored: rerunning retries them.
    if (status === 'complete' && done < tasks) status = 'incomplete';
    return {
      runId: r.run_id,
      kind: 'agent',
      status,
      controller: r.model_label,
      modelSpec: r.model_spec,
      simulated: r.simulated === 1,
      env: r.env,
      harness: r.harness,
      settings: JSON.parse(r.settings) as Record<string, unknown>,
      tasks,
      done,
      solved: c?.solved ?? 0,
      stuck: c?.stuck ?? 0,
      failed: last && last.status !== 'running' ? Number(last.n_failed) : 0,
      sessions: s.length,
      createdAt: r.created_at,
      updatedAt: lastUpdate(r.created_at, s),
    };
  });
}

// ---- rendering ----------------------------------------------------------------------------------

/** The model label, with a simulated one marked SIMULATED (as in the revision table). */
function controllerCell(r: { controller: string; simulated: boolean }): string {
  if (!r.simulated) return r.controller;
  return /\[simulated\]/i.test(r.controller) ? r.controller.replace(/\[simulated\]/i, '[SIMULATED]') : `${r.controller} [SIMULATED]`;
}

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);
const percent = (k: number, n: number) => `${k} (${n ? ((100 * k) / n).toFixed(1) : '0.0'}%)`;

async function newTable(head: string[]) {
  const { default: Table } = await import('cli-table3');
  return new Table({ head, style: { head: [], border: [] } });
}

export async function probeTable(runs: readonly ProbeRunSummary[]): Promise<string> {
  const table = await newTable(['run', 'status', 'model', 'env', 'items', 'conditions', 'scores', 'sessions', 'updated']);
  for (const r of runs) {
    table.push([
      r.runId,
      r.status,
      controllerCell(r),
      r.env,
      String(r.items),
      String(r.conditions.length),
      String(r.scores),
      String(r.sessions),
      when(r.updatedAt),
    ]);
  }
  return table.toString();
}

export async function agentTable(runs: readonly AgentRunSummary[]): Promise<string> {
  const table = await newTable(['run', 'status', 'model', 'harness', 'done', 'solved', 'stuck', 'failed', 'sessions', 'updated']);
  for (const r of runs) {
    table.push([
      r.runId,
      r.status,
      controllerCell(r),
      r.harness,
      `${r.done}/${r.tasks}`,
      percent(r.solved, r.done),
      String(r.stuck),
      String(r.failed),
      String(r.sessions),
      when(r.updatedAt),
    ]);
  }
  return table.toString();
}
