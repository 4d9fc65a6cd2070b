// revloop's HTTP/1.1 client (src/models/http/http1.ts) against servers that write raw bytes: every
// framing a server may choose (Content-Length, chunked with extensions and trailers, until close,
// none), interim 1xx heads, heads and bodies split at every byte, keep-alive reuse and its limits
// (Connection: close, HTTP/1.0), and malformed responses rejected with a clear error instead of
// being read as text. The node:http-based behaviour the backends rely on (abort, deadlines, faults,
// idle sockets) is tested through the exchange in http-fetch.test.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttp1Client, type Http1Response } from '../../src/models/http/http1.ts';

interface RawServer {
  url: URL;
  /** Connections accepted so far. */
  connections: number;
  /** Raw request heads received, in order. */
  requests: string[];
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A server that answers the n-th request (0-based, over all connections) with `reply(n)`, written in the given pieces. */
async function rawServer(reply: (n: number) => Array<string | Buffer> | 'close', pieceDelayMs = 0): Promise<RawServer> {
  const state: RawServer = { url: new URL('http://127.0.0.1/'), connections: 0, requests: [] };
  const server = createServer((socket: Socket) => {
    state.connections++;
    let buf = '';
    socket.on('data', async (d) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        buf = buf.slice(end + 4 + length);
        const n = state.requests.push(head) - 1;
        const pieces = reply(n);
        if (pieces === 'close') {
          socket.destroy();
          return;
        }
        for (const p of pieces) {
          socket.write(p);
          if (pieceDelayMs) await new Promise((r) => setTimeout(r, pieceDelayMs));
        }
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat?x=1`);
  return state;
}

function send(
  client: ReturnType<typeof createHttp1Client>,
  url: URL,
  body: string | null = '{"q":1}',
  method = 'POST',
): Promise<Http1Response> {
  return new Promise((resolve, reject) => {
    client.send(url, { method, headers: ['host', url.host, 'content-type', 'application/json'], body }, (err, res) =>
      err ? reject(err) : resolve(res!),
    );
  });
}

const text = (r: Http1Response) => r.body?.toString('utf8') ?? null;

test('Content-Length, chunked (extensions, trailers) and until-close bodies; heads and bodies split at every byte', async () => {
  const json = '{"choices":[{"message":{"content":"héllo wörld"}}]}';
  const bytes = Buffer.from(json, 'utf8');
  const lengthReply = Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`),
    bytes,
  ]);
  const chunked = Buffer.concat([
    Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'),
    Buffer.from(`7;ext=1\r\n`),
    bytes.subarray(0, 7),
    Buffer.from(`\r\n${(bytes.length - 7).toString(16)}\r\n`),
    bytes.subarray(7),
    Buffer.from('\r\n0\r\nX-Trailer: t\r\n\r\n'),
  ]);
  for (const [name, reply] of [
    ['content-length', lengthReply],
    ['chunked', chunked],
  ] as const) {
    // Whole, then one byte per write (with a pause, so each arrives on its own).
    for (const split of [false, true]) {
      const pieces = split ? [...reply].map((b) => Buffer.from([b])) : [reply];
      const server = await rawServer(() => pieces, split ? 1 : 0);
      const client = createHttp1Client();
      const r = await send(client, server.url);
      assert.equal(r.status, 200, name);
      assert.equal(text(r), json, `${name}${split ? ', split' : ''}`);
      // The connection is reused for the next request after a complete response.
      const again = await send(client, server.url);
      assert.equal(text(again), json);
      assert.equal(server.connections, 1, `${name}: keep-alive reuse`);
      assert.match(
        server.requests[0],
        /^POST \/v1\/chat\?x=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\ncontent-type: application\/json\r\ncontent-length: 7$/,
      );
    }
  }
});

test('interim 1xx heads, bodiless statuses, HEAD, and a body that ends with the connection', async () => {
  const server = await rawServer((n) => {
    if (n === 0)
      return [
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n',
        'HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok',
      ];
    if (n === 1) return ['HTTP/1.1 204 No Content\r\n\r\n'];
    if (n === 2) return ['HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n'];
    return ['HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n'];
  });
  const client = createHttp1Client();
  const r = await send(client, server.url);
  assert.equal(r.status, 201);
  assert.equal(text(r), 'ok');
  const none = await send(client, server.url);
  assert.equal(none.status, 204);
  assert.equal(none.body, null);
  const notModified = await send(client, server.url, null, 'GET');
  assert.equal(notModified.body, null, '304 has no body whatever its content-length');
  const head = await send(client, server.url, null, 'HEAD');
  assert.equal(head.body, null, 'HEAD has no body');
  assert.equal(server.connections, 1, 'all on one connection');

  // Until close: a response without framing is read to the end of the connection.
  const closing = createServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it, then close'));
  });
  servers.push(closing);
  await new Promise<void>((res) => closing.listen(0, '127.0.0.1', res));
  const url = new URL(`http://127.0.0.1:${(closing.address() as AddressInfo).port}/`);
  const whole = await send(client, url);
  assert.equal(text(whole), 'all of it, then close');
});

test('Connection: close and HTTP/1.0 responses are not reused; repeated headers read as node:http reads them', async () => {
  const server = await rawServer((n) =>
    n === 0
      ? ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na']
      : n === 1
        ? ['HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb']
        : [
            'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nRetry-After: 9\r\nX-Multi: a\r\nx-multi: b\r\nSet-Cookie: s=1\r\nSet-Cookie: t=2\r\nContent-Length: 1\r\n\r\nc',
          ],
  );
  const client = createHttp1Client();
  assert.equal(text(await send(client, server.url)), 'a');
  assert.equal(text(await send(client, server.url)), 'b');
  const r = await send(client, server.url);
  assert.equal(server.connections, 3, 'a new connection after each non-reusable response');
  assert.equal(r.status, 429);
  assert.equal(r.statusText, 'Too Many Requests');
  assert.equal(r.headers['retry-after'], '2', 'single-valued: the first wins');
  assert.equal(r.headers['x-multi'], 'a, b');
  assert.deepEqual(r.headers['set-cookie'], ['s=1', 't=2']);
  assert.deepEqual(r.rawHeaders.slice(0, 4), ['Retry-After', '2', 'Retry-After', '9']);
});

test('malformed or cut responses are errors that say what is wrong, never text', async () => {
  const cases: Array<[string, Array<string | Buffer> | 'close', RegExp]> = [
    ['no response at all', 'close', /socket hang up/],
    ['not HTTP', ['SSH-2.0-OpenSSH_9.6\r\n\r\n'], /malformed HTTP response status line/],
    ['bad header line', ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'], /malformed HTTP response header line/],
    ['bad content-length', ['HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'], /invalid content-length/],
    ['more than its length', ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc'], /more bytes than its content-length/],
    ['bad chunk size', ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'], /chunk size line/],
    ['head too large', [`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}`], /exceed 16 KiB/],
    ['101 upgrade', ['HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'], /switched protocols/],
  ];
  for (const [name, reply, error] of cases) {
    const server = await rawServer(() => reply);
    await assert.rejects(send(createHttp1Client(), server.url), error, name);
  }
  // Cut mid-body: the server closes after part of a Content-Length body.
  const cut = createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part')));
  servers.push(cut);
  await new Promise<void>((res) => cut.listen(0, '127.0.0.1', res));
  await assert.rejects(
    send(createHttp1Client(), new URL(`http://127.0.0.1:${(cut.address() as AddressInfo).port}/`)),
    /closed the connection before the response body was complete/,
  );
});

test('request headers are checked as node:http checks them', async () => {
  const server = await rawServer(() => ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n']);
  const client = createHttp1Client();
  assert.throws(
    () =>
      client.send(
        server.url,
        { method: 'POST', headers: ['host', server.url.host, 'x-evil', 'a\r\nInjected: 1'], body: '' },
        () => undefined,
      ),
    (e: NodeJS.ErrnoException) => e.code === 'ERR_INVALID_CHAR' && /x-evil/.test(e.message),
  );
  assert.throws(
    () => client.send(server.url, { method: 'POST', headers: ['host', server.url.host, 'bad name', 'v'], body: '' }, () => undefined),
    (e: NodeJS.ErrnoException) => e.code === 'ERR_INVALID_HTTP_TOKEN',
  );
  assert.equal(server.requests.length, 0, 'nothing was sent');
});
