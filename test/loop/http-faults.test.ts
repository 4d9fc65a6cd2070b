// Provider faults end to end: the real OpenAI-compatible backend against a local server that
// injects failures (5xx, 429, null content, malformed JSON, dropped connections). Failed attempts
// must be retried per the model's policy, recorded, and never scored as text; exhausted
// generations leave the trajectory protocol-incomplete, and a resume finishes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { createModel } from '../../src/models/index.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { tempDir } from '../store/toy-run.ts';

type Fault = 'ok' | '503' | '429' | 'null' | 'malformed' | 'drop';

/** Replies to exact-length prompts: revision 0 two words short, revision 1 exact with every anchor. */
function reply(messages: Array<{ content: string }>): string {
  const first = messages[0].content;
  const target = Number(/write exactly (\d+) words/.exec(first)![1]);
  const anchors = /required content items: (.*?)\. Return only/.exec(first)![1].split('; ');
  const revision = (messages.length - 1) / 2;
  const words = anchors.join(' ').split(/\s+/);
  const n = revision === 0 ? target - 2 : target;
  while (words.length < n) words.push('calm');
  return `\n${words.join(' ')}\n`;
}

async function faultServer(
  schedule: (caseName: string, revision: number, attempt: number) => Fault,
  port = 0,
): Promise<{ url: string; port: number; close(): void; log: string[] }> {
  const attempts = new Map<string, number>();
  const log: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { messages } = JSON.parse(body);
      const caseName = /^(Case \w+)/.exec(messages[0].content)![1];
      const revision = (messages.length - 1) / 2;
      const key = `${caseName}/${revision}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const fault = schedule(caseName, revision, attempt);
      log.push(`${key}#${attempt}:${fault}`);
      const json = (status: number, v: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(v));
      };
      switch (fault) {
        case '503':
          return json(503, { error: { message: 'overloaded', code: 503 } });
        case '429':
          return json(429, { error: { message: 'slow down', code: 429 } }, { 'retry-after': '0' });
        case 'null':
          return json(200, {
            id: 'x',
            model: 'faulty',
            choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }],
          });
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"choices": [');
        case 'drop':
          return req.socket.destroy();
        default:
          return json(200, {
            id: `ok-${key}-${attempt}`,
            model: 'faulty',
            choices: [{ index: 0, message: { role: 'assistant', content: reply(messages) }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          });
      }
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  const close = () => {
    server.close();
    server.closeAllConnections();
  };
  return { url: `http://127.0.0.1:${bound}/v1`, port: bound, close, log };
}

const cases: ConstraintCase[] = ['A', 'B', 'C', 'D'].map((n, i) => ({
  id: `own-${n}`,
  family: 'exact-length',
  source: 'own',
  instruction: `Case ${n}: describe a harbour at dusk.`,
  target: 10 + i,
  anchors: ['harbour', 'dusk light'],
}));

async function run(path: string, url: string, concurrency = 2) {
  const model = await createModel(`openai-compatible:${url}#faulty`, {
    maxRetries: 2,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    timeout: 5000,
  });
  const store = await openStore(path);
  try {
    return await executeRun({
      store,
      runId: 'http',
      cases,
      caseSet: { format: 'native', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
      model,
      protocol: PAPER_PROTOCOL,
      resolveFamily: getFamily,
      concurrency,
      maxConsecutiveFailures: 0,
    });
  } finally {
    await store.close();
  }
}

test('HTTP provider faults are retried, recorded and never scored; exhausted generations are protocol-incomplete and resume', async () => {
  const dir = tempDir();
  const path = join(dir, 'runs.db');
  const faulty = await faultServer((c, rev, attempt) => {
    if (c === 'Case A') return attempt === 1 ? '503' : 'ok';
    if (c === 'Case B' && rev === 0) return (['null', 'malformed', 'ok'] as Fault[])[attempt - 1];
    if (c === 'Case C' && rev === 1) return attempt === 1 ? '429' : 'drop';
    return 'ok';
  });
  const first = await run(path, faulty.url);
  faulty.close();
  assert.equal(first.progress.incomplete, 1);

  let store = await openStore(path, { readonly: true });
  const ts = await store.loadTrajectories(['http']);
  assert.deepEqual(
    (await ts).map((t) => t.status),
    ['complete', 'complete', 'incomplete', 'complete'],
  );
  for (const t of [ts[0], ts[1], ts[3]])
    assert.deepEqual(
      t.rounds.map((r) => r.joint),
      [false, true],
    );
  assert.equal(ts[2].rounds.length, 1, 'the failed generation produced no draft');
  assert.match(ts[2].incompleteReason!, /^revision 1: provider attempts exhausted \(3 attempts\); last error: network: /);
  // Every failed attempt is in the log with its kind; no failed attempt's body became a draft.
  const finished = (await store.readEvents('http')).filter((e) => e.type === 'attempt_finished');
  const kinds = finished
    .filter((e) => e.type === 'attempt_finished' && !e.payload.record.ok)
    .map((e) => `${e.caseIndex}/${e.revision}:${e.type === 'attempt_finished' ? e.payload.record.error?.kind : ''}`);
  assert.deepEqual(
    kinds.sort(),
    [
      '0/0:server_error',
      '0/1:server_error',
      '1/0:malformed_json',
      '1/0:null_content',
      '2/1:network',
      '2/1:network',
      '2/1:rate_limit',
    ].sort(),
  );
  const drafts = new Set((await ts).flatMap((t) => t.rounds.map((r) => r.text)));
  assert.ok(![...drafts].some((d) => d === 'None' || d === ''), 'a null content is never the text "None"');
  const [summary] = await store.listRuns();
  assert.equal(summary.failedAttempts, 7);
  assert.equal(summary.status, 'incomplete');
  assert.deepEqual((await auditRun(store, 'http', getFamily)).discrepancies.map(formatDiscrepancy), []);
  await store.close();

  // The provider recovers: resuming retries only the protocol-incomplete trajectory.
  // (Same address: the model spec, URL included, is part of the run's plan.)
  const healthy = await faultServer(() => 'ok', faulty.port);
  const second = await run(path, healthy.url);
  healthy.close();
  assert.equal(second.progress.skipped, 3);
  assert.equal(second.progress.done, 1);
  assert.deepEqual(healthy.log, ['Case C/1#1:ok']);
  store = await openStore(path, { readonly: true });
  const after = await store.loadTrajectories(['http']);
  assert.ok((await after).every((t) => t.status === 'complete' && t.rounds.at(-1)!.joint));
  assert.deepEqual((await auditRun(store, 'http', getFamily)).discrepancies.map(formatDiscrepancy), []);
  await store.close();
});
