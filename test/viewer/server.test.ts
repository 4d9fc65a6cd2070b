// The viewer's HTTP server (src/viewer/server.ts) over real sockets: the static app and its
// headers (strict CSP, no inline script, nothing external), API status codes, the loopback Host
// guard, the access token of a non-loopback host (header, query, cookie; refused without it), and
// the server-sent event stream: events after a cursor, and a reconnect with Last-Event-ID that
// misses nothing while another writer appends.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startViewer, type ViewerHandle } from '../../src/app/view.ts';
import { stylesheet } from '../../src/html/stylesheet.ts';
import { browserScript } from '../../src/html/bundle.ts';
import { openStore } from '../../src/store/store.ts';
import { CONTENT_SECURITY_POLICY, isLoopbackHost, tokenMatches } from '../../src/viewer/server.ts';
import { alphaLines, importLines, viewerFixture, type ViewerFixture } from './fixtures.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw GET (any Host header, no redirects followed). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface SseEvent {
  id: number | null;
  event: string;
  data: any;
}

/** Reads server-sent events until `enough` says so (or the timeout), then disconnects. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  enough: (events: SseEvent[]) => boolean,
  timeoutMs = 10_000,
): Promise<SseEvent[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const events: SseEvent[] = [];
  try {
    const res = await fetch(url, { headers, signal: ac.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    while (!enough(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const e: SseEvent = { id: null, event: 'message', data: null };
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('id: ')) e.id = Number(line.slice(4));
          else if (line.startsWith('event: ')) e.event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) e.data = JSON.parse(data);
        if (data || e.id !== null) events.push(e);
      }
    }
    ac.abort();
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

describe('viewer server', () => {
  let fx: ViewerFixture;
  let viewer: ViewerHandle;

  before(async () => {
    fx = await viewerFixture();
    viewer = await startViewer({ store: fx.store, port: 0, bootstrap: 20, pollMs: 50 });
  });
  after(async () => {
    await viewer?.close();
    fx?.cleanup();
  });

  test('the app: one page for every view, strict CSP, no inline script, nothing external', async () => {
    for (const path of ['/', '/runs/alpha?outcome=failure', '/compare?a=alpha&b=beta']) {
      const r = await get(viewer.port, path, { host: `127.0.0.1:${viewer.port}` });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.match(String(r.headers['content-type']), /text\/html/);
      assert.doesNotMatch(r.body, /<script(?![^>]*\bsrc=)/, 'no inline script');
      assert.doesNotMatch(r.body, /\b(?:src|href)="(?:https?:)?\/\//, 'nothing from another origin');
    }
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'none'/);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|\*/);
    const js = await get(viewer.port, '/app/main.js', { host: 'localhost' });
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /text\/javascript/);
    // The app's TypeScript bundled into one script (from the sources here; dist/'s in package.test.ts).
    assert.equal(js.body, browserScript(new URL('../../src/viewer/app/main.js', import.meta.url)));
    assert.match(js.body, /^ {2}\/\/ src\/html\/client\/word-diff\.ts$/m);
    const css = await get(viewer.port, '/app/revloop.css', { host: 'localhost' });
    assert.equal(css.body, stylesheet(), 'the shared stylesheet of the report');
    for (const bad of ['/app/../server.ts', '/app/api.ts', '/app/main.ts', '/app/view.ts', '/app/nope.js', '/elsewhere', '/app/x/y.js']) {
      assert.equal((await get(viewer.port, bad, { host: 'localhost' })).status, 404, bad);
    }
    assert.equal((await get(viewer.port, '/api/runs', { host: 'localhost' }, 'POST')).status, 405, 'read-only');
  });

  test('API status codes and JSON errors', async () => {
    const h = { host: 'localhost' };
    const ok = await get(viewer.port, '/api/runs/alpha/trajectories/rain-02', h);
    assert.equal(ok.status, 200);
    assert.equal(JSON.parse(ok.body).recurrence.repeat_class, 'terminal_cycle');
    assert.equal(JSON.parse((await get(viewer.port, '/api/runs/alpha%2Fx', h)).body).error.includes("no run 'alpha/x'"), true);
    for (const [path, status, message] of [
      ['/api/runs/nope', 404, /no run 'nope'/],
      ['/api/runs/alpha/trajectories?limit=0', 400, /limit: expected a whole number from 1 to 1000/],
      ['/api/runs/alpha/trajectories?offset=-1', 400, /offset/],
      ['/api/runs/alpha/trajectories?outcome=maybe', 400, /outcome must be one of success, failure, incomplete, pending/],
      ['/api/compare?a=alpha', 400, /compare needs two runs/],
      ['/api/runs/alpha/trajectories/nope', 404, /no case 'nope'/],
      ['/api/nothing', 404, /no API endpoint/],
    ] as const) {
      const r = await get(viewer.port, path, h);
      assert.equal(r.status, status, path);
      assert.match(JSON.parse(r.body).error, message, path);
      assert.match(String(r.headers['content-type']), /application\/json/);
    }
  });

  test('loopback: requests addressed to another host name are refused (DNS rebinding)', async () => {
    for (const host of ['evil.example', `evil.example:${viewer.port}`, '10.0.0.5']) {
      const r = await get(viewer.port, '/api/runs', { host });
      assert.equal(r.status, 403, host);
    }
    for (const host of [`localhost:${viewer.port}`, `127.0.0.1:${viewer.port}`, `[::1]:${viewer.port}`]) {
      assert.equal((await get(viewer.port, '/api/runs', { host })).status, 200, host);
    }
    assert.equal(viewer.token, null);
    assert.equal(viewer.url, `http://127.0.0.1:${viewer.port}/`);
  });

  test('a non-loopback host needs the token on every request: header, query (then a cookie), never without', async () => {
    assert.ok(isLoopbackHost('127.0.0.1') && isLoopbackHost('::1') && isLoopbackHost('localhost') && isLoopbackHost('127.1.2.3'));
    assert.ok(!isLoopbackHost('0.0.0.0') && !isLoopbackHost('192.168.1.4') && !isLoopbackHost('::'));
    const open = await startViewer({ store: fx.store, port: 0, host: '0.0.0.0' });
    try {
      const token = open.token!;
      assert.match(token, /^[A-Za-z0-9_-]{40,}$/);
      assert.ok(open.url.endsWith(`/?token=${token}`));
      for (const [path, headers] of [
        ['/', {}],
        ['/api/runs', {}],
        ['/app/main.js', {}],
        ['/api/events', {}],
        ['/api/runs', { authorization: 'Bearer wrong' }],
        ['/api/runs?token=' + token.slice(0, -1), {}],
        ['/api/runs', { cookie: 'revloop_token=' + token + 'x' }],
      ] as const) {
        const r = await get(open.port, path, headers);
        assert.equal(r.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.match(r.body, /access token/);
        assert.doesNotMatch(r.body, /alpha/, 'nothing of the store leaks');
      }
      assert.equal((await get(open.port, '/api/runs', { authorization: `Bearer ${token}` })).status, 200);
      assert.equal((await get(open.port, '/api/runs', { 'x-revloop-token': token })).status, 200);
      assert.equal((await get(open.port, `/api/runs?token=${encodeURIComponent(token)}`)).status, 200);
      const page = await get(open.port, `/runs/alpha?outcome=failure&token=${encodeURIComponent(token)}`);
      assert.equal(page.status, 303, 'a page opened with the token: redirected without it');
      assert.equal(page.headers.location, '/runs/alpha?outcome=failure');
      const cookie = String(page.headers['set-cookie']);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      const jar = cookie.split(';')[0];
      assert.equal((await get(open.port, '/runs/alpha?outcome=failure', { cookie: jar })).status, 200);
      assert.equal((await get(open.port, '/app/main.js', { cookie: jar })).status, 200);
      assert.equal(
        (await get(open.port, '/api/runs', { cookie: jar, host: 'any.example' })).status,
        200,
        'the token, not the Host, guards it',
      );
    } finally {
      await open.close();
    }
    assert.ok(tokenMatches('abc', 'abc') && !tokenMatches('abc', 'abcd') && !tokenMatches('', 'abc') && !tokenMatches(null, 'abc'));
  });

  test('a run analysis runs off the server thread: requests made meanwhile are answered first', async () => {
    const order: string[] = [];
    const analysis = fetch(`http://127.0.0.1:${viewer.port}/api/runs/faulty?html=1`).then(async (r) => {
      assert.equal(r.status, 200);
      const body = (await r.json()) as { sections: Array<{ id: string }>; html: string };
      assert.ok(body.sections.length > 0 && body.html.includes('<section'));
      order.push('analysis');
    });
    await new Promise((r) => setTimeout(r, 20));
    const list = await get(viewer.port, '/api/runs', { host: 'localhost' });
    assert.equal(list.status, 200);
    order.push('runs');
    await analysis;
    assert.deepEqual(order, ['runs', 'analysis']);
  });

  test('server-sent events: everything after the cursor, live, and a reconnect with Last-Event-ID misses nothing', async () => {
    const runs = JSON.parse((await get(viewer.port, '/api/runs', { host: 'localhost' })).body);
    const cursor: number = runs.cursor;
    const base = `http://127.0.0.1:${viewer.port}/api/events?after=${cursor}`;
    // A writer appends a new run while we listen: the first connection reads some events and drops.
    const writing = (async () => {
      await new Promise((r) => setTimeout(r, 200));
      await importLines(
        fx.dir,
        fx.store,
        'delta',
        alphaLines().map((l) => ({ ...l, controller: 'delta-model', id: 'd' + l.id })),
      );
    })();
    const first = await readEvents(base, {}, (ev) => ev.filter((e) => e.event === 'message').length >= 5);
    await writing;
    assert.equal(first[0].event, 'hello');
    assert.equal(first[0].data.cursor, cursor);
    const got = first.filter((e) => e.event === 'message');
    assert.ok(got.length >= 5);
    assert.equal(got[0].data.type, 'run_planned');
    assert.equal(got[0].data.run_id, 'delta');
    const lastSeen = got[got.length - 1].id!;
    // Reconnect as EventSource does: the original URL, plus Last-Event-ID.
    const store = await openStore(fx.store, { readonly: true });
    const expected = (await store.eventsAfter(cursor, 100_000)).map((e) => e.id);
    await store.close();
    const rest = await readEvents(
      base,
      { 'last-event-id': String(lastSeen) },
      (ev) => ev.filter((e) => e.event === 'message').length >= expected.length - got.length,
    );
    const ids = [...got, ...rest.filter((e) => e.event === 'message')].map((e) => e.id);
    assert.deepEqual(ids, expected, 'every event after the cursor exactly once, in order');
    for (const e of rest.filter((x) => x.event === 'message')) {
      assert.equal(e.data.id, e.id);
      assert.equal(typeof e.data.type, 'string');
      assert.ok(!('payload' in e.data), 'no payloads (texts) in the stream');
    }
    // Closed streams are let go.
    for (let i = 0; i < 50 && viewer.streams() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(viewer.streams(), 0);
  });
});
