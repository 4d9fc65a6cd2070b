// The runtime: binding and checking order (HARNESS.md §1.5), tool behaviour (§1.1), no mutation on failure.
import test from 'node:test';
import assert from 'node:assert/strict';
import { step } from '../../src/envs/toolshed/step.ts';
import { cloneWorld } from '../../src/envs/toolshed/world.ts';
import { officeWorld } from './world-fixture.ts';

const kind = (action: string): string | null => step(officeWorld(), action).errorType;

test('finish() is recognised right after parsing, whatever its arguments', () => {
  const out = step(officeWorld(), 'finish(done=True, 1)');
  assert.equal(out.errorType, 'parse_error', 'a positional after a keyword is still a SyntaxError');
  const ok = step(officeWorld(), 'finish(reason=undefined_name_is_not_literal)');
  assert.equal(ok.errorType, 'parse_error');
  const fin = step(officeWorld(), "finish(summary='done', n=3)");
  assert.deepEqual([fin.ok, fin.observation, fin.info.finish], [true, 'Session ended.', true]);
  assert.equal(step(officeWorld(), 'Action: finish()').observation, 'Session ended.');
});

test('which error wins: unknown tool before arguments; arity before unknown keywords', () => {
  assert.equal(kind('find_contacts(nme=1, 2, 3)'), 'parse_error');
  assert.equal(kind('find_contacts(nme=1)'), 'unknown_tool');
  assert.equal(kind("find_contact('a', 'b', nme='c')"), 'arity_error');
  assert.equal(kind("write_file('notes/x.md', path='y')"), 'arity_error');
});

test('which error wins: the first unknown keyword in call order, before missing or wrongly typed ones', () => {
  const out = step(officeWorld(), 'write_file(content=1, file=2, text=3)');
  assert.equal(out.errorType, 'unexpected_argument');
  assert.equal(out.observation, "TypeError: write_file() got an unexpected keyword argument 'file'. Did you mean 'content'?");
});

test('which error wins: presence and type are checked per argument in declaration order', () => {
  assert.equal(step(officeWorld(), 'write_file(content=5)').observation, "TypeError: write_file() missing required argument 'path'.");
  assert.equal(
    step(officeWorld(), "write_file(content='x', path=5)").observation,
    "TypeError: write_file(): argument 'path' must be a string, got int.",
  );
  assert.equal(
    step(officeWorld(), 'write_file(path=5)').observation,
    "TypeError: write_file(): argument 'path' must be a string, got int.",
    'path (declared first) is type-checked before content is found missing',
  );
});

test('which error wins: all argument checks precede the tool’s own checks', () => {
  assert.equal(kind("create_event(title='t', date='soon', time='x', attendees='a')"), 'type_error');
  assert.equal(
    step(officeWorld(), "create_event(title='t', date='soon', time='x', attendees=['bob'])").observation,
    "ValueError: create_event(): 'date' must be YYYY-MM-DD, got 'soon'.",
    'date before time before attendees',
  );
  assert.equal(
    step(officeWorld(), "create_event(title='t', date='2026-10-01', time='x', attendees=['bob'])").observation,
    "ValueError: create_event(): 'time' must be HH:MM, got 'x'.",
  );
  assert.equal(kind("send_message(to='nobody', subject='s', body='b')"), 'format_error', "'@' is checked before the address book");
  assert.equal(kind("delete_file(path='system/missing.ini')"), 'file_not_found', 'existence before read-only');
});

test('positional arguments bind in declaration order', () => {
  const world = officeWorld();
  const out = step(world, "write_file('notes/new.md', 'hello')");
  assert.equal(out.observation, 'wrote 5 characters to notes/new.md');
  assert.equal(world.files.get('notes/new.md')?.content, 'hello');
  assert.equal(step(officeWorld(), "convert_units(5, 'km', 'mi')").observation, '3.1069');
});

test('successful calls render strings verbatim and other results by Python repr', () => {
  const world = officeWorld();
  assert.equal(step(world, "list_files(folder='/notes/')").observation, "['notes/todo.md']");
  assert.equal(step(world, "read_file(path='notes/todo.md')").observation, 'renew the domain, file the expense report');
  assert.equal(
    step(world, "find_contact(name='ada LOVELACE')").observation,
    "{'name': 'Ada Lovelace', 'email': 'ada.lovelace@corp.example', 'team': 'design'}",
  );
  assert.deepEqual(world.resolved, ['Ada Lovelace'], 'the canonical name is recorded');
  assert.equal(
    step(world, "list_contacts(team='RESEARCH')").observation,
    "[{'name': 'Alan Turing', 'email': 'alan.turing@corp.example', 'team': 'research'}]",
  );
  assert.equal(
    step(world, "list_events(date='2026-09-14')").observation,
    "[{'id': 'evt-1', 'title': 'Standup', 'date': '2026-09-14', 'time': '10:00', 'attendees': ['ada.lovelace@corp.example']}]",
  );
  assert.equal(step(world, "list_events(date='2026-09-15')").observation, '[]', 'cancelled events are hidden');
  assert.equal(step(world, "convert_units(value=100, from_unit='MI', to_unit='km')").observation, '160.9344');
  assert.equal(step(world, "convert_units(value=37, from_unit='c', to_unit='f')").observation, '98.6');
  assert.equal(step(world, "convert_units(value=10, from_unit='km', to_unit='mi')").observation, '6.2137');
  assert.equal(step(world, "convert_units(value=0, from_unit='kg', to_unit='lb')").observation, '0.0', 'integral floats keep .0');
  assert.equal(step(world, "write_file(path='notes/u.md', content='a😀b')").observation, 'wrote 3 characters to notes/u.md');
});

test('tools mutate the world only on success', () => {
  const world = officeWorld();
  assert.equal(
    step(world, "create_event(title='1:1', date='2026-10-11', time='09:30', attendees=('grace.hopper@corp.example',))").observation,
    'created evt-3',
  );
  assert.deepEqual(world.events[2].attendees, ['grace.hopper@corp.example'], 'tuples become lists');
  assert.equal(step(world, "cancel_event(event_id='evt-3')").observation, 'cancelled evt-3');
  assert.equal(
    step(world, "send_message(to='alan.turing@corp.example', subject='s', body='b')").observation,
    'sent to alan.turing@corp.example',
  );
  assert.equal(step(world, "set_reminder(text='pay', date='2026-11-03')").observation, 'reminder set for 2026-11-03');
  assert.equal(step(world, "delete_file(path='notes/todo.md')").observation, 'deleted notes/todo.md');
  assert.equal(world.files.has('notes/todo.md'), false);

  const before = cloneWorld(world);
  for (const bad of [
    "create_event(title='x', date='2026-10-11', time='09:30', attendees=['ada.lovelace@corp.example', 'nobody@x'])",
    "write_file(path='system/config.ini', content='x')",
    "send_message(to='bob@x', subject='s', body='b')",
    "set_reminder(text='x', date='tomorrow')",
    "cancel_event(event_id='evt-3')",
    "find_contact(name='Nobody')",
  ]) {
    assert.equal(step(world, bad).ok, false, bad);
  }
  assert.deepEqual(world, before);
});

test('dates and times follow Python re: \\d is any decimal digit and $ allows one final newline', () => {
  assert.equal(step(officeWorld(), "set_reminder(text='x', date='2026-11-03\\n')").ok, true);
  assert.equal(step(officeWorld(), "set_reminder(text='x', date='٢٠٢٦-١١-٠٣')").ok, true);
  assert.equal(step(officeWorld(), "set_reminder(text='x', date='2026-11-03\\n\\n')").ok, false);
});
