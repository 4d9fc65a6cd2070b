// `revloop probe`, `revloop probe verify`, `revloop agent` and the probe/agent sections of
// `revloop analyze`, as a user runs them (the bin, a temporary store). Simulated models keep it
// fast; their numbers are labelled SIMULATED and mean nothing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { itemsJsonl } from '../../src/studies/probe/items.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

const BIN = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));
const dir = tempDir('revloop-probe-cli-');
const db = join(dir, 'runs.db');

function revloop(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function noStack(err: string): void {
  assert.ok(!/\n\s+at /.test(err), `no stack trace:\n${err}`);
}

test('probe --build N --json: one record per item with G, copy and sem; resuming scores nothing new', () => {
  const r = revloop('probe', '--model', 'sim:steady', '--build', '3', '--store', db, '--json', '--no-progress');
  assert.equal(r.code, 0, r.err);
  const lines = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 3);
  for (const l of lines) {
    assert.equal(l.simulated, true);
    for (const k of ['G', 'copy', 'sem']) assert.equal(typeof l[k], 'number');
    assert.ok(Math.abs(-l.G - (l.copy + l.sem)) < 1e-9);
  }
  assert.match(r.err, /\[SIMULATED\] probe probe-toolshed-sim-steady: complete; 42 new scores/);
  const again = revloop('probe', '--model', 'sim:steady', '--build', '3', '--store', db, '--no-progress');
  assert.equal(again.code, 0, again.err);
  assert.match(again.err, /0 new scores, 42 already stored/);
});

test('probe --items FILE with the extended conditions into the same run', () => {
  const file = join(dir, 'items.jsonl');
  writeFileSync(file, itemsJsonl(shortItems()));
  const r = revloop(
    'probe',
    '--model',
    'sim:steady',
    '--items',
    file,
    '--conditions',
    'extended',
    '--store',
    db,
    '--run',
    'mine',
    '--no-progress',
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /note: G and every paired delta need the pre and fail scores/);
  assert.match(r.err, /40 new scores/);
});

test('probe verify passes on a deterministic backend', () => {
  const r = revloop('probe', 'verify', '--model', 'sim:steady', '--build', '4', '--n', '2');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /checked 20 triples/);
  assert.match(r.out, /OK\n$/);
});

test('mistakes are explained, without stack traces, and nothing is scored', () => {
  const cases: Array<[string[], RegExp]> = [
    [['probe', '--model', 'openai-compatible:http://127.0.0.1:9/v1#x', '--build', '2', '--store', db], /cannot score a given continuation/],
    [['probe', '--model', 'sim:steady', '--store', db], /give exactly one of --items <file>.*or --build <N>/],
    [
      ['probe', '--model', 'sim:steady', '--items', join(dir, 'nope.jsonl'), '--store', db],
      /nope\.jsonl: cannot read the items file \(no such file\)/,
    ],
    [['probe', '--model', 'sim:steady', '--build', '2', '--conditions', 'pre,bogus', '--store', db], /unknown condition\(s\) bogus/],
    [
      ['agent', '--model', 'openai-compatible:http://127.0.0.1:9/v1#x', '--harness', 'verbatim+ban', '--tasks', '2', '--store', db],
      /cannot ban token sequences/,
    ],
    [['agent', '--model', 'sim:steady', '--harness', 'nope', '--store', db], /unknown harness "nope"/],
    [
      ['probe', '--model', 'vllm:http://127.0.0.1:9/v1#x', '--build', '1', '--retries', '0', '--store', join(dir, 'other.db')],
      /tokenizing the context failed after 1 attempt\(s\).*rerun the same command to resume/,
    ],
  ];
  for (const [args, re] of cases) {
    const r = revloop(...args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.err, re, args.join(' '));
    noStack(r.err);
  }
});

test('agent rollouts, then analyze shows the probe and agent sections (text and strict JSON)', () => {
  const r = revloop(
    'agent',
    '--model',
    'sim:steady',
    '--harness',
    'verbatim,abstract+ban',
    '--tasks',
    '2',
    '--max-steps',
    '2',
    '--store',
    db,
    '--json',
    '--no-progress',
  );
  assert.equal(r.code, 0, r.err);
  const rollouts = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    rollouts.map((x) => `${x.harness}/${x.task_id}`),
    ['verbatim/agent-0000', 'verbatim/agent-0001', 'abstract+ban/agent-0000', 'abstract+ban/agent-0001'],
  );
  const text = revloop('analyze', '--store', db, '--bootstrap', '200');
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /Probe: corrective gain/);
  assert.match(text.out, /SIMULATED/);
  assert.match(text.out, /Agent rollouts on ToolShed/);
  const json = revloop('analyze', '--store', db, '--bootstrap', '200', '--json');
  assert.equal(json.code, 0, json.err);
  const doc = JSON.parse(json.out);
  assert.equal(doc.probe.schema, 'revloop.probe-analysis/1');
  assert.equal(doc.agent.schema, 'revloop.agent-analysis/1');
  assert.deepEqual(doc.probe.runs.map((x: { run_id: string }) => x.run_id).sort(), ['mine', 'probe-toolshed-sim-steady']);
  const only = revloop('analyze', 'mine', '--store', db, '--bootstrap', '100', '--json');
  assert.equal(only.code, 0, only.err);
  assert.deepEqual(
    JSON.parse(only.out).probe.runs.map((x: { run_id: string }) => x.run_id),
    ['mine'],
  );
});

test('report: the probe and agent sections are in the HTML, with the SIMULATED badge and in the table of contents', () => {
  const out = join(dir, 'r.html');
  const r = revloop('report', '--store', db, '-o', out, '--bootstrap', '100', '--no-timestamp', '--no-progress');
  assert.equal(r.code, 0, r.err);
  const html = readFileSync(out, 'utf8');
  assert.match(html, /<section id="probe"[^>]*><h2 id="probe-h">Corrective-gain probes<\/h2>/);
  assert.match(html, /<section id="agent"[^>]*><h2 id="agent-h">Agent rollouts by harness<\/h2>/);
  assert.match(html, /<a href="#probe">Corrective-gain probes<\/a><a href="#agent">Agent rollouts by harness<\/a>/);
  // One mark per simulated controller: the badge, not also the label's "[simulated]".
  assert.match(html, /<td>sim:steady <span class="badge sim"[^>]*>SIMULATED<\/span><\/td>/);
  assert.doesNotMatch(html, /\[simulated\] <span class="badge sim"/);
});

test('a probe or agent run resumed under another model spec is refused, naming what differs', () => {
  const other = join(dir, 'respec.db');
  const probe = (spec: string) => revloop('probe', '--model', spec, '--build', '1', '--run', 'p', '--store', other, '--no-progress');
  const agent = (spec: string) =>
    revloop(
      'agent',
      '--model',
      spec,
      '--harness',
      'drop',
      '--tasks',
      '1',
      '--max-steps',
      '1',
      '--run',
      'a',
      '--store',
      other,
      '--no-progress',
    );
  for (const [tool, go] of [
    ['probe', probe],
    ['agent', agent],
  ] as const) {
    const first = go('sim:steady');
    assert.equal(first.code, 0, first.err);
    assert.doesNotMatch(first.err, /was started with/);
    const second = go('sim:overshoot');
    assert.equal(second.code, 2, `${tool}: ${second.err}`);
    assert.match(second.err, new RegExp(`revloop: run '${tool === 'probe' ? 'p' : 'a'}' exists with a different plan`));
    assert.match(second.err, /controller\.spec: stored "sim:steady", requested "sim:overshoot"/);
    assert.match(second.err, /Use a new --run to run this plan/);
  }
});

test('probe items --build more than the pool holds says how many it uses', () => {
  const out = join(dir, 'all-items.jsonl');
  const r = revloop('probe', 'items', '--build', '1000', '-o', out);
  assert.equal(r.code, 0, r.err);
  const n = readFileSync(out, 'utf8').trim().split('\n').length;
  assert.match(r.err, new RegExp(`note: --build 1000: the toolshed pool yields ${n} items under the per-task cap; using all of them`));
  assert.ok(n < 1000);
});
