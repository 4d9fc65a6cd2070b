// docs/revise.md's examples are programs: each runs as written (imports resolved to this checkout)
// against a loopback OpenAI-compatible server or a simulated controller.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chatOk, startFaultServer } from '../../src/test/fault-server.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, 'node_modules', '.cache', 'revloop-revise-examples');

function example(title: string): string {
  const doc = readFileSync(join(root, 'docs/revise.md'), 'utf8');
  const at = doc.indexOf(`### Example: ${title}`);
  assert.ok(at >= 0, `docs/revise.md has "### Example: ${title}"`);
  const m = /```ts\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(m);
  return m[1].replace(/from 'revloop\/([^']+)'/g, (_, p: string) => `from '${pathToFileURL(join(root, 'src', p, 'index.ts')).href}'`);
}

async function run(title: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${title.replace(/\W+/g, '-')}.mts`);
  writeFileSync(file, example(title));
  try {
    // Asynchronous, so that a loopback server in this process can answer.
    const { spawn } = await import('node:child_process');
    return await new Promise((resolvePromise) => {
      const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, env: { ...process.env, ...env } });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('close', (code) => resolvePromise({ code, out, err }));
    });
  } finally {
    rmSync(file, { force: true });
  }
}
void spawnSync;

test('docs/revise.md: a JSON object that must match a Zod schema', async () => {
  const s = await startFaultServer([{ json: chatOk('{"customer": "Acme GmbH", "total": "1,250.00", "currency": "euro"}') }], {
    json: chatOk('```json\n{"customer": "Acme GmbH", "total": 1250, "currency": "EUR"}\n```'),
  });
  try {
    const r = await run('a JSON object that must match a Zod schema', { REVLOOP_MODEL: `openai-compatible:${s.url}#m` });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ok \{"customer":"Acme GmbH","total":1250,"currency":"EUR"\}$/m);
    assert.match(r.out, /generations 2, tokens 14\+6, usd 0\.000006/);
    assert.match(
      JSON.stringify(s.requests[1].body.messages.at(-1).content),
      /total: Invalid input: expected number, received string \[invalid_type\]/,
    );
  } finally {
    await s.close();
  }
});

test('docs/revise.md: a summary of exactly 40 words (SIMULATED controller)', async () => {
  const r = await run('a summary of exactly 40 words', { REVLOOP_MODEL: 'sim:ideal' });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^attempt 0: \d+ violations$/m);
  assert.match(r.out, /^attempt 1: passed$/m);
  assert.match(r.out, /^ok attempt 1 passed after 2 generations$/m);
});

test('docs/revise.md: an agent tool call repaired by revision', async () => {
  const badCall = {
    id: 'chatcmpl-tool',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: {
                name: 'create_event',
                arguments: '{"title": "Design review", "date": "14/09/2026", "time": "10am", "attendees": ["dana.okafor@corp.example"]}',
              },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
  };
  const s = await startFaultServer([{ json: badCall }], {
    json: chatOk('{"title": "Design review", "date": "2026-09-14", "time": "10:00", "attendees": ["dana.okafor@corp.example"]}'),
  });
  try {
    const r = await run('an agent tool call repaired by revision', { OPENAI_BASE_URL: s.url, MODEL_ID: 'm' });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /repair of create_event: ok after 1 generations/);
    assert.match(r.out, /created Design review on 2026-09-14 at 10:00/);
    const repairRequest = JSON.stringify(s.requests[1].body.messages);
    assert.ok(!repairRequest.includes('14/09/2026'), 'the failed call is not sent back');
    assert.match(
      repairRequest,
      /\[attempt 1 failed: create_event \u2014 the input did not match the schema; that call is not repeatable\]/,
    );
  } finally {
    await s.close();
  }
});

const toolCall = (name: string, args: string) => ({
  id: 'chatcmpl-tool',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: args } }] },
    },
  ],
  usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
});

/** Runs an example against a scripted server; `check` sees its output and the requests. */
async function withServer(
  title: string,
  script: Parameters<typeof startFaultServer>[0],
  fallback: Parameters<typeof startFaultServer>[1],
  env: Record<string, string>,
  check: (r: { code: number | null; out: string; err: string }, requests: Array<{ body: any; raw: string }>) => void,
): Promise<void> {
  const s = await startFaultServer(script, fallback);
  try {
    const r = await run(title, { OPENAI_BASE_URL: s.url, MODEL_ID: 'm', ...env });
    assert.equal(r.code, 0, r.err);
    check(r, s.requests);
  } finally {
    await s.close();
  }
}

test('docs/revise.md: tools through the middleware, with invalid tool inputs repaired', () =>
  withServer(
    'tools through the middleware, with invalid tool inputs repaired',
    [
      { json: toolCall('weather', '{"city": 7}') },
      { json: chatOk('{"city": "Oslo"}') },
      { json: chatOk('It rains in Oslo.') },
      { json: chatOk('{"city": "Oslo", "forecast": "light rain, 9 °C"}') },
    ],
    undefined,
    {},
    (r, requests) => {
      assert.match(r.out, /^steps 2: \{"city":"Oslo"\} \| \{"city": "Oslo", "forecast": "light rain, 9 °C"\}$/m);
      // Usage: the tool call (50+20) and its repair (7+3), then the failed answer and its revision (7+3 each).
      assert.match(r.out, /^usage 71\+29$/m);
      assert.ok(!JSON.stringify(requests[1].body.messages).includes('"city\\": 7'), 'the failed call is not sent back');
      assert.equal(requests.length, 4);
    },
  ));

test('docs/revise.md: streaming a verified answer', () =>
  withServer(
    'streaming a verified answer',
    [{ json: chatOk('Oslo is a city.') }],
    { json: chatOk('Oslo: fjord light, wooden houses, ski jumps, museums, ferries and summer evenings.') },
    {},
    (r, requests) => {
      assert.match(r.out, /^Oslo: fjord light, wooden houses, ski jumps, museums, ferries and summer evenings\.$/m);
      assert.match(r.out, /^ok after 2 generations, 14 prompt tokens$/m);
      assert.equal(requests.length, 2);
    },
  ));

test('docs/revise.md: retries of provider errors', () =>
  withServer(
    'retries of provider errors',
    [{ json: chatOk('{"name": "Ada Lovelace"}') }, { status: 503, json: { error: { message: 'overloaded' } } }],
    { json: chatOk('{"name": "Ada Lovelace", "age": 36}') },
    { RETRY_DELAY_MS: '1' },
    (r) => {
      assert.match(r.out, /^generation 0: ok$/m);
      assert.match(r.out, /^generation 1: 503 retried, ok$/m);
      assert.match(r.out, /^ok: 3 provider attempts, 14 prompt tokens$/m);
    },
  ));

test('docs/revise.md: abort and a time budget', () =>
  withServer(
    'abort and a time budget',
    [],
    (_body, i) => (i % 2 === 0 ? { json: chatOk('hello') } : { hang: true }),
    { WAIT_MS: '1500' },
    (r) => {
      // Generation 0 is answered at once, then every other request hangs (a loaded machine may still be on generation 0).
      assert.match(r.out, /^budget \(ms\): the time budget of 1500 ms ran out during generation [01]$/m);
      assert.match(r.out, /^aborted: aborted by the caller$/m);
      assert.match(r.out, /^generateText: AbortError$/m);
    },
  ));

test('docs/revise.md: options for one call', () =>
  withServer(
    'options for one call',
    [{ json: chatOk('nope') }, { json: chatOk('nope') }],
    { json: chatOk('{"name": "Ada Lovelace", "age": 36}') },
    {},
    (r, requests) => {
      assert.match(r.out, /^quick budget nope$/m);
      assert.match(r.out, /^careful ok \{"name": "Ada Lovelace", "age": 36\}$/m);
      assert.equal(requests.length, 3);
      assert.ok(
        requests.every((q) => !q.raw.includes('revloop')),
        'providerOptions.revloop is not sent',
      );
      assert.deepEqual(
        requests.map((q) => q.body.max_tokens ?? null),
        [null, 200, 200],
      );
      assert.equal(requests[2].body.messages.length, 3, "the verbatim policy's revision carries the draft and its report");
    },
  ));

test('docs/revise.md: OpenTelemetry spans', () =>
  withServer(
    'OpenTelemetry spans',
    [{ json: chatOk('Nordfjord, Sognefjord') }],
    { json: chatOk('Nordfjord, Sognefjord, Geirangerfjord') },
    {},
    (r) => {
      assert.match(r.out, /^chat m: \{"attempt":0,"ok":false,"input":7\}$/m);
      assert.match(r.out, /^chat m: \{"attempt":1,"ok":true,"input":7\}$/m);
      assert.match(r.out, /^revloop\.revise: \{"status":"ok","input":14\}$/m);
    },
  ));
