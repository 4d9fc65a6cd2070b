// Issue 36, "Done when": a run survives any bytes a model can send, on both backends. A provider
// answers with NUL, a lone surrogate, bytes that are not UTF-8, a body beyond the cap and its key
// echoed in an error, then with text; `revloop run` records each as a failed attempt of its kind,
// never a draft, finishes, and the run audits and exports clean with the key nowhere in the store.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/store.ts';
import { startFaultServer, chatOk, type FaultStep as Step } from '../../src/test/fault-server.ts';
import { eachBackend, PG_SKIP, rawDb, testStore } from '../store/backends.ts';
import { tempDir } from '../tmp.ts';
import { test } from 'node:test';
import { userEnv } from '../cli/cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');
const KEY = 'sk-test-HOSTILE0123456789';

function revloop(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: userEnv(env) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** The hostile replies, one of each, before every good one (Retry-After 0 where a header is read: no waits). */
const now = { 'retry-after-ms': '0' };
const HOSTILE: Step[] = [
  { body: 'x'.repeat(70_000) },
  { json: chatOk('alpha beta \u0000 gamma'), headers: now },
  { body: '{"choices":[{"message":{"role":"assistant","content":"alpha \\ud83d beta"},"finish_reason":"stop"}]}', headers: now },
  {
    body: Buffer.concat([
      Buffer.from('{"choices":[{"message":{"role":"assistant","content":"caf'),
      Buffer.from([0xff]),
      Buffer.from('"}}]}'),
    ]),
    headers: now,
  },
  { status: 500, json: { error: { message: `upstream rejected Bearer ${KEY}` } }, headers: now },
];

eachBackend(
  'a run survives NUL, lone surrogates, invalid UTF-8, oversized bodies and an echoed key: faults recorded, run finished',
  async (s) => {
    let n = 0;
    const server = await startFaultServer([], () => {
      const step = n % 6 < 5 ? HOSTILE[n % 6] : { json: chatOk('One two three four five six seven eight.') };
      n++;
      return step;
    });
    try {
      const dir = tempDir('revloop-hostile-');
      const cases = join(dir, 'cases.jsonl');
      writeFileSync(
        cases,
        [1, 2]
          .map((i) =>
            JSON.stringify({
              id: `h${i}`,
              family: 'exact-length',
              source: 'own',
              instruction: `Write about item ${i}.`,
              target: 8,
              anchors: [],
            }),
          )
          .join('\n') + '\n',
      );
      const r = await revloop(
        [
          'run',
          '--cases',
          cases,
          '--format',
          'native',
          '--model',
          `openai-compatible:${server.url}#m`,
          '--store',
          s.location,
          '--run-id',
          'hostile',
          '--budget',
          '1',
          '--retries',
          '5',
          '--concurrency',
          '1',
          '--max-response-bytes',
          '65536',
          '--api-key-env',
          'REVLOOP_TEST_HOSTILE_KEY',
        ],
        { REVLOOP_TEST_HOSTILE_KEY: KEY },
      );
      assert.equal(r.code, 0, r.err);
      const audit = await revloop(['audit', '--store', s.location, '--run', 'hostile']);
      assert.equal(audit.code, 0, audit.out + audit.err);
      const exp = await revloop(['export', '--store', s.location, '--run', 'hostile', '-o', join(dir, 'out.jsonl')]);
      assert.equal(exp.code, 0, exp.err);
      const store = await openStore(s.location, { readonly: true });
      try {
        const events = await store.readEvents('hostile');
        const kinds = events.flatMap((e) => (e.type === 'attempt_finished' && !e.payload.record.ok ? [e.payload.record.error!.kind] : []));
        for (const k of ['invalid_text', 'response_too_large', 'server_error']) assert.ok(kinds.includes(k), `${k} in ${kinds.join(', ')}`);
        assert.equal(kinds.filter((k) => k === 'invalid_text').length % 3, 0, 'NUL, surrogate and bytes each time');
        for (const t of await store.loadTrajectories(['hostile']))
          for (const round of t.rounds) assert.equal(round.text, 'One two three four five six seven eight.');
      } finally {
        await store.close();
      }
      const db = await rawDb(s.location);
      try {
        const [{ n: leaked }] = await db.all<{ n: number }>(`SELECT count(*) AS n FROM events WHERE payload LIKE ?`, `%HOSTILE0123456789%`);
        assert.equal(Number(leaked), 0, 'the key is in no event');
      } finally {
        await db.close();
      }
    } finally {
      await server.close();
    }
  },
);

test(
  'PostgreSQL workers survive the same bytes: a planned run is finished by a worker, faults recorded, audit clean',
  { skip: PG_SKIP },
  async () => {
    let n = 0;
    const server = await startFaultServer([], () => {
      const step = n % 6 < 5 ? HOSTILE[n % 6] : { json: chatOk('One two three four five six seven eight.') };
      n++;
      return step;
    });
    const s = testStore('postgres');
    try {
      const dir = tempDir('revloop-hostile-w-');
      const cases = join(dir, 'cases.jsonl');
      writeFileSync(
        cases,
        JSON.stringify({ id: 'w1', family: 'exact-length', source: 'own', instruction: 'Write about item 1.', target: 8, anchors: [] }) +
          '\n',
      );
      const limits = ['--max-response-bytes', '65536', '--api-key-env', 'REVLOOP_TEST_HOSTILE_KEY'];
      const model = ['--model', `openai-compatible:${server.url}#m`, ...limits];
      const env = { REVLOOP_TEST_HOSTILE_KEY: KEY };
      const plan = await revloop(
        [
          'run',
          '--cases',
          cases,
          '--format',
          'native',
          ...model,
          '--store',
          s.location,
          '--run-id',
          'hw',
          '--budget',
          '1',
          '--workers',
          '0',
        ],
        env,
      );
      assert.equal(plan.code, 0, plan.err);
      const worker = await revloop(
        ['worker', '--store', s.location, '--run', 'hw', '--concurrency', '1', '--retries', '5', ...limits],
        env,
      );
      assert.equal(worker.code, 0, worker.err);
      const audit = await revloop(['audit', '--store', s.location, '--run', 'hw']);
      assert.equal(audit.code, 0, audit.out + audit.err);
      const store = await openStore(s.location, { readonly: true });
      try {
        const [t] = await store.loadTrajectories(['hw']);
        assert.equal(t.status, 'complete');
        assert.equal(t.rounds[0].text, 'One two three four five six seven eight.');
      } finally {
        await store.close();
      }
    } finally {
      await server.close();
      await s.cleanup();
    }
  },
);
