// The viewer's JSON API: the shape of every response (docs/viewer.md documents them with
// examples) and the backend the HTTP server calls. The server (server.ts) knows HTTP — routes,
// query strings, the access token, server-sent events, the static app — and nothing of the store;
// the backend (src/app/view.ts) knows the store and the studies and nothing of HTTP. Keys are
// snake_case, as in `analyze --json` and the paper's records; the analysis sections, typed in
// camelCase for the renderers, are converted on the way out (and, for one release, keep their old
// camelCase keys as deprecated aliases: docs/viewer.md).
import type { DrilldownLabels, TrajectoryLabel } from '../studies/kit/report-model.ts';
import type { Section, SimulatedMark } from '../studies/kit/sections.ts';
import type { AttemptCounts } from '../store/reduce.ts';
import type { EncodedDiff } from '../html/word-diff.ts';
import type { SnakeKeys } from '../core/util/json-keys.ts';

/** A section as the API sends it: the typed blocks of src/studies/kit/sections.ts with snake_case keys. */
export type ApiSection = SnakeKeys<Section>;

/** One run of the store, as the run list shows it. */
export interface RunRow {
  run_id: string;
  /** The plan's kind: run, import, probe, agent, … */
  kind: string;
  /** The study that owns the kind (null: none registered). */
  study: string | null;
  status: string;
  /** The controller's label (the model). */
  model: string;
  model_spec: string;
  simulated: boolean;
  protocol: string;
  budget: number;
  /** Trajectories planned (0 for studies without trajectories). */
  planned: number;
  /** Trajectories finished: complete + protocol-incomplete. */
  done: number;
  complete: number;
  incomplete: number;
  pending: number;
  successes: number;
  rounds: number;
  attempts: number;
  failed_attempts: number;
  created_at: string;
  updated_at: string;
  /** The run's latest event id (a cursor for /api/events). */
  last_event_id: number;
  /** Whether the run has trajectories to browse and compare. */
  has_trajectories: boolean;
  /** The study's own columns for this run (as `revloop runs` prints them). */
  cells: string[];
  /**
   * Present when the run disagrees with its own events (its chain or derived rows, docs/store.md):
   * the first problems. Its data is served only when the viewer runs with --allow-unverified.
   */
  unverified?: string[];
}

/** A worker sharing runs (PostgreSQL), as `revloop runs` lists it. */
export interface WorkerRow {
  worker: number;
  /** host:pid#number */
  name: string;
  /** alive; stopped (it gave its leases back); gone: its session ended without stopping (killed, crashed, cut off). */
  state: 'alive' | 'stopped' | 'gone';
  heartbeat_at: string;
  concurrency: number;
  lease_seconds: number;
  rejected_writes: number;
  /** The pending trajectories it holds (none once it is gone: its claims ended with its session). */
  leases: Array<{ run_id: string; case_index: number; expires_at: string; expired: boolean }>;
  /** Gone workers: the pending trajectories it was running, free for any worker to claim now. */
  released: Array<{ run_id: string; case_index: number }>;
}

export interface RunsResponse {
  store: string;
  /** Open /api/events?after=cursor to hear of everything that happens after this listing. */
  cursor: number;
  /** Column labels of each study's `cells`. */
  studies: Array<{ id: string; title: string; columns: readonly string[] }>;
  runs: RunRow[];
  /** Workers alive, or gone while running trajectories (PostgreSQL stores; null on SQLite, which has none). */
  workers: WorkerRow[] | null;
}

export interface RunResponse {
  run: RunRow;
  /** The run's analysis as typed section blocks (src/studies/kit/sections.ts), keys in snake_case. */
  sections: ApiSection[];
  /** The sections rendered to HTML (escaped; no scripts), when asked for with ?html=1. */
  html?: string;
  notes: string[];
  simulated: SimulatedMark;
  /** The analysis reflects the run up to this event id. */
  analysed_through: number;
  bootstrap: number;
  seed: number;
}

/** Filters of the trajectory listing; every one optional. */
export interface TrajectoryFilter {
  /** The controller (an import may hold several; a run has one). */
  controller?: string;
  family?: string;
  source?: string;
  /** success | failure | incomplete | pending */
  outcome?: string;
  /** A failure label: a repeat class (terminal_cycle, …) or a failure category (anchor_failure, …). */
  label?: string;
  /** Text in the case id or any draft (ASCII letters case-insensitively). */
  q?: string;
  offset?: number;
  limit?: number;
}

export type OutcomeValue = TrajectoryLabel['outcome'] | 'pending';

export interface TrajectoryRow {
  case_index: number;
  case_id: string;
  controller: string;
  family: string;
  source: string;
  status: string;
  outcome: OutcomeValue;
  repeat_class: string | null;
  category: string | null;
  rounds: number;
  final_joint: boolean | null;
  final_energy: number | null;
  attempts: AttemptCounts;
  incomplete_reason: string | null;
}

export interface TrajectoriesResponse {
  /** The run disagrees with its own events (served under --allow-unverified): its first problems. */
  unverified?: string[];
  run_id: string;
  simulated: boolean;
  /** Matches of the filter (before offset and limit). */
  total: number;
  offset: number;
  limit: number;
  /** Trajectories in the run, and how many carry each value (unfiltered). */
  facets: {
    all: number;
    controller: Record<string, number>;
    family: Record<string, number>;
    source: Record<string, number>;
    outcome: Record<string, number>;
    label: Record<string, number>;
  };
  /** Display names of outcome, repeat-class and category values. */
  labels: DrilldownLabels;
  rows: TrajectoryRow[];
}

/** One provider attempt of a trajectory, from its attempt_finished event. */
export interface AttemptRow {
  revision: number | null;
  /** 1-based within its generation (retries of one request). */
  attempt: number;
  ok: boolean;
  at: string;
  started_at: string;
  latency_ms: number;
  status: number | null;
  finish_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  /** Failed attempts: the error's kind (http, timeout, empty, refusal, …) and message. */
  error_kind: string | null;
  error: string | null;
  retryable: boolean | null;
}

export interface TimelineRound {
  revision: number;
  text: string;
  joint: boolean;
  energy: number | null;
  state: Record<string, unknown>;
  /** The verifier report after this round (null for a success or when unavailable). */
  report: string | null;
  /** recorded: the text the engine stored as sent; rendered: the family's feedback for the stored state. */
  report_source: 'recorded' | 'rendered' | null;
  /** Whether the report reached the model (a later revision exists). */
  report_sent: boolean;
  report_error: string | null;
  /** Word diff against the previous draft ([op, length, …] in UTF-16 units; src/html/word-diff.ts); null: too large or first draft. */
  diff: EncodedDiff;
  /** State id: equal ids are byte-identical drafts. */
  state_id: number;
  /** The earliest revision with the same text, when this draft repeats one. */
  repeat_of: number | null;
  /** Part of the terminal fixed point or cycle. */
  in_terminal_repeat: boolean;
}

export interface TrajectoryResponse {
  /** The run disagrees with its own events (served under --allow-unverified): its first problems. */
  unverified?: string[];
  run_id: string;
  case_index: number;
  case_id: string;
  family: string;
  source: string;
  controller: string;
  simulated: boolean;
  status: string;
  incomplete_reason: string | null;
  budget: number;
  /** The frozen case (instruction, target, anchors, …). */
  case: Record<string, unknown>;
  /**
   * Whether the run was imported: its drafts are as logged by their source, and the prompt and
   * reports here are revloop's renderings for the case and the stored states, never sent by revloop.
   */
  imported: boolean;
  /** The import's format (import-jsonl, collie-log, …); null for runs revloop generated. */
  import_format: string | null;
  /** The initial prompt: as sent (generated runs), or as the run's protocol renders it (imports). */
  prompt: string | null;
  prompt_error: string | null;
  label: { outcome: OutcomeValue; repeat_class: string | null; category: string | null };
  recurrence: { repeat_class: string | null; cycle_period: number; capture: number | null; states: number[] };
  rounds: TimelineRound[];
  /** Every provider attempt, in log order (failed ones included). */
  attempts: AttemptRow[];
  /** Trajectories in the run: case indexes run from 0 to cases − 1. */
  cases: number;
}

export type CompareCell = 'both_success' | 'a_only' | 'b_only' | 'both_failure' | 'excluded';

export interface CompareSide {
  case_index: number;
  outcome: OutcomeValue;
  repeat_class: string | null;
  category: string | null;
  rounds: number;
  final_energy: number | null;
}

export interface CompareRow {
  case_id: string;
  family: string;
  source: string;
  cell: CompareCell;
  a: CompareSide;
  b: CompareSide;
}

export interface CompareQuery {
  a: string;
  b: string;
  cell?: string;
  family?: string;
  offset?: number;
  limit?: number;
}

export interface CompareResponse {
  a: RunRow;
  b: RunRow;
  /** Case ids in both runs. */
  paired: number;
  only_a: number;
  only_b: number;
  /** Paired cases where either trajectory is not complete (left out of the cells and the test). */
  excluded: number;
  /** Joint success at the end of the budget, over pairs complete in both runs. */
  cells: { both_success: number; a_only: number; b_only: number; both_failure: number };
  mcnemar: { discordant: number; p: number; method: string };
  /** Per family: the same cells and test. */
  families: Array<{ family: string; cells: CompareResponse['cells']; excluded: number; p: number }>;
  simulated: SimulatedMark;
  /** Display names of outcome, repeat-class and category values. */
  labels: DrilldownLabels;
  /** Pairs matching `cell`/`family` (before offset and limit), and one page of them. */
  total: number;
  offset: number;
  limit: number;
  rows: CompareRow[];
}

/** One event of the log as /api/events sends it: where and what, never a text. */
export interface LiveEvent {
  id: number;
  run_id: string;
  seq: number;
  type: string;
  case_index: number | null;
  revision: number | null;
  at: string;
  /** draft_accepted: joint; trajectory_completed: final_joint. */
  joint?: boolean;
  /** attempt_finished: whether the attempt succeeded, and a failure's kind. */
  ok?: boolean;
  error_kind?: string;
  /** trajectory_completed: success or budget. */
  stop?: string;
}

/** What the HTTP server asks of the viewer's backend (implemented by src/app/view.ts). */
export interface ViewerBackend {
  /** The store's location, shown in the page header. */
  readonly location: string;
  runs(): Promise<RunsResponse>;
  run(runId: string, options: { html: boolean }): Promise<RunResponse>;
  trajectories(runId: string, filter: TrajectoryFilter): Promise<TrajectoriesResponse>;
  /** One trajectory by case id, or by case index when `index` is given. */
  trajectory(runId: string, caseId: string, index?: number): Promise<TrajectoryResponse>;
  compare(query: CompareQuery): Promise<CompareResponse>;
  /** The event log after `cursor` (at most `limit`), for server-sent events. */
  eventsAfter(cursor: number, limit: number): Promise<LiveEvent[]>;
  /** The latest event id now: where a new event stream without a cursor starts. */
  head(): Promise<number>;
  /** The shared stylesheet of sections (src/html). */
  stylesheet(): string;
}
