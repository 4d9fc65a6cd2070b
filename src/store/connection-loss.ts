// Which failures mean "the connection to a PostgreSQL store went away" (a server restart or failover, a
// network cut, a backend terminated by an administrator) rather than a refusal of what was asked.
// After such a failure nothing sent since the last acknowledged COMMIT can be assumed either way,
// but opening the store again and reading is safe: a long-running process (a worker) reconnects
// instead of giving up. A server out of connections is told apart (it stays full: no retry), and
// `databaseTrouble` words both for people. Plain data, no `pg` import: callers that never open
// PostgreSQL load nothing.

/** Node's codes for a connection that could not be made or was broken. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a lost or refused session: class 08 (connection exception), 57P01 admin_shutdown
 * (the server is stopping, or pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now
 * (starting up or shutting down).
 */
const SESSION_STATES = /^(08...|57P0[123])$/;

/** What node-postgres says when a socket closes under it or a pool cannot connect in time. */
const DRIVER_MESSAGES =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection closed/i;

/** An error and what it says, as far as this module reads it. */
type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown; reason?: unknown };

/** `e` and the errors it wraps (`cause`), outermost first, at most 8 deep. */
function* causeChain(e: unknown): Generator<ErrorLike> {
  for (let err = e, depth = 0; err && typeof err === 'object' && depth < 8; depth++) {
    yield err as ErrorLike;
    err = (err as ErrorLike).cause;
  }
}

const codeOf = (err: ErrorLike): string => (typeof err.code === 'string' ? err.code : '');
const driverSaid = (err: ErrorLike): boolean => typeof err.message === 'string' && DRIVER_MESSAGES.test(err.message);

/** Whether `e` (or an error it wraps, through `cause`) is a lost or unobtainable connection to the server. */
export function isConnectionLoss(e: unknown): boolean {
  for (const err of causeChain(e)) {
    if (err.reason === 'unreachable') return true; // a StoreError: cannot reach PostgreSQL
    if (SOCKET_CODES.has(codeOf(err)) || SESSION_STATES.test(codeOf(err)) || driverSaid(err)) return true;
  }
  return false;
}

/** SQLSTATE 53300 too_many_connections: the server (max_connections) or the role (CONNECTION LIMIT) has no session to spare. */
export function isOutOfConnections(e: unknown): boolean {
  for (const err of causeChain(e)) if (codeOf(err) === '53300') return true;
  return false;
}

/**
 * Whether a lost connection is the database's, by what the server or the driver said: a bare socket
 * error (ECONNREFUSED, …) may come from anything else a command talks to, such as a model server.
 */
function saidByDatabase(e: unknown): boolean {
  for (const err of causeChain(e)) if (SESSION_STATES.test(codeOf(err)) || driverSaid(err)) return true;
  return false;
}

/** The innermost message of an error and the errors it wraps (`cause`): what the driver or the socket said. */
export function rootMessage(e: unknown): string {
  const innermost = [...causeChain(e)].at(-1);
  return typeof innermost?.message === 'string' ? innermost.message : String(e);
}

/**
 * What a person should read for a database failure that is not a bug of revloop's: a server out of
 * connections (with what to change), or a lost connection (committed work is kept); null for
 * anything else. Not a lost connection for the reconnection policy: a server that is full stays
 * full, and retrying would abandon in-flight generations again and again.
 */
export function databaseTrouble(e: unknown): string | null {
  const message = rootMessage(e);
  if (isOutOfConnections(e))
    return (
      `PostgreSQL has no connection to spare for this process (${message}): each revloop process holds a few ` +
      `at once (docs/store.md, "Connections"); raise the server's max_connections (or the role's CONNECTION LIMIT), ` +
      'give each process a smaller pool (?pool=N in the store URL), or run fewer processes at once'
    );
  if (isConnectionLoss(e) && saidByDatabase(e))
    return `lost the connection to the database (${message}); everything committed is kept: run the same command again once the server is reachable`;
  return null;
}
