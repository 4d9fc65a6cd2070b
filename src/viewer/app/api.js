/* revloop view: the JSON API (docs/viewer.md) and the live event stream. Requests go to this
   origin only (the Content-Security-Policy allows nothing else); the access token, where one is
   needed, travels in the cookie the server set when the page was opened with ?token=. */

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, (body && body.error) || `HTTP ${res.status} from ${path}`);
  return body;
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? '?' + s : '';
}

/**
 * The event stream: calls onEvent for every stored event after `cursor`, and onStatus with
 * 'live' | 'reconnecting'. EventSource reconnects by itself and sends the last id it saw
 * (Last-Event-ID), so the server resumes exactly there and nothing is missed.
 */
export function listen(cursor, onEvent, onStatus) {
  const source = new EventSource('/api/events' + query({ after: cursor }));
  source.addEventListener('hello', () => onStatus('live'));
  source.addEventListener('message', (m) => {
    onStatus('live');
    onEvent(JSON.parse(m.data));
  });
  source.addEventListener('problem', (m) => onStatus('problem', JSON.parse(m.data).message));
  source.addEventListener('error', () => onStatus(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
  return source;
}
