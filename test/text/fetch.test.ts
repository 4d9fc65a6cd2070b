// `revloop data fetch punkt` against a local HTTP server (127.0.0.1, port 0) serving archives built
// here from punkt_tab files regenerated out of ../shared/data/punkt/english.json: success, SHA
// mismatch (nothing left behind), archive problems, HTTP and network errors, and the CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { requireShared } from '../helpers.ts';
import { buildZip } from './zip-writer.ts';
import { loadPunktParams, sentTokenize } from '../../src/core/text/index.ts';
import { punktTabFiles, PUNKT_TAB_FILES } from '../../src/core/text/punkt-params.ts';
import { fetchPunkt, PUNKT_TAB_ENGLISH_FILES } from '../../src/core/text/punkt-fetch.ts';
import { PROJECT_ROOT } from '../../src/core/util/shared-data.ts';
import { tempDir } from '../tmp.ts';

const shared = requireShared('punkt', 'english.json');
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

let server: Server;
let base = '';
const routes = new Map<string, Buffer>();
const tmpRoots: string[] = [];
const tmp = (): string => {
  const d = tempDir('revloop-fetch-');
  tmpRoots.push(d);
  return d;
};

before(async () => {
  server = createServer((req, res) => {
    const body = routes.get(req.url ?? '');
    if (!body) {
      res.writeHead(404, 'Not Found').end('no such file');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/zip', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  for (const d of tmpRoots) rmSync(d, { recursive: true, force: true });
});

function regenerated(): Record<string, string> {
  return punktTabFiles(loadPunktParams(shared.path!));
}

test('regenerated punkt_tab files have exactly the pinned sizes (the format matches NLTK’s)', { skip: shared.skip }, () => {
  const files = regenerated();
  for (const name of PUNKT_TAB_FILES) assert.equal(Buffer.byteLength(files[name]), PUNKT_TAB_ENGLISH_FILES[name].bytes, name);
});

test('fetch: success installs punkt_tab/english atomically and the tokenizer uses it', { skip: shared.skip }, async () => {
  const files = regenerated();
  const zip = buildZip({
    'punkt_tab/README': 'test archive',
    ...Object.fromEntries(Object.entries(files).map(([n, c]) => [`punkt_tab/english/${n}`, c])),
  });
  routes.set('/ok.zip', zip);
  const dest = tmp();
  const progress: number[] = [];
  const expected = Object.fromEntries(Object.entries(files).map(([n, c]) => [n, { bytes: Buffer.byteLength(c), sha256: sha(c) }]));
  const result = await fetchPunkt({ dest, url: `${base}/ok.zip`, sha256: sha(zip), files: expected, onProgress: (n) => progress.push(n) });
  assert.equal(result.dir, join(dest, 'punkt_tab', 'english'));
  assert.deepEqual(readdirSync(result.dir).sort(), [...PUNKT_TAB_FILES].sort());
  assert.deepEqual(readdirSync(join(dest, 'punkt_tab')), ['english'], 'no temporary folders left');
  assert.equal(progress.at(-1), zip.length);
  for (const name of PUNKT_TAB_FILES) assert.equal(readFileSync(join(result.dir, name), 'utf8'), files[name]);
  const text = 'Mr. Smith paid $5.5 million to the U.S. Treasury on Jan. 5. He left. "Why?" she asked.';
  assert.deepEqual(sentTokenize(text, loadPunktParams(result.dir)), sentTokenize(text, loadPunktParams(shared.path!)));

  // A local copy of the archive (a path or a file: URL) installs the same way, with the same checks.
  const local = join(tmp(), 'punkt_tab.zip');
  writeFileSync(local, zip);
  for (const url of [local, pathToFileURL(local).href]) {
    const again = await fetchPunkt({ dest: tmp(), url, sha256: sha(zip), files: expected });
    assert.equal(readFileSync(join(again.dir, 'ortho_context.tab'), 'utf8'), files['ortho_context.tab']);
  }
  await assert.rejects(fetchPunkt({ dest, url: join(tmp(), 'none.zip') }), /none\.zip: no such file/);

  // A second fetch replaces the install in place.
  await fetchPunkt({ dest, url: `${base}/ok.zip`, sha256: sha(zip), files: expected });
  assert.deepEqual(readdirSync(join(dest, 'punkt_tab')), ['english']);
});

test('fetch: a SHA-256 mismatch is refused and nothing is written', { skip: shared.skip }, async () => {
  const zip = buildZip(Object.fromEntries(Object.entries(regenerated()).map(([n, c]) => [`punkt_tab/english/${n}`, c])));
  routes.set('/tampered.zip', zip);
  const dest = tmp();
  // Without --sha256 the pinned hash of NLTK's archive applies, which this archive does not have.
  await assert.rejects(fetchPunkt({ dest, url: `${base}/tampered.zip` }), (e: Error) => {
    assert.match(e.message, /SHA-256 [0-9a-f]{64} \(\d+ bytes\) does not match the expected e57f6418/);
    assert.match(e.message, /Nothing was written/);
    return true;
  });
  assert.deepEqual(readdirSync(dest), []);
});

test('fetch: a failed update leaves an existing install untouched', { skip: shared.skip }, async () => {
  const files = regenerated();
  const zip = buildZip(Object.fromEntries(Object.entries(files).map(([n, c]) => [`punkt_tab/english/${n}`, c])));
  routes.set('/good.zip', zip);
  const broken = buildZip({ 'punkt_tab/english/abbrev_types.txt': 'x' });
  routes.set('/broken.zip', broken);
  const dest = tmp();
  await fetchPunkt({ dest, url: `${base}/good.zip`, sha256: sha(zip), files: null });
  await assert.rejects(
    fetchPunkt({ dest, url: `${base}/broken.zip`, sha256: sha(broken), files: null }),
    /punkt_tab\/english\/collocations\.tab is missing/,
  );
  assert.deepEqual(readdirSync(join(dest, 'punkt_tab')), ['english']);
  assert.equal(readFileSync(join(dest, 'punkt_tab', 'english', 'ortho_context.tab'), 'utf8'), files['ortho_context.tab']);
});

test('fetch: per-file hashes are enforced', { skip: shared.skip }, async () => {
  const files = regenerated();
  const zip = buildZip(Object.fromEntries(Object.entries(files).map(([n, c]) => [`punkt_tab/english/${n}`, c])));
  routes.set('/reordered.zip', zip);
  const dest = tmp();
  // Our regenerated files are sorted; NLTK's are not, so the pinned per-file hashes must refuse them.
  await assert.rejects(
    fetchPunkt({ dest, url: `${base}/reordered.zip`, sha256: sha(zip), files: PUNKT_TAB_ENGLISH_FILES }),
    /punkt_tab\/english\/\S+: \d+ bytes, SHA-256 [0-9a-f]{64}; expected \d+ bytes/,
  );
  assert.deepEqual(readdirSync(dest), []);
});

test('fetch: HTTP errors and network errors say what happened', async () => {
  const dest = tmp();
  await assert.rejects(
    fetchPunkt({ dest, url: `${base}/missing.zip` }),
    /could not download http:\/\/127\.0\.0\.1:\d+\/missing\.zip: HTTP 404 Not Found/,
  );
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await assert.rejects(fetchPunkt({ dest, url: `http://127.0.0.1:${port}/x.zip` }), /could not download .*: ECONNREFUSED/);
  await assert.rejects(fetchPunkt({ dest, url: `${base}/x.zip`, sha256: 'abc' }), /Error: sha256: expected 64 hex digits/);
  routes.set('/notzip', Buffer.from('hello'));
  await assert.rejects(fetchPunkt({ dest, url: `${base}/notzip`, sha256: sha('hello') }), /not a readable ZIP archive/);
  assert.deepEqual(readdirSync(dest), []);
});

test('CLI: revloop data fetch punkt, then data where punkt uses the fetched copy', { skip: shared.skip }, async () => {
  const files = regenerated();
  const zip = buildZip(Object.fromEntries(Object.entries(files).map(([n, c]) => [`punkt_tab/english/${n}`, c])));
  routes.set('/cli.zip', zip);
  const dest = tmp();
  // Asynchronous child processes: the HTTP server lives in this process and must keep answering.
  const cli = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env, REVLOOP_DATA_DIR: dest };
      delete env.REVLOOP_PUNKT;
      execFile(process.execPath, [join(PROJECT_ROOT, 'bin', 'revloop.mjs'), ...args], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const refused = await cli('data', 'fetch', 'punkt', '--url', `${base}/cli.zip`);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /^revloop: refusing .*does not match the expected e57f6418/m);
  assert.doesNotMatch(refused.stderr, /at .*\.ts:\d+/, 'no stack trace for a user error');
  assert.equal(existsSync(join(dest, 'punkt_tab')), false);

  const ok = await cli('data', 'fetch', 'punkt', '--url', `${base}/cli.zip`, '--sha256', sha(zip));
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /installed NLTK punkt_tab \(English\) in .*punkt_tab\/english/);
  assert.match(ok.stdout, /156 abbreviations, 37 collocations, 39 sentence starters/);

  const where = await cli('data', 'where', 'punkt');
  assert.equal(where.code, 0, where.stderr);
  assert.match(
    where.stdout,
    new RegExp(`^\\* fetched +${join(dest, 'punkt_tab', 'english').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
  );

  const unknown = await cli('data', 'fetch', 'wordnet');
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /unknown data package "wordnet"; available: punkt/);
});
