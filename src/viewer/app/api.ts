/* revloop view: the JSON API (docs/viewer.md) and the live event stream. Requests go to this
   origin only (the Content-Security-Policy allows nothing else); the access token, where one is
   needed, travels in the cookie the server set when the page was opened with ?token=. The request
   and response types are the server's (src/viewer/api.ts), imported as types only: a change there
   that this app does not follow fails `npm run typecheck`. */
import type {
  CompareQuery,
  CompareResponse,
  LiveEvent,
  RunResponse,
  RunsResponse,
  TrajectoriesResponse,
  TrajectoryFilter,
  TrajectoryResponse,
} from '../api.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const body = (await res.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!res.ok) throw new ApiError(res.status, body?.error || `HTTP ${res.status} from ${path}`);
  return body as T;
}

/** A query's values: absent, empty and null ones are left out. */
export type QueryValues = Record<string, string | number | null | undefined>;

/** A query string from an object, leaving out empty values. */
export function query(params: QueryValues): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? '?' + s : '';
}

const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

/** GET /api/runs */
export function getRuns(): Promise<RunsResponse> {
  return getJson('/api/runs');
}

/** GET /api/runs/:run (?html=1: the sections rendered to HTML too) */
export function getRun(runId: string, options: { html: boolean }): Promise<RunResponse> {
  return getJson(runPath(runId) + query({ html: options.html ? 1 : undefined }));
}

/** GET /api/runs/:run/trajectories */
export function getTrajectories(runId: string, filter: TrajectoryFilter): Promise<TrajectoriesResponse> {
  return getJson(`${runPath(runId)}/trajectories${query({ ...filter })}`);
}

/** GET /api/runs/:run/trajectories/:case (?index: by case index) */
export function getTrajectory(runId: string, caseId: string, index?: number): Promise<TrajectoryResponse> {
  return getJson(`${runPath(runId)}/trajectories/${encodeURIComponent(caseId)}${query({ index })}`);
}

/** GET /api/compare */
export function getCompare(q: CompareQuery): Promise<CompareResponse> {
  return getJson('/api/compare' + query({ ...q }));
}

/** The event stream's state, as the header's badge shows it. */
export type LiveStatus = 'live' | 'reconnecting' | 'problem' | 'closed';

/**
 * The event stream: calls onEvent for every stored event after `cursor`, and onStatus with its
 * state. EventSource reconnects by itself and sends the last id it saw (Last-Event-ID), so the
 * server resumes exactly there and nothing is missed.
 */
export function listen(
  cursor: number,
  onEvent: (e: LiveEvent) => void,
  onStatus: (status: LiveStatus, message?: string) => void,
): EventSource {
  const source = new EventSource('/api/events' + query({ after: cursor }));
  source.addEventListener('hello', () => onStatus('live'));
  source.addEventListener('message', (m) => {
    onStatus('live');
    onEvent(JSON.parse(m.data) as LiveEvent);
  });
  source.addEventListener('problem', (m) =>
    onStatus('problem', (JSON.parse((m as MessageEvent<string>).data) as { message: string }).message),
  );
  source.addEventListener('error', () => onStatus(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
  return source;
}
