// Task templates, gold actions and goal predicates, HARNESS.md §1.8.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateAgentTasks, generateTasks, isSolved, taskWorld, formatCall, AGENT_TEMPLATES } from '../../src/envs/toolshed/tasks.ts';
import { step } from '../../src/envs/toolshed/step.ts';
import { PyTuple } from '../../src/core/py/values.ts';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/cpython-tasks.json', import.meta.url), 'utf8'));

test('probe tasks: ids, goals and gold actions agree with a CPython generator written from the spec', () => {
  const tasks = generateTasks(12);
  assert.deepEqual(
    tasks.map((t) => [t.task_id, t.goal, t.gold_actions]),
    fixture.probe,
  );
  assert.deepEqual(
    tasks.map((t) => t.payload.template),
    [
      'email_file',
      'cancel_event',
      'schedule',
      'roster',
      'archive',
      'convert',
      'email_file',
      'cancel_event',
      'schedule',
      'roster',
      'archive',
      'convert',
    ],
  );
  assert.deepEqual(
    tasks.slice(0, 6).map((t) => t.difficulty),
    ['medium', 'easy', 'medium', 'medium', 'easy', 'hard'],
  );
});

test('agent tasks: template order, agent ids, goals and gold actions agree with CPython', () => {
  const tasks = generateAgentTasks(24);
  assert.deepEqual(
    tasks.map((t) => [t.task_id, t.goal, t.gold_actions]),
    fixture.agent,
  );
  assert.deepEqual(
    tasks.slice(0, 12).map((t) => t.payload.template),
    AGENT_TEMPLATES,
  );
  assert.ok(tasks.every((t) => t.task_id.startsWith('agent-')));
});

test('the golden task of HARNESS.md §3.2', () => {
  const [t] = generateTasks(1);
  assert.equal(t.goal, "Send Dana Bergmann the contents of drafts/agenda.md. Use 'agenda' as the subject.");
  assert.equal(t.gold_actions[0], "find_contact(name='Dana Bergmann')");
});

test('every gold trajectory solves its task, and no task starts solved', () => {
  for (const task of [...generateTasks(60), ...generateAgentTasks(24)]) {
    const world = taskWorld(task);
    assert.equal(isSolved(task, world), false, task.task_id);
    for (const gold of task.gold_actions) assert.ok(step(world, gold).ok, `${task.task_id}: ${gold}`);
    assert.equal(isSolved(task, world), true, task.task_id);
  }
});

test('goal predicates check what the spec says, and only that', () => {
  const tasks = generateTasks(6);
  const [email, cancel, schedule, roster, archive, convert] = tasks;
  // email_file: the right address and the file content inside the body; subject not checked.
  let w = taskWorld(email);
  step(w, "send_message(to='dana.bergmann@corp.example', subject='whatever', body='FYI: roadmap, hiring, incident review!')");
  assert.ok(isSolved(email, w));
  // cancel_event: that id cancelled.
  w = taskWorld(cancel);
  const p = cancel.payload as { event_id: string };
  step(w, `cancel_event(event_id='${p.event_id}')`);
  assert.ok(isSolved(cancel, w));
  // schedule: title not checked; a cancelled event does not count.
  w = taskWorld(schedule);
  const s = schedule.payload as { contact_email: string; date: string; time: string };
  step(w, `create_event(title='anything', date='${s.date}', time='${s.time}', attendees=['${s.contact_email}'])`);
  assert.ok(isSolved(schedule, w));
  step(w, `cancel_event(event_id='evt-4')`);
  assert.equal(isSolved(schedule, w), false);
  // roster: every member's first name, in any format.
  w = taskWorld(roster);
  const r = roster.payload as { team_names: string[] };
  step(w, `write_file(path='reports/roster.md', content='${r.team_names.map((n) => n.split(' ')[0]).join(' & ')}')`);
  assert.ok(isSolved(roster, w));
  // archive: the file gone and any reminder on that date.
  w = taskWorld(archive);
  const a = archive.payload as { path: string; date: string };
  step(w, `delete_file(path='${a.path}')`);
  assert.equal(isSolved(archive, w), false);
  step(w, `set_reminder(text='done', date='${a.date}')`);
  assert.ok(isSolved(archive, w));
  // convert: str(expected) inside the content.
  w = taskWorld(convert);
  const c = convert.payload as { expected: number };
  step(w, `write_file(path='reports/conversion.md', content='about ${c.expected} units')`);
  assert.ok(isSolved(convert, w));
});

test('agent-only predicates: lookup is case-insensitive, simple_write and simple_reminder use the stripped text', () => {
  const tasks = generateAgentTasks(5);
  const [lookup, , write, , reminder] = tasks;
  let w = taskWorld(lookup);
  const name = (lookup.payload as { contact_name: string }).contact_name;
  step(w, `find_contact(name='${name.toUpperCase()}')`);
  assert.ok(isSolved(lookup, w));
  w = taskWorld(write);
  const text = (write.payload as { text: string }).text;
  step(w, `write_file(path='notes/status.md', content='Status: ${text}.')`);
  assert.ok(isSolved(write, w));
  w = taskWorld(reminder);
  const rp = reminder.payload as { date: string; text: string };
  step(w, `set_reminder(text='please ${rp.text}', date='${rp.date}')`);
  assert.ok(isSolved(reminder, w));
});

test('formatCall writes Python reprs in insertion order', () => {
  assert.equal(
    formatCall('f', [
      ['a', 59n],
      ['b', "it's"],
      ['c', ['x']],
      ['d', new PyTuple([1.5])],
      ['e', null],
    ]),
    `f(a=59, b="it's", c=['x'], d=(1.5,), e=None)`,
  );
});
