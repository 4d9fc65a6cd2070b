// Condition → message lists (docs/harness.md §3.3), byte-exact on the golden item of §3.2, structurally
// on an item with prefix steps, and deterministic over the built ToolShed items.
import test from 'node:test';
import assert from 'node:assert/strict';
import { buildToolshedItems } from '../../src/envs/toolshed/index.ts';
import {
  buildConditionMessages,
  candidatesFor,
  conditionAvailable,
  conditionPasses,
  ConditionUnavailableError,
} from '../../src/studies/probe/conditions.ts';
import { buildToolShedProbeItems } from '../../src/studies/probe/build.ts';
import { paddedNeutral } from '../../src/studies/probe/padding.ts';
import {
  ALL_CONDITIONS,
  CORE_CONDITIONS,
  EXTENDED_CONDITIONS,
  type Condition,
  type ProbeItem,
} from '../../src/studies/probe/probe-types.ts';
import { canonicalJson, sha256Hex } from '../../src/core/util/hash.ts';

// ---- the golden example, written by hand from docs/harness.md §1.1, §1.3, §1.6, §1.7, §3.2 ----------

const TOOL_DOCS = [
  "- list_files(folder: str) -> list[str]\n    List the files inside a folder.\n    folder: folder name, e.g. 'notes'",
  "- read_file(path: str) -> str\n    Return the contents of a file.\n    path: full path, e.g. 'notes/todo.md'",
  '- write_file(path: str, content: str) -> str\n    Create or overwrite a file.\n    path: full path\n    content: text to store',
  '- delete_file(path: str) -> str\n    Delete a file.\n    path: full path',
  '- find_contact(name: str) -> dict\n    Look up one contact by full name.\n    name: exact full name',
  "- list_contacts(team: str) -> list[dict]\n    List the members of a team.\n    team: team name, e.g. 'design'",
  '- list_events(date: str) -> list[dict]\n    List calendar events on a date.\n    date: date as YYYY-MM-DD',
  '- create_event(title: str, date: str, time: str, attendees: list[str]) -> str\n    Add a calendar event.\n    title: event title\n    date: date as YYYY-MM-DD\n    time: start time as HH:MM\n    attendees: list of attendee emails',
  "- cancel_event(event_id: str) -> str\n    Cancel a calendar event by id.\n    event_id: event id, e.g. 'evt-4'",
  '- send_message(to: str, subject: str, body: str) -> str\n    Send a message to one recipient email address.\n    to: recipient email address\n    subject: subject line\n    body: message body',
  '- set_reminder(text: str, date: str) -> str\n    Store a reminder for a date.\n    text: reminder text\n    date: date as YYYY-MM-DD',
  '- convert_units(value: float, from_unit: str, to_unit: str) -> float\n    Convert a value between two units.\n    value: numeric value\n    from_unit: source unit\n    to_unit: target unit',
];
const SYSTEM =
  "You are a tool-using assistant working inside a small office workspace. Solve the user's request by calling tools one at a time.\n\n" +
  'Rules:\n- Reply with exactly one tool call and nothing else.\n- Use the form tool_name(arg=value), with keyword arguments.\n' +
  '- Dates are YYYY-MM-DD and times are HH:MM.\n- When the request is fully satisfied, reply with finish().\n\n' +
  `Available tools:\n${TOOL_DOCS.join('\n')}\n`;
const INSTRUCTION =
  'Important: some of your earlier tool calls failed. Do not repeat a call that has already failed; change the call before trying again.';
const GOAL = "Send Dana Bergmann the contents of drafts/agenda.md. Use 'agenda' as the subject.";
const FAILED = "find_contact(contact_name='Dana Bergmann')";
const OBS = "TypeError: find_contact() got an unexpected keyword argument 'contact_name'. Did you mean 'name'?";
const TERSE = "Error: unexpected argument 'contact_name'.";
const VERBOSE = OBS + ' Signature: find_contact(name: str) -> dict.';
const ECHO = OBS + "\n  while calling: find_contact(contact_name='Dana Bergmann')";
const SUCCESS = "{'name': 'Dana Bergmann', 'email': 'dana.bergmann@corp.example', 'team': 'design'}";
const OTHER = "find_contacts(name='Dana Bergmann')";
const OTHER_OBS = "NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'?";
const PAD = 'Call recorded. trace=0123abcd';

const S = { role: 'system', content: SYSTEM } as const;
const U = (content: string) => ({ role: 'user', content }) as const;
const A = (content: string) => ({ role: 'assistant', content }) as const;
const fail = (obs: string) => [A(FAILED), U(`Observation: ${obs}`)];

const EXPECTED: Record<Condition, Array<{ role: string; content: string }>> = {
  pre: [S, U(GOAL)],
  fail: [S, U(GOAL), ...fail(OBS)],
  succ: [S, U(GOAL), ...fail(SUCCESS)],
  neut: [S, U(GOAL), ...fail('Call recorded.')],
  neut_pad: [S, U(GOAL), ...fail(PAD)],
  abstract: [S, U(GOAL), U('[attempt 1 failed: find_contact \u2014 an argument name was not recognised; that call is not repeatable]')],
  abstract_min: [S, U(GOAL), U('[attempt 1 failed]')],
  fail_echo: [S, U(GOAL), ...fail(ECHO)],
  fail_terse: [S, U(GOAL), ...fail(TERSE)],
  fail_verbose: [S, U(GOAL), ...fail(VERBOSE)],
  fail_instr: [{ role: 'system', content: `${SYSTEM}\n${INSTRUCTION}` }, U(GOAL), ...fail(OBS)],
  fail_k2: [S, U(GOAL), ...fail(OBS), ...fail(OBS)],
  fail_k3: [S, U(GOAL), ...fail(OBS), ...fail(OBS), ...fail(OBS)],
  fail_early: [S, U(GOAL), ...fail(OBS)],
  fail_other: [S, U(GOAL), A(OTHER), U(`Observation: ${OTHER_OBS}`)],
};

const pool = buildToolshedItems();
const golden = pool.find((i) => i.item_id === 'toolshed-0000-s0-arg_typo-1') as ProbeItem;

test('golden item toolshed-0000-s0-arg_typo-1 has the documented fields', () => {
  assert.ok(golden, 'the builder produces the golden item');
  assert.equal(golden.system_prompt, SYSTEM);
  assert.equal(golden.goal, GOAL);
  assert.equal(golden.failed_action, FAILED);
  assert.equal(golden.gold_action, "find_contact(name='Dana Bergmann')");
  assert.deepEqual([golden.obs_fail, golden.obs_fail_terse, golden.obs_fail_verbose, golden.obs_fail_echo], [OBS, TERSE, VERBOSE, ECHO]);
  assert.deepEqual([golden.obs_success, golden.obs_neutral, golden.obs_fail_other], [SUCCESS, 'Call recorded.', OTHER_OBS]);
  assert.deepEqual(golden.distractors, [OTHER, "find_contact(name='Alex Ramirez')"]);
  assert.equal(golden.tool, 'find_contact');
  assert.equal(golden.error_type, 'unexpected_argument');
});

for (const c of ALL_CONDITIONS) {
  test(`golden item, condition ${c}: messages byte for byte`, () => {
    assert.deepEqual(buildConditionMessages(golden, c, { neutralPadded: PAD }), EXPECTED[c]);
  });
}

test('the fail_instr system prompt has a blank line before the instruction', () => {
  assert.ok(buildConditionMessages(golden, 'fail_instr')[0].content.endsWith(`    to_unit: target unit\n\n${INSTRUCTION}`));
});

// ---- structure with prefix steps -------------------------------------------------------------

const item: ProbeItem = {
  item_id: 'mine-1',
  env: 'toolshed',
  task_id: 't1',
  template: 'x',
  step_index: 2,
  operator: 'op',
  error_type: 'file_not_found',
  system_prompt: 'SYS',
  goal: 'GOAL',
  prefix_actions: ['a1()', 'a2()'],
  prefix_observations: ['o1', 'o2'],
  failed_action: "read_file(path='q')",
  gold_action: "read_file(path='r')",
  obs_fail: 'F',
  obs_fail_terse: 'FT',
  obs_fail_verbose: 'FV',
  obs_fail_echo: 'FE',
  obs_success: 'OK',
  obs_neutral: 'Call recorded.',
  obs_fail_other: '',
  distractors: ['d0()', 'd1()', 'd2()'],
  tool: 'read_file',
  meta: {},
};
const ok = [A('a1()'), U('Observation: o1'), A('a2()'), U('Observation: o2')];

test('ok steps come first; fail_early puts the failure right after the goal', () => {
  assert.deepEqual(buildConditionMessages(item, 'fail').slice(2), [...ok, A(item.failed_action), U('Observation: F')]);
  assert.deepEqual(buildConditionMessages(item, 'fail_early').slice(2), [A(item.failed_action), U('Observation: F'), ...ok]);
  assert.deepEqual(buildConditionMessages(item, 'abstract').slice(-2), [
    U('Observation: o2'),
    U('[attempt 1 failed: read_file \u2014 no such file; that call is not repeatable]'),
  ]);
});

test('fail_other falls back to obs_fail when the distractor observation is empty, and never shows the scored action', () => {
  const m = buildConditionMessages(item, 'fail_other');
  assert.deepEqual(m.slice(-2), [A('d0()'), U('Observation: F')]);
  assert.ok(!m.some((x) => x.content.includes(item.failed_action)));
});

test('conditions that cannot be built are refused, and reported as unavailable', () => {
  assert.throws(() => buildConditionMessages(item, 'neut_pad'), ConditionUnavailableError);
  const bare = { ...item, distractors: [] };
  assert.equal(conditionAvailable(bare, 'fail_other'), false);
  assert.throws(() => buildConditionMessages(bare, 'fail_other'), /needs a distractor/);
});

test('candidates: failed and gold everywhere, the first two distractors only under pre and fail', () => {
  assert.deepEqual(
    candidatesFor(item, 'pre').map(([n]) => n),
    ['failed', 'gold', 'distractor0', 'distractor1'],
  );
  assert.deepEqual(
    candidatesFor(item, 'fail').map(([, t]) => t),
    ["read_file(path='q')", "read_file(path='r')", 'd0()', 'd1()'],
  );
  for (const c of ALL_CONDITIONS.filter((x) => x !== 'pre' && x !== 'fail'))
    assert.deepEqual(
      candidatesFor(item, c).map(([n]) => n),
      ['failed', 'gold'],
    );
});

test('passes: fail_instr is scored in a pass of its own', () => {
  assert.deepEqual(conditionPasses([...CORE_CONDITIONS, ...EXTENDED_CONDITIONS]), [
    [...CORE_CONDITIONS, ...EXTENDED_CONDITIONS.filter((c) => c !== 'fail_instr')],
    ['fail_instr'],
  ]);
  assert.deepEqual(conditionPasses(['fail_instr']), [['fail_instr']]);
  assert.deepEqual(conditionPasses([...CORE_CONDITIONS]), [[...CORE_CONDITIONS]]);
});

// ---- determinism over the built items ----------------------------------------------------------

/** SHA-256 of every condition's messages for the --build 100 items (neut_pad with 3 filler units). */
const BUILD100_MESSAGES_SHA256 = '9b4bea892fa518903b37117eb0177f6ff50ca90760316863711455c755ba8d91';

function messagesDigest(items: readonly ProbeItem[]): string {
  const all = items.map((it) =>
    ALL_CONDITIONS.filter((c) => conditionAvailable(it, c)).map((c) =>
      buildConditionMessages(it, c, { neutralPadded: paddedNeutral(it.failed_action, 3) }),
    ),
  );
  return sha256Hex(canonicalJson(all));
}

test('--build 100: the same items and message lists every time (pinned digest)', () => {
  const a = buildToolShedProbeItems(100);
  const b = buildToolShedProbeItems(100);
  assert.equal(a.items.length, 100);
  assert.equal(a.sha256, b.sha256);
  const perTask = new Map<string, number>();
  for (const i of a.items) perTask.set(i.task_id, (perTask.get(i.task_id) ?? 0) + 1);
  assert.ok(Math.max(...perTask.values()) <= 3, 'at most 3 items per task');
  const d = messagesDigest(a.items);
  assert.equal(d, messagesDigest(b.items));
  assert.equal(d, BUILD100_MESSAGES_SHA256);
  // A smaller N picks a subset of a larger N's selection (prefix property of the subsample).
  const small = new Set(buildToolShedProbeItems(60).items.map((i) => i.item_id));
  assert.ok([...small].every((id) => a.items.some((i) => i.item_id === id)));
});

/**
 * SHA-256 of the item ids joined by "\n". During development these were compared with the
 * reference implementation's recorded selections (the `item_ids` of its probe runs' meta files,
 * not distributed: phase A, 100 items; phase C, 60 items): identical.
 */
const PHASE_A_IDS_SHA256 = '44cc5909911668e3e6f41591ad78a06f6cfbce65a1d54322793bc9fecfefce6a';
const PHASE_C_IDS_SHA256 = '63b01f204673022c8beaeba56dc80c3619c6f7bc9707b5f9204724bdf242ba2e';

test('--build 100 / --build 60 select the reference phase A / phase C items', () => {
  const ids = (n: number) =>
    sha256Hex(
      buildToolShedProbeItems(n)
        .items.map((i) => i.item_id)
        .join('\n'),
    );
  assert.equal(ids(100), PHASE_A_IDS_SHA256);
  assert.equal(ids(60), PHASE_C_IDS_SHA256);
});
