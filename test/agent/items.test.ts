// The probe item builder, docs/harness.md §3.1–3.2.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildToolshedItems,
  itemsAtStep,
  itemsToJsonl,
  itemToJson,
  readItemsJsonl,
  stratifiedSubsample,
  summarizeItems,
  writeItemsJsonl,
  type ProbeItem,
} from '../../src/envs/toolshed/items.ts';
import { PROBE_OPERATORS } from '../../src/envs/toolshed/perturb.ts';
import { PROBE_ERROR_FAMILIES } from '../../src/envs/toolshed/errors.ts';
import { systemPrompt } from '../../src/envs/toolshed/prompt.ts';
import { step } from '../../src/envs/toolshed/step.ts';
import type { Task } from '../../src/envs/toolshed/tasks.ts';
import { sha256Hex } from '../../src/core/util/hash.ts';
import { officeWorld } from './world-fixture.ts';
import { tempDir } from '../tmp.ts';

/**
 * SHA-256 of the JSONL our builder writes with the paper's settings (60 tasks, 45 per operator,
 * 2 distractors). During development it was compared with the reference implementation's published
 * data/probe_toolshed.jsonl (not distributed): same length to the character (945,241) and identical content at
 * every window checked (start, ~81.5k, ~147.8k, ~940.5k, end); see docs/toolshed.md.
 */
const PAPER_JSONL_SHA256 = '090bba021834ef0e438c7779d4497b560fe43c274f1109ea13d0a834ddad0f06';
const PAPER_JSONL_CHARS = 945241;

const items = buildToolshedItems();
const jsonl = itemsToJsonl(items);

test('paper settings: 275 items over 58 tasks, 8 operators, 12 error families', () => {
  assert.deepEqual(summarizeItems(items), {
    n_items: 275,
    n_tasks: 58,
    operators: [...PROBE_OPERATORS],
    error_types: [...PROBE_ERROR_FAMILIES],
  });
  const perOp = new Map<string, number>();
  for (const it of items) perOp.set(it.operator, (perOp.get(it.operator) ?? 0) + 1);
  assert.ok(
    [...perOp.values()].every((n) => n <= 45),
    'at most 45 per operator',
  );
  assert.deepEqual(
    items.map((i) => i.item_id),
    [...items.map((i) => i.item_id)].sort(),
    'sorted by item_id',
  );
  assert.equal(new Set(items.map((i) => i.item_id)).size, items.length, 'unique ids');
});

test('paper settings: the JSONL bytes are pinned (SHA-256 and length of the published file)', () => {
  assert.equal([...jsonl].length, PAPER_JSONL_CHARS);
  assert.equal(sha256Hex(jsonl), PAPER_JSONL_SHA256);
});

test('golden example toolshed-0000-s0-arg_typo-1, field by field (docs/harness.md §3.2)', () => {
  const it = items.find((i) => i.item_id === 'toolshed-0000-s0-arg_typo-1')!;
  const std = "TypeError: find_contact() got an unexpected keyword argument 'contact_name'. Did you mean 'name'?";
  assert.deepEqual(it, {
    item_id: 'toolshed-0000-s0-arg_typo-1',
    env: 'toolshed',
    task_id: 'toolshed-0000',
    template: 'email_file',
    step_index: 0,
    operator: 'arg_typo',
    error_type: 'unexpected_argument',
    system_prompt: systemPrompt(),
    goal: "Send Dana Bergmann the contents of drafts/agenda.md. Use 'agenda' as the subject.",
    prefix_actions: [],
    prefix_observations: [],
    failed_action: "find_contact(contact_name='Dana Bergmann')",
    gold_action: "find_contact(name='Dana Bergmann')",
    obs_fail: std,
    obs_fail_terse: "Error: unexpected argument 'contact_name'.",
    obs_fail_verbose: std + ' Signature: find_contact(name: str) -> dict.',
    obs_fail_echo: std + "\n  while calling: find_contact(contact_name='Dana Bergmann')",
    obs_success: "{'name': 'Dana Bergmann', 'email': 'dana.bergmann@corp.example', 'team': 'design'}",
    obs_neutral: 'Call recorded.',
    obs_fail_other: "NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'?",
    distractors: ["find_contacts(name='Dana Bergmann')", "find_contact(name='Alex Ramirez')"],
    tool: 'find_contact',
    meta: {},
  });
  assert.ok(it.system_prompt.endsWith('    to_unit: target unit\n'));
});

test('every item: the recorded family is what the runtime raised, prefixes are real, the failed call appears once', () => {
  for (const it of items) {
    assert.notEqual(it.failed_action, it.gold_action);
    assert.ok(!it.distractors.includes(it.failed_action));
    assert.equal(it.prefix_actions.length, it.step_index);
    assert.equal(it.prefix_observations.length, it.step_index);
    assert.ok(!it.obs_fail.includes(it.failed_action), 'the primary rendering does not echo the call');
    assert.ok(it.obs_fail_echo.endsWith(`\n  while calling: ${it.failed_action}`));
    assert.equal(it.obs_neutral, 'Call recorded.');
  }
  const typo = items.filter((i) => i.operator === 'tool_typo');
  assert.ok(typo.length > 0 && typo.every((i) => i.obs_success === 'OK' && i.error_type === 'unknown_tool'));
});

test('one JSONL line per item, json.dumps layout with keys in schema order', () => {
  const first = itemToJson(items[0]);
  assert.ok(
    first.startsWith(
      '{"item_id": "toolshed-0000-s0-arg_typo-1", "env": "toolshed", "task_id": "toolshed-0000", "template": "email_file", "step_index": 0,',
    ),
  );
  assert.ok(first.endsWith('"tool": "find_contact", "meta": {}}'));
  assert.equal(jsonl.split('\n').length, items.length + 1);
  assert.ok(jsonl.endsWith('}\n'));
});

test('deterministic: same seed, same bytes; another seed, other worlds', () => {
  assert.equal(itemsToJsonl(buildToolshedItems()), jsonl);
  const other = buildToolshedItems({ nTasks: 6, seed: 1 });
  const mine = items.filter((i) => i.task_id < 'toolshed-0006');
  assert.ok(other.length > 0);
  assert.notDeepEqual(
    other.map((i) => i.goal),
    mine.map((i) => i.goal),
  );
});

test('a perturbation that unexpectedly succeeds is discarded (and, as in the reference, ran in every world)', () => {
  const task: Task = {
    task_id: 'custom-0000',
    goal: 'Look up Ada.',
    payload: { template: 'lookup', world_seed: 0, world_index: 0, contact_name: 'Ada Lovelace' },
    gold_actions: ["find_contact(name='Ada Lovelace')", 'finish()'],
    difficulty: 'easy',
  };
  const withAlex = () => {
    const w = officeWorld();
    w.contacts.push({ name: 'Alex Ramirez', email: 'alex.ramirez@corp.example', team: 'design' });
    return w;
  };
  const worlds = { std: withAlex(), terse: withAlex(), verbose: withAlex(), echo: withAlex() };
  const got = itemsAtStep({
    task,
    stepIndex: 0,
    gold: task.gold_actions[0],
    worlds,
    prefixActions: [],
    prefixObservations: [],
    systemPrompt: 'S',
    nDistractors: 2,
  });
  assert.deepEqual(
    got.map((i) => i.item_id),
    ['custom-0000-s0-tool_typo-0', 'custom-0000-s0-arg_typo-1'],
  );
  assert.deepEqual(got[0].distractors, ["find_contact(contact_name='Ada Lovelace')", "find_contact(name='Alex Ramirez')"]);
  for (const w of Object.values(worlds)) assert.deepEqual(w.resolved, ['Alex Ramirez']);
  const none = itemsAtStep({
    task,
    stepIndex: 0,
    gold: task.gold_actions[0],
    worlds: { std: officeWorld(), terse: officeWorld(), verbose: officeWorld(), echo: officeWorld() },
    prefixActions: [],
    prefixObservations: [],
    systemPrompt: 'S',
    nDistractors: 0,
  });
  assert.ok(
    none.every((i) => i.distractors.length === 0 && i.obs_fail_other === ''),
    'no distractor, no placebo observation',
  );
  assert.ok(step(officeWorld(), task.gold_actions[0]).ok);
});

test('writeItemsJsonl writes atomically and readItemsJsonl reads it back', () => {
  const dir = tempDir('toolshed-');
  try {
    const path = join(dir, 'probe_toolshed.jsonl');
    writeItemsJsonl(path, items.slice(0, 5));
    assert.equal(readFileSync(path, 'utf8'), itemsToJsonl(items.slice(0, 5)));
    assert.deepEqual(readdirSync(dir), ['probe_toolshed.jsonl'], 'no temporary file left behind');
    assert.deepEqual(readItemsJsonl(path), items.slice(0, 5) as ProbeItem[]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stratified subsample reproduces the recorded selections (phase A n=100, phase C n=60, cap 3 per task)', () => {
  // SHA-256 of the newline-joined ids; during development these equalled the item_ids lists of the
  // reference's results/raw/probe/*__toolshed.{core,extended}.meta.json.
  const a = stratifiedSubsample(items, 100, 20260808, 3);
  const c = stratifiedSubsample(items, 60, 20260808, 3);
  assert.equal(sha256Hex(a.map((i) => i.item_id).join('\n')), '44cc5909911668e3e6f41591ad78a06f6cfbce65a1d54322793bc9fecfefce6a');
  assert.equal(sha256Hex(c.map((i) => i.item_id).join('\n')), '63b01f204673022c8beaeba56dc80c3619c6f7bc9707b5f9204724bdf242ba2e');
  assert.ok(
    c.every((x) => a.includes(x)),
    'a smaller n selects a subset',
  );
  const perTask = new Map<string, number>();
  for (const it of a) perTask.set(it.task_id, (perTask.get(it.task_id) ?? 0) + 1);
  assert.ok([...perTask.values()].every((n) => n <= 3));
  assert.equal(new Set(a.map((i) => i.operator)).size, 8);
  assert.equal(stratifiedSubsample(items, 1000).length, items.length, 'exhaustion stops the loop');
});

test('readItemsJsonl reports a bad line as file:line: field: problem', () => {
  const dir = tempDir('toolshed-');
  try {
    const path = join(dir, 'bad.jsonl');
    writeItemsJsonl(path, items.slice(0, 1));
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, good + '{"item_id": "x"\n');
    assert.throws(
      () => readItemsJsonl(path),
      (e: Error) => e.message === `${path}:2: invalid JSON (${jsonError('{"item_id": "x"')})`,
    );
    writeFileSync(path, good + '{"item_id": "x"}\n');
    assert.throws(() => readItemsJsonl(path), { message: `${path}:2: env: missing (every probe item needs it; see docs/probe.md)` });
    writeFileSync(path, good + good.replace('"task_id": "', '"task_id": 7, "x": "'));
    assert.throws(() => readItemsJsonl(path), { message: `${path}:2: task_id: must be a string, got a number` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}
