// revloop's keep-alive fetch (src/models/http/node-fetch.ts) against real loopback servers: bodies,
// statuses and headers as fetch gives them, abort at every stage, connection faults, socket reuse,
// and that an HTTP model sends its requests through it; https: through node:https, which a process
// loads only on its first https: request. Also the fast message hash used in attempt records equals
// the canonical-JSON one it replaces.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { createModel } from '../../src/models/index.ts';
import { createKeepAliveFetch } from '../../src/models/http/node-fetch.ts';
import { messagesCanonicalSha256 } from '../../src/models/http/openai-compatible.ts';
import { canonicalJson, sha256Hex } from '../../src/core/util/hash.ts';
import { chatOk } from '../../src/test/fault-server.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

interface TestServer {
  url: string;
  /** Distinct client sockets seen so far. */
  sockets: Set<Socket>;
  close(): Promise<void>;
}

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(handler: Handler, keepAliveTimeoutMs = 5000): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const srv = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  srv.keepAliveTimeout = keepAliveTimeoutMs;
  srv.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const s: TestServer = {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    sockets,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
  servers.push(s);
  return s;
}

const fetchOf = () => createKeepAliveFetch();

test('POST: method, headers and a UTF-8 body arrive intact; the response reads like fetch', async () => {
  let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
  const server = await serve((req, body, res) => {
    seen = { method: req.method, headers: req.headers, body };
    res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ echo: body }));
  });
  const body = JSON.stringify({ text: 'naïve café — 日本語 🙂' });
  const r = await fetchOf()(`${server.url}/v1/x`, {
    method: 'POST',
    headers: new Headers({ 'Content-Type': 'application/json', 'X-Extra': 'yes' }),
    body,
  });
  assert.equal(seen.method, 'POST');
  assert.equal(seen.body, body);
  assert.equal(seen.headers!['content-length'], String(Buffer.byteLength(body)));
  assert.equal(seen.headers!['x-extra'], 'yes');
  assert.equal(r.status, 201);
  assert.equal(r.ok, true);
  assert.equal(r.statusText, 'Made');
  assert.equal(r.url, `${server.url}/v1/x`);
  assert.equal(r.headers.get('x-request-id'), 'req-1');
  assert.equal(r.headers.get('set-cookie'), 'a=1, b=2');
  assert.equal(r.bodyUsed, false);
  assert.deepEqual(await r.json(), { echo: body });
  assert.equal(r.bodyUsed, true);
  await assert.rejects(r.text(), TypeError, 'a body reads once');
});

test('plain-object and pair-list headers, bodies as bytes, GET without a body', async () => {
  const seen: Array<{ method?: string; body: string; h?: string }> = [];
  const server = await serve((req, body, res) => {
    seen.push({ method: req.method, body, h: req.headers['x-h'] as string });
    res.end('ok');
  });
  const f = fetchOf();
  await (await f(server.url, { method: 'POST', headers: { 'x-h': 'obj' }, body: new TextEncoder().encode('bytes') })).text();
  await (await f(server.url, { method: 'PUT', headers: [['X-H', 'pairs']], body: new TextEncoder().encode('ab').buffer })).text();
  const g = await f(new URL(server.url));
  assert.equal(await g.text(), 'ok');
  assert.deepEqual(seen, [
    { method: 'POST', body: 'bytes', h: 'obj' },
    { method: 'PUT', body: 'ab', h: 'pairs' },
    { method: 'GET', body: '', h: undefined },
  ]);
});

test('error statuses are responses, not rejections; 204 has a null body; 3xx is not followed', async () => {
  const server = await serve((req, _b, res) => {
    if (req.url === '/429') {
      res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow"}}');
    } else if (req.url === '/204') {
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(307, { location: '/elsewhere' });
      res.end('moved');
    }
  });
  const f = fetchOf();
  const r429 = await f(`${server.url}/429`, { method: 'POST', body: '{}' });
  assert.equal(r429.status, 429);
  assert.equal(r429.ok, false);
  assert.equal(r429.headers.get('retry-after'), '2');
  assert.match(await r429.text(), /slow/);
  const r204 = await f(`${server.url}/204`);
  assert.equal(r204.status, 204);
  assert.equal(r204.body, null);
  assert.equal(await r204.text(), '');
  const r307 = await f(`${server.url}/307`, { method: 'POST', body: '{}' });
  assert.equal(r307.status, 307);
  assert.equal(r307.headers.get('location'), '/elsewhere');
});

test('compressed responses are decoded; the body stream and clone work', async () => {
  const server = await serve((_req, _b, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
    res.end(gzipSync(Buffer.from('squeezed text')));
  });
  const r = await fetchOf()(server.url);
  const copy = r.clone();
  assert.equal(await copy.text(), 'squeezed text');
  const reader = r.body!.getReader();
  const first = await reader.read();
  assert.equal(Buffer.from(first.value!).toString(), 'squeezed text');
  assert.equal((await reader.read()).done, true);
});

test('sequential requests reuse one keep-alive connection', async () => {
  const server = await serve((_req, _b, res) => res.end('{}'));
  const f = fetchOf();
  for (let i = 0; i < 5; i++) await (await f(server.url, { method: 'POST', body: '{}' })).text();
  assert.equal(server.sockets.size, 1);
});

test('abort: before the call, while waiting for headers, while reading the body; the reason is rethrown', async () => {
  const server = await serve((req, _b, res) => {
    if (req.url === '/headers-then-stall') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    }
    // otherwise: never answer
  });
  const f = fetchOf();
  const reason = new Error('stop now');
  const pre = new AbortController();
  pre.abort(reason);
  await assert.rejects(f(server.url, { signal: pre.signal }), (e) => e === reason);

  for (const path of ['/hang', '/headers-then-stall']) {
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(reason), 80);
    await assert.rejects(f(server.url + path, { method: 'POST', body: '{}', signal: ac.signal }), (e) => e === reason, path);
    assert.ok(Date.now() - t0 < 2000, `${path}: the abort ended the call`);
  }
  // A plain abort() rejects with the signal's default reason (an AbortError), as fetch does.
  const plain = new AbortController();
  setTimeout(() => plain.abort(), 30);
  await assert.rejects(f(`${server.url}/hang`, { signal: plain.signal }), (e: Error) => e.name === 'AbortError');
});

test('connection faults reject with the network error: refused, reset, closed mid-body', async () => {
  const f = fetchOf();
  const gone = await serve(() => undefined);
  const port = new URL(gone.url).port;
  await gone.close();
  await assert.rejects(f(`http://127.0.0.1:${port}/`), (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED');

  const server = await serve((req, _b, res) => {
    if (req.url === '/reset') req.socket.destroy();
    else {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part');
      setTimeout(() => req.socket.destroy(), 10);
    }
  });
  await assert.rejects(f(`${server.url}/reset`, { method: 'POST', body: '{}' }), (e: Error) =>
    /socket hang up|ECONNRESET/.test(`${e.message} ${(e as NodeJS.ErrnoException).code}`),
  );
  await assert.rejects(f(`${server.url}/short`), (e: Error) =>
    /closed the connection|aborted|ECONNRESET/.test(`${e.message} ${(e as NodeJS.ErrnoException).code}`),
  );
});

test('an HTTP model sends through the keep-alive exchange (one connection for many calls)', async () => {
  const seen: IncomingMessage['headers'][] = [];
  const server = await serve((req, _b, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chatOk('Fine text.')));
  });
  const model = await createModel(`openai-compatible:${server.url}/v1#test-model`, { concurrency: 1 });
  for (let i = 0; i < 4; i++) {
    const r = await model.generate([{ role: 'user', content: `call ${i}` }], { maxTokens: 8 });
    assert.equal(r.text, 'Fine text.');
  }
  assert.equal(server.sockets.size, 1);
  // Node's global (undici) fetch adds sec-fetch-mode and accept-encoding to every request; ours does not.
  for (const h of seen) {
    assert.equal(h['sec-fetch-mode'], undefined);
    assert.equal(h['accept-encoding'], undefined);
    // The request is revloop's own (the SDK left the request path): JSON both ways, our user agent.
    assert.match(String(h['user-agent']), /^revloop\//);
    assert.equal(h['content-type'], 'application/json');
    assert.equal(h.accept, 'application/json');
  }
});

test("an idle pooled socket is retired before the server's announced keep-alive timeout", async () => {
  // The server closes idle connections after 2 s and says so ("Keep-Alive: timeout=2"); the pool
  // retires its socket after 1 s idle, so a request after 1.3 s never meets a socket being closed.
  const server = await serve((_req, _b, res) => res.end('{}'), 2000);
  const f = fetchOf();
  const first = await f(server.url, { method: 'POST', body: '{}' });
  assert.match(String(first.headers.get('keep-alive')), /timeout=\d+/);
  await first.text();
  await new Promise((r) => setTimeout(r, 1300));
  const second = await f(server.url, { method: 'POST', body: '{}' });
  assert.equal(await second.text(), '{}');
  assert.equal(server.sockets.size, 2, 'a fresh connection after the idle one was retired');
});

test('the record hash of a message list equals sha256(canonicalJson(messages)), fast path or not', () => {
  const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string({ unit: 'binary' }) });
  fc.assert(
    fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
      assert.equal(messagesCanonicalSha256(messages), sha256Hex(canonicalJson(messages)));
    }),
    { numRuns: 300 },
  );
  const odd = [
    { role: 'user', content: [{ type: 'text', text: 'parts' }] },
    { content: 'no role' },
    { role: 'user', content: 'x', name: 'extra' },
  ];
  assert.equal(messagesCanonicalSha256(odd), sha256Hex(canonicalJson(odd)));
});

test('https: goes through node:https, loaded on the first https: request, with keep-alive and decoding', async () => {
  // A throwaway self-signed certificate for 127.0.0.1 (fixtures/tls), trusted by the child process
  // through NODE_EXTRA_CA_CERTS, as a user trusts a private CA.
  const tls = join(import.meta.dirname, 'fixtures', 'tls');
  const sockets = new Set<unknown>();
  const srv = createHttpsServer({ key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = `${req.method} ${Buffer.concat(chunks).toString('utf8')}`;
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.from(text)));
      } else res.end(text);
    });
  });
  srv.on('secureConnection', (s) => sockets.add(s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  const code = `
    const { createKeepAliveFetch } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'models', 'http', 'node-fetch.ts')).href)});
    const loaded = () => process.moduleLoadList.includes('NativeModule https');
    const before = loaded();
    const f = createKeepAliveFetch();
    const post = await f(${JSON.stringify(url)}, { method: 'POST', body: 'ping é', headers: { 'content-type': 'text/plain' } });
    const posted = await post.text();
    const got = await (await f(${JSON.stringify(url)})).text();
    console.log(JSON.stringify({ before, after: loaded(), status: post.status, posted, got }));`;
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(tls, 'cert.pem') },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c));
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      child.on('error', reject);
      child.on('close', (status) => (status === 0 ? resolve(stdout) : reject(new Error(`child exited ${status}: ${stderr}`))));
    });
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), {
      before: false,
      after: true,
      status: 200,
      posted: 'POST ping é',
      got: 'GET ',
    });
    assert.equal(sockets.size, 1, 'both requests went over one kept-alive TLS connection');
  } finally {
    srv.closeAllConnections();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
