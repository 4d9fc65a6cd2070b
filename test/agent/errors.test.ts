// Every error template of HARNESS.md §1.6 at all three verbosity levels plus echo. The expected
// strings are written by hand from the specification's table.
import test from 'node:test';
import assert from 'node:assert/strict';
import { step, type Outcome } from '../../src/envs/toolshed/step.ts';
import { errorGloss } from '../../src/envs/toolshed/errors.ts';
import { officeWorld } from './world-fixture.ts';

interface Expect {
  action: string;
  kind: string;
  terse: string;
  standard: string;
  verbose: string;
}

const SIG_FIND = 'find_contact(name: str) -> dict';
const SIG_WRITE = 'write_file(path: str, content: str) -> str';
const SIG_CONVERT = 'convert_units(value: float, from_unit: str, to_unit: str) -> float';
const SIG_CREATE = 'create_event(title: str, date: str, time: str, attendees: list[str]) -> str';
const TOOL_LIST =
  'list_files, read_file, write_file, delete_file, find_contact, list_contacts, list_events, create_event, cancel_event, send_message, set_reminder, convert_units';

const CASES: Expect[] = [
  {
    action: 'Action:   ',
    kind: 'parse_error',
    terse: 'Error: empty action.',
    standard: 'Error: empty action. Emit exactly one tool call.',
    verbose: 'Error: empty action. Emit exactly one tool call of the form tool_name(arg=value).',
  },
  {
    action: 'I will look up the contact first.',
    kind: 'parse_error',
    terse: 'Error: syntax error.',
    standard: 'SyntaxError: could not parse the call (invalid syntax).',
    verbose: 'SyntaxError: could not parse the call (invalid syntax). Expected a single call of the form tool_name(arg=value).',
  },
  {
    action: "find_contact(name='Ada Lovelace'), read_file(path='notes/todo.md')",
    kind: 'parse_error',
    terse: 'Error: not a tool call.',
    standard: "Error: the action must be a single tool call, e.g. read_file(path='notes/todo.md').",
    verbose:
      "Error: the action must be a single tool call, e.g. read_file(path='notes/todo.md'). Expressions, assignments and multiple statements are not accepted.",
  },
  {
    action: "find_contact(**{'name': 'Ada Lovelace'})",
    kind: 'parse_error',
    terse: 'Error: **kwargs not supported.',
    standard: 'Error: argument unpacking (**) is not supported.',
    verbose: 'Error: argument unpacking (**) is not supported; pass each argument explicitly.',
  },
  {
    action: "find_contact(name=read_file('notes/handover.md'))",
    kind: 'parse_error',
    terse: 'Error: bad argument value.',
    standard: `Error: find_contact: argument value "read_file('notes/handover.md')" is not a literal.`,
    verbose: `Error: find_contact: argument value "read_file('notes/handover.md')" is not a literal. Arguments must be plain strings, numbers or lists of strings.`,
  },
  {
    action: "find_contacts(name='Ada Lovelace')",
    kind: 'unknown_tool',
    terse: "Error: unknown tool 'find_contacts'.",
    standard: "NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'?",
    verbose: `NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'? The available tools are: ${TOOL_LIST}.`,
  },
  {
    action: "find_contact('Ada Lovelace', 'Alan Turing')",
    kind: 'arity_error',
    terse: 'Error: find_contact takes 1 arguments.',
    standard: 'TypeError: find_contact() takes 1 arguments but 2 positional were given.',
    verbose: `TypeError: find_contact() takes 1 arguments but 2 positional were given. Signature: ${SIG_FIND}.`,
  },
  {
    action: "find_contact('Ada Lovelace', name='Alan Turing')",
    kind: 'arity_error',
    terse: "Error: duplicate argument 'name'.",
    standard: "TypeError: find_contact() got multiple values for 'name'.",
    verbose: `TypeError: find_contact() got multiple values for 'name'. Signature: ${SIG_FIND}.`,
  },
  {
    action: "find_contact(contact_name='Ada Lovelace')",
    kind: 'unexpected_argument',
    terse: "Error: unexpected argument 'contact_name'.",
    standard: "TypeError: find_contact() got an unexpected keyword argument 'contact_name'. Did you mean 'name'?",
    verbose: `TypeError: find_contact() got an unexpected keyword argument 'contact_name'. Did you mean 'name'? Signature: ${SIG_FIND}.`,
  },
  {
    action: "write_file(path='notes/new.md')",
    kind: 'missing_argument',
    terse: "Error: missing argument 'content'.",
    standard: "TypeError: write_file() missing required argument 'content'.",
    verbose: `TypeError: write_file() missing required argument 'content' (text to store). Signature: ${SIG_WRITE}.`,
  },
  {
    action: "convert_units(value='59', from_unit='km', to_unit='mi')",
    kind: 'type_error',
    terse: "Error: 'value' must be a number.",
    standard: "TypeError: convert_units(): argument 'value' must be a number, got str.",
    verbose: `TypeError: convert_units(): argument 'value' must be a number, got str ('59'). Signature: ${SIG_CONVERT}.`,
  },
  {
    action: "convert_units(value=True, from_unit='km', to_unit='mi')",
    kind: 'type_error',
    terse: "Error: 'value' must be a number.",
    standard: "TypeError: convert_units(): argument 'value' must be a number, got bool.",
    verbose: `TypeError: convert_units(): argument 'value' must be a number, got bool (True). Signature: ${SIG_CONVERT}.`,
  },
  {
    action: "create_event(title='1:1', date='2026-10-11', time='09:30', attendees='ada.lovelace@corp.example')",
    kind: 'type_error',
    terse: "Error: 'attendees' must be a list of strings.",
    standard: "TypeError: create_event(): argument 'attendees' must be a list of strings, got str.",
    verbose: `TypeError: create_event(): argument 'attendees' must be a list of strings, got str ('ada.lovelace@corp.example'). Signature: ${SIG_CREATE}.`,
  },
  {
    action: "create_event(title='1:1', date='2026-10-11', time='09:30', attendees=[1, 2])",
    kind: 'type_error',
    terse: "Error: 'attendees' must be a list of strings.",
    standard: "TypeError: create_event(): argument 'attendees' must be a list of strings, got list.",
    verbose: `TypeError: create_event(): argument 'attendees' must be a list of strings, got list ([1, 2]). Signature: ${SIG_CREATE}.`,
  },
  {
    action: 'find_contact(name=None)',
    kind: 'type_error',
    terse: "Error: 'name' must be a string.",
    standard: "TypeError: find_contact(): argument 'name' must be a string, got NoneType.",
    verbose: `TypeError: find_contact(): argument 'name' must be a string, got NoneType (None). Signature: ${SIG_FIND}.`,
  },
  {
    action: "find_contact(name='Alex Ramirez')",
    kind: 'contact_not_found',
    terse: "Error: no contact 'Alex Ramirez'.",
    standard: "LookupError: no contact matching 'Alex Ramirez'. Closest match: 'Alan Turing'.",
    verbose:
      "LookupError: no contact matching 'Alex Ramirez'. Closest match: 'Alan Turing'. Known contacts include: Ada Lovelace, Alan Turing, Grace Hopper.",
  },
  {
    action: "read_file(path='notes/meeting.md')",
    kind: 'file_not_found',
    terse: "Error: no file 'notes/meeting.md'.",
    standard: "LookupError: no file matching 'notes/meeting.md'. Closest match: 'notes/todo.md'.",
    verbose:
      "LookupError: no file matching 'notes/meeting.md'. Closest match: 'notes/todo.md'. Known files include: notes/todo.md, reports/q3.md, system/config.ini.",
  },
  {
    action: "list_files(folder='/docs/')",
    kind: 'folder_not_found',
    terse: "Error: no folder 'docs'.",
    standard: "LookupError: no folder matching 'docs'. Closest match: 'notes'.",
    verbose: "LookupError: no folder matching 'docs'. Closest match: 'notes'. Known folders include: notes, reports, system.",
  },
  {
    action: "list_contacts(team='Marketing')",
    kind: 'team_not_found',
    terse: "Error: no team 'Marketing'.",
    standard: "LookupError: no team matching 'Marketing'. Closest match: 'design'.",
    verbose: "LookupError: no team matching 'Marketing'. Closest match: 'design'. Known teams include: design, platform, research.",
  },
  {
    action: "cancel_event(event_id='evt-9')",
    kind: 'event_not_found',
    terse: "Error: no event 'evt-9'.",
    standard: "LookupError: no event matching 'evt-9'. Closest match: 'evt-2'.",
    verbose: "LookupError: no event matching 'evt-9'. Closest match: 'evt-2'. Known events include: evt-1, evt-2.",
  },
  {
    action: "create_event(title='1:1', date='2026-10-11', time='09:30', attendees=['ada.lovelace@corp.example', 'bob@corp.example'])",
    kind: 'attendee_not_found',
    terse: "Error: no attendee 'bob@corp.example'.",
    standard: "LookupError: no attendee matching 'bob@corp.example'. Closest match: 'grace.hopper@corp.example'.",
    verbose:
      "LookupError: no attendee matching 'bob@corp.example'. Closest match: 'grace.hopper@corp.example'. Known attendees include: ada.lovelace@corp.example, alan.turing@corp.example, grace.hopper@corp.example.",
  },
  {
    action: "send_message(to='bob@corp.example', subject='hi', body='hello')",
    kind: 'recipient_not_found',
    terse: "Error: no recipient 'bob@corp.example'.",
    standard: "LookupError: no recipient matching 'bob@corp.example'. Closest match: 'grace.hopper@corp.example'.",
    verbose:
      "LookupError: no recipient matching 'bob@corp.example'. Closest match: 'grace.hopper@corp.example'. Known recipients include: ada.lovelace@corp.example, alan.turing@corp.example, grace.hopper@corp.example.",
  },
  {
    action: "write_file(path='system/config.ini', content='mode=fast')",
    kind: 'permission_error',
    terse: "Error: 'system/config.ini' is read-only.",
    standard: "PermissionError: 'system/config.ini' is read-only and cannot be written.",
    verbose: "PermissionError: 'system/config.ini' is read-only and cannot be written. Files under system/ are managed by the workspace.",
  },
  {
    action: "delete_file(path='system/config.ini')",
    kind: 'permission_error',
    terse: "Error: 'system/config.ini' is read-only.",
    standard: "PermissionError: 'system/config.ini' is read-only and cannot be deleted.",
    verbose: "PermissionError: 'system/config.ini' is read-only and cannot be deleted. Files under system/ are managed by the workspace.",
  },
  {
    action: "set_reminder(text='pay rent', date='next Tuesday')",
    kind: 'format_error',
    terse: "Error: bad date 'next Tuesday'.",
    standard: "ValueError: set_reminder(): 'date' must be YYYY-MM-DD, got 'next Tuesday'.",
    verbose: "ValueError: set_reminder(): 'date' must be YYYY-MM-DD, got 'next Tuesday'. Example: 2026-09-14.",
  },
  {
    action: "list_events(date='September 14, 2026')",
    kind: 'format_error',
    terse: "Error: bad date 'September 14, 2026'.",
    standard: "ValueError: list_events(): 'date' must be YYYY-MM-DD, got 'September 14, 2026'.",
    verbose: "ValueError: list_events(): 'date' must be YYYY-MM-DD, got 'September 14, 2026'. Example: 2026-09-14.",
  },
  {
    action: "create_event(title='1:1', date='2026-10-11', time='9:30', attendees=['ada.lovelace@corp.example'])",
    kind: 'format_error',
    terse: "Error: bad time '9:30'.",
    standard: "ValueError: create_event(): 'time' must be HH:MM, got '9:30'.",
    verbose: "ValueError: create_event(): 'time' must be HH:MM, got '9:30'. Example: 14:30.",
  },
  {
    action: "send_message(to='Ada Lovelace', subject='hi', body='hello')",
    kind: 'format_error',
    terse: "Error: 'Ada Lovelace' is not an email address.",
    standard: "ValueError: send_message(): 'to' must be an email address, got 'Ada Lovelace'.",
    verbose:
      "ValueError: send_message(): 'to' must be an email address, got 'Ada Lovelace'. Use find_contact() to resolve a name to an address.",
  },
  {
    action: "cancel_event(event_id='evt-2')",
    kind: 'state_error',
    terse: "Error: 'evt-2' already cancelled.",
    standard: "StateError: event 'evt-2' is already cancelled.",
    verbose: "StateError: event 'evt-2' is already cancelled; cancelling it again has no effect.",
  },
  {
    action: "convert_units(value=5, from_unit='KM', to_unit='m')",
    kind: 'unsupported_conversion',
    terse: 'Error: cannot convert km to m.',
    standard: "ValueError: convert_units(): no conversion from 'km' to 'm'.",
    verbose: "ValueError: convert_units(): no conversion from 'km' to 'm'. Supported pairs include: km->mi, mi->km, kg->lb, lb->kg, c->f.",
  },
];

function run(action: string, verbosity: 'terse' | 'standard' | 'verbose', echoAction = false): Outcome {
  return step(officeWorld(), action, { verbosity, echoAction });
}

for (const c of CASES) {
  test(`${c.kind}: ${c.action}`, () => {
    const std = run(c.action, 'standard');
    assert.equal(std.ok, false);
    assert.equal(std.errorType, c.kind);
    assert.equal(std.observation, c.standard);
    assert.equal(run(c.action, 'terse').observation, c.terse);
    assert.equal(run(c.action, 'verbose').observation, c.verbose);
    const echo = run(c.action, 'standard', true);
    assert.equal(echo.observation, `${c.standard}\n  while calling: ${c.action.trim()}`);
    assert.equal(echo.echoesAction, true);
    assert.equal(run(c.action, 'terse', true).observation, `${c.terse}\n  while calling: ${c.action.trim()}`);
  });
}

test('not-found errors without any options omit the closest-match and known clauses', () => {
  const world = officeWorld();
  world.contacts = [];
  for (const verbosity of ['standard', 'verbose'] as const) {
    assert.equal(
      step(world, "find_contact(name='Ada Lovelace')", { verbosity }).observation,
      "LookupError: no contact matching 'Ada Lovelace'.",
    );
  }
});

test('echo quotes the stripped action; the default rendering is standard without echo', () => {
  const out = step(officeWorld(), "  find_contacts(name='Ada Lovelace')\n", { echoAction: true });
  assert.equal(
    out.observation,
    "NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'?\n  while calling: find_contacts(name='Ada Lovelace')",
  );
  assert.equal(
    step(officeWorld(), "find_contacts(name='Ada Lovelace')").observation,
    "NameError: unknown tool 'find_contacts'. Did you mean 'find_contact'?",
  );
});

test('CPython SyntaxError texts reach the observation', () => {
  assert.equal(
    step(officeWorld(), "find_contact(name='Ada").observation,
    'SyntaxError: could not parse the call (unterminated string literal (detected at line 1)).',
  );
  assert.equal(
    step(officeWorld(), "find_contact(name='Ada' — x)").observation,
    "SyntaxError: could not parse the call (invalid character '—' (U+2014)).",
  );
});

test('error glosses for the abstract note', () => {
  assert.equal(errorGloss('unknown_tool'), 'no such tool');
  assert.equal(errorGloss('timeout'), 'the call failed');
  assert.equal(errorGloss(null), 'the call failed');
  assert.equal(errorGloss('toString'), 'the call failed');
});
