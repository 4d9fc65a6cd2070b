// The viewer's server under load and hostile requests (issue 36): a bounded number of event streams
// (429 beyond), a replay read without payloads, text searches off the server's thread and bounded
// in time, malformed requests answered 400 without a stack trace, and runs that disagree with their
// events refused (or, with --allow-unverified, served and marked).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startViewer, type ViewerHandle } from '../../src/app/view.ts';
import { SearchWorker } from '../../src/app/view-search.ts';
import { openStore } from '../../src/store/store.ts';
import { rawDb } from '../store/backends.ts';
import { alphaLines, importLines, viewerFixture, wordCount, type ViewerFixture } from './fixtures.ts';
import { importRun } from '../../src/app/import.ts';
import { chromiumMissing, launchChromium } from '../chromium.ts';

/** A raw request over a socket: what a malformed client sends, byte for byte. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(text));
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (c) => (out += c));
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

/** A 4 MB draft of one word repeated: a pathological text for a naive substring search. */
const BIG = 'a '.repeat(2_000_000).trim();

describe('viewer server under load', () => {
  let fx: ViewerFixture;
  let viewer: ViewerHandle;
  const logged: string[] = [];
  before(async () => {
    fx = await viewerFixture();
    const file = join(fx.dir, 'big.jsonl');
    writeFileSync(
      file,
      JSON.stringify({
        id: 'big:1',
        controller: 'big-model',
        family: 'exact-length',
        case_id: 'big-1',
        source: 'own',
        instruction: 'Write a lot.',
        target: wordCount('a b c'),
        anchors: ['a'],
        drafts: [BIG],
      }) + '\n',
    );
    await importRun({ file, store: fx.store, runId: 'big', budget: 1 });
    viewer = await startViewer({ store: fx.store, port: 0, bootstrap: 20, pollMs: 50, maxStreams: 2, log: (l) => logged.push(l) });
  });
  after(async () => {
    await viewer?.close();
    fx?.cleanup();
  });

  test('at most --max-streams event streams: the next is answered 429 with Retry-After; closing one frees a place', async () => {
    const base = `http://127.0.0.1:${viewer.port}`;
    const open: AbortController[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const ac = new AbortController();
        open.push(ac);
        const r = await fetch(`${base}/api/events?after=0`, { signal: ac.signal });
        assert.equal(r.status, 200);
      }
      const third = await fetch(`${base}/api/events?after=0`);
      assert.equal(third.status, 429);
      assert.equal(third.headers.get('retry-after'), '5');
      assert.match(((await third.json()) as any).error, /2 event streams are open, the most this viewer serves at once/);
      const runs = await fetch(`${base}/api/runs`);
      assert.equal(runs.status, 200, 'other requests are still answered');
      open.pop()!.abort();
      for (let i = 0; i < 50 && viewer.streams() > 1; i++) await new Promise((r) => setTimeout(r, 20));
      const again = new AbortController();
      open.push(again);
      assert.equal((await fetch(`${base}/api/events?after=0`, { signal: again.signal })).status, 200);
    } finally {
      for (const ac of open) ac.abort();
    }
  });

  test('the replay reads ids and summaries from the store, never a payload', async () => {
    const store = await openStore(fx.store, { readonly: true });
    try {
      const all = await store.eventsAfter(0, 100_000);
      const summaries = await store.eventSummariesAfter(0, 100_000);
      assert.deepEqual(
        summaries.map((s) => s.id),
        all.map((e) => e.id),
      );
      for (const [i, s] of summaries.entries()) {
        const e = all[i];
        assert.ok(!('payload' in s) && !('text' in s));
        if (e.type === 'draft_accepted') assert.equal(s.joint, e.payload.joint);
        if (e.type === 'attempt_finished') {
          assert.equal(s.ok, e.payload.record.ok);
          assert.equal(s.errorKind, e.payload.record.error?.kind);
        }
        if (e.type === 'trajectory_completed') assert.deepEqual([s.joint, s.stop], [e.payload.final_joint, e.payload.stop]);
      }
    } finally {
      await store.close();
    }
  });

  test('a text search runs off the server thread: another request is answered before a slow search ends', async () => {
    const base = `http://127.0.0.1:${viewer.port}`;
    const order: string[] = [];
    const q = encodeURIComponent('a '.repeat(99) + 'b');
    const search = fetch(`${base}/api/runs/big/trajectories?q=${q}`).then(async (r) => {
      order.push('search');
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    const runs = fetch(`${base}/api/runs`).then((r) => {
      order.push('runs');
      return r;
    });
    const [s, r] = await Promise.all([search, runs]);
    assert.equal(r.status, 200);
    assert.equal(s.status, 200, await s.clone().text());
    assert.equal(((await s.json()) as any).total, 0);
    assert.deepEqual(order, ['runs', 'search']);
  });

  test('a search longer than 200 characters is refused; a search past its time limit is stopped with a clear error', async () => {
    const base = `http://127.0.0.1:${viewer.port}`;
    const long = await fetch(`${base}/api/runs/big/trajectories?q=${'x'.repeat(201)}`);
    assert.equal(long.status, 400);
    assert.match(((await long.json()) as any).error, /query parameter q: at most 200 characters/);
    const worker = new SearchWorker(fx.store, { timeoutMs: 1 });
    try {
      await assert.rejects(worker.search('big', { text: 'b' }), /the text search took longer than 0\.001 s and was stopped/);
      // The next search gets a fresh worker.
    } finally {
      await worker.close();
    }
    const fresh = new SearchWorker(fx.store);
    try {
      assert.equal((await fresh.search('alpha', { text: 'umbrella' })).total, 1);
    } finally {
      await fresh.close();
    }
  });

  test('a malformed cookie or request target gets 400, with no stack trace anywhere', async () => {
    const before = logged.length;
    const cookie = await raw(
      viewer.port,
      'GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: revloop_token=%E0%A4%A\r\nConnection: close\r\n\r\n',
    );
    assert.match(cookie, /^HTTP\/1\.1 (400|200) /);
    const target = await raw(viewer.port, 'GET http://[bad HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.match(target, /^HTTP\/1\.1 400 /);
    assert.ok(!/\n\s+at /.test(target), target);
    assert.deepEqual(logged.slice(before), [], 'nothing on the console');
  });
});

test('a viewer with a token: a malformed token cookie is a 400 before the token check, never a 500', async () => {
  const fx = await viewerFixture();
  const logged: string[] = [];
  const viewer = await startViewer({ store: fx.store, port: 0, host: '0.0.0.0', log: (l) => logged.push(l) });
  try {
    const r = await raw(viewer.port, 'GET /api/runs HTTP/1.1\r\nHost: x\r\nCookie: revloop_token=%E0%A4%A\r\nConnection: close\r\n\r\n');
    assert.match(r, /^HTTP\/1\.1 400 /);
    assert.match(r, /bad request: the revloop_token cookie is not valid percent-encoding/);
    assert.deepEqual(logged, []);
  } finally {
    await viewer.close();
    fx.cleanup();
  }
});

test('runs that disagree with their events: refused (409), or with allowUnverified served and marked', async () => {
  const fx = await viewerFixture();
  try {
    const db = await rawDb(fx.store);
    await db.run("UPDATE rounds SET joint = 1 - joint WHERE run_id = 'alpha' AND case_index = 1 AND revision = 0");
    await db.close();
    const warned: string[] = [];
    const strict = await startViewer({
      store: fx.store,
      port: 0,
      onUnverified: (runId, problems) => warned.push(`${runId}: ${problems[0]}`),
    });
    try {
      const base = `http://127.0.0.1:${strict.port}`;
      const r = await fetch(`${base}/api/runs/alpha/trajectories`);
      assert.equal(r.status, 409);
      assert.match(
        ((await r.json()) as any).error,
        /run 'alpha' disagrees with its own events \(case #2 revision 0: rounds\.joint: the events say false, the table holds true\)/,
      );
      assert.equal((await fetch(`${base}/api/runs/beta/trajectories`)).status, 200);
      assert.deepEqual(warned, ['alpha: case #2 revision 0: rounds.joint: the events say false, the table holds true']);
    } finally {
      await strict.close();
    }
    const viewer = await startViewer({ store: fx.store, port: 0, allowUnverified: true });
    try {
      const base = `http://127.0.0.1:${viewer.port}`;
      const t = (await (await fetch(`${base}/api/runs/alpha/trajectories`)).json()) as any;
      assert.match(t.unverified[0], /rounds\.joint/);
      const runs = (await (await fetch(`${base}/api/runs`)).json()) as any;
      const alpha = runs.runs.find((r: { run_id: string }) => r.run_id === 'alpha');
      assert.match(alpha.unverified[0], /rounds\.joint/);
      assert.equal(runs.runs.find((r: { run_id: string }) => r.run_id === 'beta').unverified, undefined);
      // The pages say so too: a banner and a badge on the run list, a banner on the run's page.
      if (!chromiumMissing) {
        const browser = await launchChromium();
        try {
          const page = await browser.context.newPage();
          await page.goto(`${base}/`);
          await page.waitForSelector('#run-rows tr[data-run="alpha"]');
          assert.equal(await page.locator('#run-rows tr[data-run="alpha"] .badge.bad').textContent(), 'UNVERIFIED');
          assert.equal(await page.locator('#run-rows tr[data-run="beta"] .badge.bad').count(), 0);
          assert.ok(await page.locator('p.banner.unverified').isVisible());
          await page.goto(`${base}/runs/alpha`);
          const banner = page.locator('p.banner.unverified');
          await banner.waitFor();
          assert.match(
            (await banner.textContent()) ?? '',
            /UNVERIFIED This run disagrees with its own events \(case #2 revision 0: rounds\.joint/,
          );
        } finally {
          await browser.close();
        }
      }
    } finally {
      await viewer.close();
    }
  } finally {
    fx.cleanup();
  }
});

test('a run that turns up after the viewer started is checked when first asked for, and refused (409) when it disagrees', async () => {
  const fx = await viewerFixture();
  try {
    const viewer = await startViewer({ store: fx.store, port: 0 });
    try {
      await importLines(fx.dir, fx.store, 'gamma', alphaLines());
      const db = await rawDb(fx.store);
      await db.run("UPDATE trajectories SET final_joint = 1 WHERE run_id = 'gamma' AND case_index = 2");
      await db.close();
      const base = `http://127.0.0.1:${viewer.port}`;
      const r = await fetch(`${base}/api/runs/gamma/trajectories`);
      assert.equal(r.status, 409);
      assert.match(((await r.json()) as any).error, /run 'gamma' disagrees with its own events \(case #3: trajectories\.final_joint/);
      assert.equal((await fetch(`${base}/api/runs/beta/trajectories`)).status, 200);
    } finally {
      await viewer.close();
    }
  } finally {
    fx.cleanup();
  }
});
