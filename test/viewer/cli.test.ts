// `revloop view` as a user runs it (the bin): it prints where it serves, answers, and stops cleanly
// on Ctrl-C; on a non-loopback host it prints the token once and refuses requests without it; bad
// flags and a missing store are user errors (exit 2) with a message, never a stack trace; --help
// documents every option.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { viewerFixture, type ViewerFixture } from './fixtures.ts';

const BIN = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));

function revloop(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starts `revloop view …` and resolves with the first lines it prints, up to "Ctrl-C to stop". */
function serve(args: string[]): Promise<{ child: ChildProcess; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'view', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('Ctrl-C to stop')) resolve({ child, out });
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`revloop view exited early (${code}): ${err}`)));
  });
}

function stop(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.kill('SIGINT');
  });
}

describe('revloop view (CLI)', () => {
  let fx: ViewerFixture;
  const children: ChildProcess[] = [];
  before(async () => {
    fx = await viewerFixture();
  });
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    fx?.cleanup();
  });

  test('serves the store read-only on loopback, then stops on Ctrl-C', async () => {
    const hash = () => createHash('sha256').update(readFileSync(fx.store)).digest('hex');
    const before = hash();
    const { child, out } = await serve(['--store', fx.store, '--port', '0']);
    children.push(child);
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
    assert.ok(url, out);
    assert.doesNotMatch(out, /token/);
    const runs = (await (await fetch(url + 'api/runs')).json()) as { runs: Array<{ run_id: string }> };
    assert.deepEqual(
      runs.runs.map((r) => r.run_id),
      ['alpha', 'beta', 'faulty'],
    );
    assert.equal((await fetch(url + 'runs/alpha')).status, 200);
    assert.equal((await fetch(url + 'api/runs/alpha?html=1')).status, 200);
    assert.equal((await fetch(url + 'api/compare?a=alpha&b=beta')).status, 200);
    assert.deepEqual(await stop(child), { code: 0, signal: null });
    assert.equal(hash(), before, 'the store file is unchanged');
  });

  test('a non-loopback host: the token is printed once, and every request needs it', async () => {
    const { child, out } = await serve(['--store', fx.store, '--port', '0', '--host', '0.0.0.0']);
    children.push(child);
    const token = /^\s+([A-Za-z0-9_-]{40,})$/m.exec(out)?.[1];
    assert.ok(token, out);
    assert.equal(out.split(token).length - 1, 2, 'the token appears in the URL and on its own line, at start only');
    const port = /:(\d+)\/\?token=/.exec(out)?.[1];
    assert.ok(port, out);
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/runs`)).status, 401);
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    assert.deepEqual(await stop(child), { code: 0, signal: null });
  });

  test('user errors exit 2 with a message; --help documents the options', () => {
    const missing = revloop('view', '--store', join(fx.dir, 'nope.db'), '--port', '0');
    assert.equal(missing.code, 2, missing.err);
    assert.match(missing.err, /nope\.db: no such store/);
    assert.doesNotMatch(missing.err, /\n\s+at /, 'no stack trace');
    const port = revloop('view', '--store', fx.store, '--port', 'eighty');
    assert.equal(port.code, 2);
    assert.match(port.err, /--port/);
    const help = revloop('view', '--help');
    assert.equal(help.code, 0);
    for (const flag of ['--store', '--port', '--host', '--open', '--bootstrap', '--seed']) assert.match(help.out, new RegExp(flag));
    assert.match(help.out, /access token/);
    assert.match(help.out, /docs\/viewer\.md/);
  });
});
