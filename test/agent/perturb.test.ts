// Perturbation operators, HARNESS.md §2.
import test from 'node:test';
import assert from 'node:assert/strict';
import { perturbations, PROBE_OPERATORS } from '../../src/envs/toolshed/perturb.ts';
import { step } from '../../src/envs/toolshed/step.ts';
import { generateAgentTasks, generateTasks, taskWorld } from '../../src/envs/toolshed/tasks.ts';
import { officeWorld } from './world-fixture.ts';

const summary = (gold: string, world = officeWorld()): string[][] =>
  perturbations(gold, world).map((p) => [p.operator, p.expectedError, p.action]);

test('send_message: drop body, send_email, recipient=, the contact’s name for the address', () => {
  assert.deepEqual(summary("send_message(to='ada.lovelace@corp.example', subject='todo', body='x')"), [
    ['drop_arg', 'missing_argument', "send_message(to='ada.lovelace@corp.example', subject='todo')"],
    ['tool_typo', 'unknown_tool', "send_email(to='ada.lovelace@corp.example', subject='todo', body='x')"],
    ['arg_typo', 'unexpected_argument', "send_message(recipient='ada.lovelace@corp.example', subject='todo', body='x')"],
    ['name_for_email', 'format_error', "send_message(to='Ada Lovelace', subject='todo', body='x')"],
  ]);
  assert.equal(
    summary("send_message(to='stranger@corp.example', subject='s', body='b')").length,
    3,
    'no name_for_email when the address belongs to nobody',
  );
});

test('create_event: every operator, date renamed (title has no synonym), list → first element', () => {
  assert.deepEqual(summary("create_event(title='1:1', date='2026-10-03', time='09:30', attendees=['a@x', 'b@x'])"), [
    ['drop_arg', 'missing_argument', "create_event(title='1:1', date='2026-10-03', time='09:30')"],
    ['tool_typo', 'unknown_tool', "add_event(title='1:1', date='2026-10-03', time='09:30', attendees=['a@x', 'b@x'])"],
    ['arg_typo', 'unexpected_argument', "create_event(title='1:1', day='2026-10-03', time='09:30', attendees=['a@x', 'b@x'])"],
    ['type_swap', 'type_error', "create_event(title='1:1', date='2026-10-03', time='09:30', attendees='a@x')"],
    ['date_format', 'format_error', "create_event(title='1:1', date='October 3, 2026', time='09:30', attendees=['a@x', 'b@x'])"],
    [
      'hallucinated_entity',
      'attendee_not_found',
      "create_event(title='1:1', date='2026-10-03', time='09:30', attendees=['alex.ramirez@corp.example'])",
    ],
  ]);
});

test('convert_units: value=59 becomes the string format(59, "g"); to_unit m', () => {
  assert.deepEqual(summary("convert_units(value=59, from_unit='km', to_unit='mi')"), [
    ['drop_arg', 'missing_argument', "convert_units(value=59, from_unit='km')"],
    ['tool_typo', 'unknown_tool', "convert_unit(value=59, from_unit='km', to_unit='mi')"],
    ['arg_typo', 'unexpected_argument', "convert_units(amount=59, from_unit='km', to_unit='mi')"],
    ['type_swap', 'type_error', "convert_units(value='59', from_unit='km', to_unit='mi')"],
    ['hallucinated_entity', 'unsupported_conversion', "convert_units(value=59, from_unit='km', to_unit='m')"],
  ]);
  assert.equal(
    perturbations("convert_units(value=2.5e-7, from_unit='km', to_unit='mi')", officeWorld())[3].action,
    "convert_units(value='2.5e-07', from_unit='km', to_unit='mi')",
  );
});

test('set_reminder and list_events carry two date_format items with distinct indexes', () => {
  assert.deepEqual(summary("set_reminder(text='x was archived', date='2026-11-05')"), [
    ['drop_arg', 'missing_argument', "set_reminder(text='x was archived')"],
    ['tool_typo', 'unknown_tool', "create_reminder(text='x was archived', date='2026-11-05')"],
    ['arg_typo', 'unexpected_argument', "set_reminder(note='x was archived', date='2026-11-05')"],
    ['date_format', 'format_error', "set_reminder(text='x was archived', date='November 5, 2026')"],
    ['date_format', 'format_error', "set_reminder(text='x was archived', date='next Tuesday')"],
  ]);
  assert.deepEqual(summary("list_events(date='2026-09-19')"), [
    ['tool_typo', 'unknown_tool', "list_event(date='2026-09-19')"],
    ['arg_typo', 'unexpected_argument', "list_events(day='2026-09-19')"],
    ['date_format', 'format_error', "list_events(date='September 19, 2026')"],
    ['date_format', 'format_error', "list_events(date='tomorrow')"],
  ]);
});

test('write_file, read_file, delete_file, find_contact, list_contacts, list_files, cancel_event', () => {
  assert.deepEqual(summary("write_file(path='reports/roster.md', content='A, B')"), [
    ['drop_arg', 'missing_argument', "write_file(path='reports/roster.md')"],
    ['tool_typo', 'unknown_tool', "save_file(path='reports/roster.md', content='A, B')"],
    ['arg_typo', 'unexpected_argument', "write_file(file_path='reports/roster.md', content='A, B')"],
    ['readonly_target', 'permission_error', "write_file(path='system/config.ini', content='A, B')"],
  ]);
  const world = officeWorld();
  assert.equal(perturbations("read_file(path='notes/todo.md')", world)[2].action, "read_file(path='notes/meeting_notes.md')");
  world.files.set('notes/meeting_notes.md', { content: '', readonly: false });
  assert.equal(perturbations("delete_file(path='notes/todo.md')", world)[2].action, "delete_file(path='notes/archive_2025.md')");
  assert.deepEqual(
    summary("find_contact(name='Ada Lovelace')").map((p) => p[2]),
    ["find_contacts(name='Ada Lovelace')", "find_contact(contact_name='Ada Lovelace')", "find_contact(name='Alex Ramirez')"],
  );
  assert.deepEqual(
    summary("list_contacts(team='design')").map((p) => p[2]),
    ["list_contact(team='design')", "list_contacts(team_name='design')", "list_contacts(team='marketing')"],
  );
  assert.deepEqual(
    summary("list_files(folder='notes')").map((p) => p[1]),
    ['unknown_tool', 'unexpected_argument', 'folder_not_found'],
  );
  assert.deepEqual(
    summary("cancel_event(event_id='evt-1')").map((p) => p[2]),
    ["delete_event(event_id='evt-1')", "cancel_event(id='evt-1')", "cancel_event(event_id='evt-9')"],
  );
});

test('finish() and unknown tools have no perturbations', () => {
  assert.deepEqual(perturbations(' finish() ', officeWorld()), []);
  assert.deepEqual(perturbations("lookup(name='x')", officeWorld()), []);
});

test('every operator provokes its declared error family along every gold trajectory (probe and agent tasks)', () => {
  const seen = new Map<string, number>();
  let total = 0;
  for (const task of [...generateTasks(60), ...generateAgentTasks(24)]) {
    const world = taskWorld(task);
    for (const gold of task.gold_actions) {
      if (gold === 'finish()') break;
      for (const p of perturbations(gold, world)) {
        const out = step(structuredClone(world), p.action);
        assert.equal(out.ok, false, p.action);
        assert.equal(out.errorType, p.expectedError, `${p.operator}: ${p.action}`);
        seen.set(p.operator, (seen.get(p.operator) ?? 0) + 1);
        total++;
      }
      assert.ok(step(world, gold).ok, gold);
    }
  }
  assert.deepEqual([...seen.keys()].sort(), [...PROBE_OPERATORS]);
  assert.ok(total > 500, `${total} perturbations checked`);
});
