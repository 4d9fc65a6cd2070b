// The end-to-end: a run planned once in PostgreSQL, four `revloop worker` processes against
// a fault-injecting OpenAI-compatible server, two of them SIGKILLed mid-run. The survivors finish
// the run; `revloop audit` passes; no round is stored twice; and the export is byte for byte the
// export of one uninterrupted SQLite process against the same deterministic server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { openStore } from '../../src/store/store.ts';
import { PG_SKIP, testStore } from '../store/backends.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Replies as a deterministic controller: most cases land two words short, then one over, then
 * exact (three rounds); every fourth never lands (the whole budget). Faults depend only on the
 * request's case, revision and how often that request was seen: 503s and 429s (retried at once,
 * Retry-After: 0), null content, malformed JSON.
 */
async function faultyController(latencyMs: number): Promise<{ url: string; close(): void; requests: () => number; reset(): void }> {
  const seen = new Map<string, number>();
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const { messages } = JSON.parse(body) as { messages: Array<{ content: string }> };
      const first = messages[0].content;
      const n = Number(/^Case (\d+)/.exec(first)![1]);
      const target = Number(/write exactly (\d+) words/.exec(first)![1]);
      const anchors = /required content items: (.*?)\. Return only/.exec(first)![1].split('; ');
      const revision = (messages.length - 1) / 2;
      const key = `${n}/${revision}`;
      const attempt = (seen.get(key) ?? 0) + 1;
      seen.set(key, attempt);
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify(v));
      };
      setTimeout(() => {
        if (attempt === 1 && (n + revision) % 5 === 0) return json(503, { error: { message: 'overloaded' } });
        if (attempt === 1 && (n + revision) % 7 === 3) return json(429, { error: { message: 'slow down' } });
        if (attempt === 1 && (n + revision) % 11 === 5)
          return json(200, { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }] });
        const delta = n % 4 === 0 ? 1 : [-2, 1, 0][Math.min(revision, 2)];
        const words = anchors.join(' ').split(/\s+/);
        while (words.length < target + delta) words.push(['calm', 'grey', 'slow', 'tide'][words.length % 4]);
        return json(200, {
          id: `ok-${key}-${attempt}`,
          model: 'faulty',
          choices: [
            { index: 0, message: { role: 'assistant', content: `${words.slice(0, target + delta).join(' ')}\n` }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        });
      }, latencyMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
    requests: () => requests,
    /** Forget the attempts seen, so the next run meets the same faults. */
    reset: () => seen.clear(),
  };
}

/** The CLI in a child process (asynchronously: the server answering it runs in this process). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A child that never exits (a worker waiting forever) fails the test instead of hanging the suite.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 240_000).unref();
    child.on('exit', (status) => {
      clearTimeout(deadline);
      resolve({ status, stdout, stderr });
    });
  });
}

test(
  'four workers, two SIGKILLed mid-run, against a fault-injecting server: complete, audited, every round once, export equal to one SQLite process',
  { skip: PG_SKIP, timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-kill-'));
    const pg = testStore('postgres');
    const server = await faultyController(250);
    const workers: ChildProcess[] = [];
    try {
      const cases: ConstraintCase[] = Array.from({ length: 40 }, (_, i) => ({
        id: `own-${i}`,
        family: 'exact-length',
        source: 'own',
        instruction: `Case ${i}: describe a harbour at dusk.`,
        target: 9 + (i % 6),
        anchors: ['harbour', 'dusk light'],
      }));
      const casesPath = join(dir, 'cases.jsonl');
      await writeCaseSet(casesPath, cases);
      const common = ['--cases', casesPath, '--model', `openai-compatible:${server.url}#faulty`, '--run-id', 'shared', '--retries', '3'];

      // The reference: one uninterrupted process, SQLite.
      const ref = await cli(['run', ...common, '--store', join(dir, 'ref.db'), '--concurrency', '12', '--max-consecutive-failures', '0']);
      assert.equal(ref.status, 0, ref.stdout + ref.stderr);
      const refExport = await cli(['export', '--store', join(dir, 'ref.db'), '--run', 'shared', '-o', join(dir, 'ref.jsonl')]);
      assert.equal(refExport.status, 0, refExport.stderr);
      const refStore = await openStore(join(dir, 'ref.db'), { readonly: true });
      const refRounds = (await refStore.listRuns())[0].rounds;
      await refStore.close();

      // Plan once, then four workers (meeting the same faults as the reference run).
      server.reset();
      const plan = await cli(['run', ...common, '--store', pg.location, '--workers', '0']);
      assert.equal(plan.status, 0, plan.stdout + plan.stderr);
      assert.match(plan.stdout, /^planned: run 'shared' in .*, 40 trajectories .*nothing was run$/m);
      const exits = [] as Array<Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>>;
      for (let i = 0; i < 4; i++) {
        const child = spawn(
          process.execPath,
          [BIN, 'worker', '--store', pg.location, '--run', 'shared', '--concurrency', '3', '--lease-seconds', '5', '--retries', '3'],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.stderr!.on('data', (d) => (out += d));
        exits.push(new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out }))));
        workers.push(child);
      }

      // Mid-run: once a fifth of the rounds are in and at least two workers hold leases, kill two of those.
      const reader = await openStore(pg.location, { readonly: true });
      let killed: number[] = [];
      const deadline = Date.now() + 180_000;
      while (!killed.length && Date.now() < deadline) {
        await sleep(100);
        const [run] = await reader.listRuns();
        if (!run || run.rounds < refRounds / 5) continue;
        const holding = (await reader.leases!.workers()).filter((w) => w.alive && w.leases.length && workers.some((c) => c.pid === w.pid));
        if (holding.length < 2) continue;
        killed = holding.slice(0, 2).map((w) => w.pid);
        for (const c of workers) if (killed.includes(c.pid!)) c.kill('SIGKILL');
        assert.ok(run.pending > 0, 'killed mid-run');
      }
      assert.equal(killed.length, 2, 'two workers were killed while holding leases');
      const ended = await Promise.all(exits);
      for (const [i, e] of ended.entries()) {
        if (killed.includes(workers[i].pid!)) assert.equal(e.signal, 'SIGKILL');
        else assert.equal(e.code, 0, e.out);
      }
      const survivors = ended.filter((_, i) => !killed.includes(workers[i].pid!));
      assert.ok(
        survivors.some((e) => /run 'shared' has no pending trajectory: 40\/40 finished/.test(e.out)),
        survivors.map((e) => e.out).join('\n'),
      );

      // Complete, every round once, the killed workers' generations resumed from their last committed round.
      const [run] = await reader.listRuns();
      assert.equal(run.status, 'complete');
      assert.equal(run.rounds, refRounds);
      assert.ok(run.failedAttempts > 0, 'the server injected faults, recorded as failed attempts');
      const events = await reader.readEvents('shared');
      const drafts = events.filter((e) => e.type === 'draft_accepted').map((e) => `${e.caseIndex}:${e.revision}`);
      assert.equal(drafts.length, refRounds);
      assert.equal(new Set(drafts).size, drafts.length, 'no round stored twice');
      const starts = events.filter((e) => e.type === 'attempt_started').map((e) => `${e.caseIndex}:${e.revision}`);
      assert.ok(starts.length > new Set(starts).size, 'some generations were cut off by the kills and run again');
      const workersSeen = await reader.leases!.workers();
      assert.deepEqual(
        workersSeen.filter((w) => killed.includes(w.pid)).map((w) => [w.alive, w.stoppedAt]),
        [
          [false, null],
          [false, null],
        ],
      );
      assert.equal(
        workersSeen.reduce((n, w) => n + w.leases.length, 0),
        0,
        'no lease left held',
      );
      await reader.close();

      const audit = await cli(['audit', '--store', pg.location, '--run', 'shared']);
      assert.equal(audit.status, 0, audit.stdout + audit.stderr);
      assert.match(audit.stdout, /^PASS: event chain intact/m);
      const exported = await cli(['export', '--store', pg.location, '--run', 'shared', '-o', join(dir, 'pg.jsonl')]);
      assert.equal(exported.status, 0, exported.stderr);
      assert.equal(readFileSync(join(dir, 'pg.jsonl'), 'utf8'), readFileSync(join(dir, 'ref.jsonl'), 'utf8'));
    } finally {
      for (const c of workers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      server.close();
      await pg.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
