// The viewer's JSON API (docs/viewer.md): each route's query parameters read and checked by name,
// then answered by the backend (src/app/view.ts), which knows the store and nothing of HTTP.
//
//   GET /api/runs                           the run list
//   GET /api/runs/:run[?html=1]             a run's page
//   GET /api/runs/:run/trajectories?…       a page of its trajectories (filters, text search)
//   GET /api/runs/:run/trajectories/:case   one trajectory (?index= when a case id names several)
//   GET /api/compare?a=&b=&…                two runs paired by case
//   GET /api/events[?after=]                the event stream (event-streams.ts)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundError, UsageError } from '../core/errors.ts';
import type { CompareQuery, TrajectoryFilter, ViewerBackend } from './api.ts';
import type { EventStreams } from './event-streams.ts';
import { sendJson, textParam, wholeParam } from './http.ts';

const MAX_LIMIT = 1000;
/** The longest text search (`q`): a search costs about the drafts' size times the query's length. */
export const MAX_QUERY_CHARS = 200;

/** The trajectory list's filter, from its query parameters. */
function trajectoryFilter(url: URL): TrajectoryFilter {
  return {
    controller: textParam(url, 'controller'),
    family: textParam(url, 'family'),
    source: textParam(url, 'source'),
    outcome: textParam(url, 'outcome'),
    label: textParam(url, 'label'),
    q: textParam(url, 'q', MAX_QUERY_CHARS),
    offset: wholeParam(url, 'offset', 0),
    limit: wholeParam(url, 'limit', 1, MAX_LIMIT),
  };
}

/** The comparison's query, from its query parameters (both runs required). */
function compareQuery(url: URL): CompareQuery {
  const a = textParam(url, 'a');
  const b = textParam(url, 'b');
  if (!a || !b) throw new UsageError('compare needs two runs: /api/compare?a=RUN&b=RUN', { option: 'a' });
  return {
    a,
    b,
    cell: textParam(url, 'cell'),
    family: textParam(url, 'family'),
    offset: wholeParam(url, 'offset', 0),
    limit: wholeParam(url, 'limit', 1, MAX_LIMIT),
  };
}

/** Answers a request under /api (`parts`: the path's segments, the first one `api`). */
export async function answerApi(
  backend: ViewerBackend,
  streams: EventStreams,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  parts: string[],
): Promise<void> {
  const [, resource, id, sub, key, ...rest] = parts;
  if (resource === 'runs' && parts.length === 2) return sendJson(res, 200, await backend.runs());
  if (resource === 'runs' && id !== undefined && parts.length === 3)
    return sendJson(res, 200, await backend.run(id, { html: url.searchParams.get('html') === '1' }));
  if (resource === 'runs' && id !== undefined && sub === 'trajectories' && key === undefined)
    return sendJson(res, 200, await backend.trajectories(id, trajectoryFilter(url)));
  if (resource === 'runs' && id !== undefined && sub === 'trajectories' && key !== undefined && !rest.length)
    return sendJson(res, 200, await backend.trajectory(id, key, wholeParam(url, 'index', 0)));
  if (resource === 'compare' && parts.length === 2) return sendJson(res, 200, await backend.compare(compareQuery(url)));
  if (resource === 'events' && parts.length === 2) return streams.open(req, res, url);
  throw new NotFoundError(`no API endpoint ${url.pathname} (see docs/viewer.md)`, { kind: 'other', target: url.pathname });
}
