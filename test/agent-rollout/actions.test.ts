// Action extraction, canonical forms and repeat statistics (HARNESS §5.2, §5.3). Expected values
// were generated with /usr/bin/python3 from the reference's extract_action / canonical_action logic.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalAction,
  canonicalCode,
  extractAction,
  parseErrorBreakdown,
  pySplitlines,
  repeatStats,
} from '../../src/studies/agent/actions.ts';

const PY = {
  extract: [
    ["find_contact(name='Dana Bergmann')\n", "find_contact(name='Dana Bergmann')"],
    ["  ```python\nread_file(path='a')\n```", 'python'],
    ["```\nread_file(path='a')```", "read_file(path='a')"],
    ["Action: list_files(folder='notes')", "list_files(folder='notes')"],
    ['action : finish()', 'finish()'],
    ["`read_file(path='x')`", "read_file(path='x')"],
    ["\n\n  \nTool:   cancel_event(event_id='evt-2')\nmore", "cancel_event(event_id='evt-2')"],
    ['Call:', 'Call:'],
    ["Sure! Here is the call:\nread_file(path='a')", 'Sure! Here is the call:'],
    ['', ''],
    ['   ', ''],
    ['``` ```', ' '],
    ["read_file(path='a')\r\nwrite_file()", "read_file(path='a')"],
    ['x y', 'x'],
    ["ACTİON: read_file(path='i')", "read_file(path='i')"],
    ["you: read_file(path='a')", "you: read_file(path='a')"],
  ],
  canonical: [
    [
      "create_event(title='1:1', date='2026-10-14', time='09:30', attendees=['a@b'])",
      "create_event(|attendees=['a@b'],date='2026-10-14',time='09:30',title='1:1')",
    ],
    [
      "create_event(attendees=['a@b'], time='09:30', date='2026-10-14', title='1:1')",
      "create_event(|attendees=['a@b'],date='2026-10-14',time='09:30',title='1:1')",
    ],
    ["convert_units(59, 'km', to_unit='mi')", "convert_units(59,'km'|to_unit='mi')"],
    ["convert_units(value=59.0, from_unit='km', to_unit='mi')", "convert_units(|from_unit='km',to_unit='mi',value=59.0)"],
    ['read_file( path = "notes/a.md" )', "read_file(|path='notes/a.md')"],
    ["read_file(path='notes/a.md'", "read_file(path='notes/a.md'"],
    ['  not   a\tcall  ', 'not a call'],
    ["f(x=(1,2), y={'a': True, 'b': None}, z=-3)", "f(|x=(1, 2),y={'a': True, 'b': None},z=-3)"],
    ["Action: read_file(path='q')", "read_file(|path='q')"],
    ['you: finish()', 'finish(|)'],
    ['f(**k)', 'f(**k)'],
    ['f(x=g())', 'f(x=g())'],
  ],
} as { extract: Array<[string, string]>; canonical: Array<[string, string]> };

test('extractAction matches the reference on fences, labels, blank lines and prose', () => {
  for (const [input, want] of PY.extract) assert.equal(extractAction(input), want, JSON.stringify(input));
});

test('canonicalAction matches the reference: kwargs sorted, Python reprs, parse failures whitespace-collapsed', () => {
  for (const [input, want] of PY.canonical) assert.equal(canonicalAction(input), want, JSON.stringify(input));
});

test('splitlines follows Python (\\r\\n, \\u2028, \\x1c …; no trailing empty line)', () => {
  assert.deepEqual(pySplitlines('a\r\nb\u2028c\x1cd\n'), ['a', 'b', 'c', 'd']);
  assert.deepEqual(pySplitlines(''), []);
  assert.deepEqual(pySplitlines('\n'), ['']);
});

test('repeat statistics: among failed steps, exact (stripped) and canonical; consecutive over all steps; null without failures', () => {
  const steps = [
    { action: "read_file(path='a')", ok: false },
    { action: "read_file( path='a' )", ok: false }, // canonical repeat only
    { action: "read_file(path='a') ", ok: false }, // exact (stripped) and canonical repeat
    { action: "list_files(folder='notes')", ok: true },
    { action: "list_files(folder = 'notes')", ok: true }, // consecutive repeat of an ok step
  ];
  assert.deepEqual(repeatStats(steps), {
    n_failed_actions: 3,
    n_exact_repeats: 1,
    n_canonical_repeats: 2,
    n_consecutive_repeats: 3,
    exact_repeat_rate: 1 / 3,
    canonical_repeat_rate: 2 / 3,
  });
  assert.deepEqual(repeatStats([{ action: 'finish()', ok: true }]), {
    n_failed_actions: 0,
    n_exact_repeats: 0,
    n_canonical_repeats: 0,
    n_consecutive_repeats: 0,
    exact_repeat_rate: null,
    canonical_repeat_rate: null,
  });
});

test('parse errors split into truncated calls and prose', () => {
  const actions = ["read_file(path='notes/to", 'I will now read the file.', 'finish(', "read_file(path='a')", "reed_file(path='a'"];
  const errors = ['parse_error', 'parse_error', 'parse_error', 'file_not_found', 'parse_error'];
  assert.deepEqual(parseErrorBreakdown(actions, errors), { truncated: 2, prose: 2 });
});

test('canonical code: comments (naively) removed, whitespace collapsed', () => {
  assert.equal(canonicalCode('def f(x):  # doc\n    return x   # done\n'), 'def f(x): return x');
});
