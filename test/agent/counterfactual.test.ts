// Counterfactual observations, HARNESS.md §1.7.
import test from 'node:test';
import assert from 'node:assert/strict';
import { successObservation, neutralObservation, lengthMatchedNeutral, traceUnit } from '../../src/envs/toolshed/counterfactual.ts';

test('success observations are argument-aware', () => {
  assert.equal(
    successObservation("find_contact(name='Dana Bergmann')"),
    "{'name': 'Dana Bergmann', 'email': 'dana.bergmann@corp.example', 'team': 'design'}",
  );
  assert.equal(
    successObservation("find_contact(contact_name='Dana Bergmann')"),
    "{'name': 'Dana Bergmann', 'email': 'dana.bergmann@corp.example', 'team': 'design'}",
  );
  assert.equal(
    successObservation('find_contact(name="O\'Neil Ray")'),
    `{'name': "O'Neil Ray", 'email': 'o'neil.ray@corp.example', 'team': 'design'}`,
  );
  assert.equal(successObservation('find_contact()'), "{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': 'design'}");
  assert.equal(
    successObservation("find_contact(name='')"),
    "{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': 'design'}",
  );
  assert.equal(
    successObservation("list_contacts(team_name='research')"),
    "[{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': 'research'}]",
  );
  assert.equal(successObservation("read_file(path='x')"), 'renew the domain, file the expense report');
  assert.equal(successObservation("write_file(path='reports/r.md', content='15.5861')"), 'wrote 7 characters to reports/r.md');
  assert.equal(successObservation("write_file(path='reports/r.md')"), 'wrote 0 characters to reports/r.md');
  assert.equal(successObservation("write_file(file_path='a.md', text='abc')"), 'wrote 3 characters to a.md');
  assert.equal(successObservation("write_file(path='a.md', content=['x'])"), 'wrote 26 characters to a.md');
  assert.equal(successObservation("delete_file(path='notes/a.md')"), 'deleted notes/a.md');
  assert.equal(successObservation('delete_file()'), 'deleted the file');
  assert.equal(successObservation("list_files(directory='drafts')"), "['drafts/agenda.md', 'drafts/todo.md']");
  assert.equal(
    successObservation("list_events(day='2026-09-19')"),
    "[{'id': 'evt-2', 'title': 'Sprint planning', 'date': '2026-09-19', 'time': '10:00', 'attendees': ['milo.silva@corp.example']}]",
  );
  assert.equal(successObservation("cancel_event(id='evt-3')"), 'cancelled evt-3');
  assert.equal(successObservation("send_message(to='Dana Bergmann', subject='s', body='b')"), 'sent to Dana Bergmann');
  assert.equal(successObservation('send_message(subject=1)'), 'sent to the recipient');
  assert.equal(successObservation("set_reminder(text='x')"), 'reminder set for x', 'first string when no date key');
  assert.equal(successObservation("set_reminder(date='next Tuesday', text='x')"), 'reminder set for next Tuesday');
  assert.equal(successObservation('set_reminder(date=5)'), 'reminder set for 2026-09-14');
  assert.equal(successObservation("create_event(title='1:1')"), 'created evt-4');
  assert.equal(successObservation("convert_units(value='59', from_unit='l', to_unit='gal')"), '12.4274');
  assert.equal(successObservation('finish()'), 'Session ended.');
  assert.equal(successObservation("find_contacts(name='Dana Bergmann')"), 'OK', 'misspelled tools');
  assert.equal(successObservation('not parseable('), 'OK');
});

test('neutral observation, filler units (BLAKE2b-32 of "{action}:{i}") and echo', () => {
  const a = "find_contact(name='Alex Ramirez')";
  assert.equal(neutralObservation(a), 'Call recorded.');
  assert.deepEqual(
    [0, 1, 2].map((i) => traceUnit(a, i)),
    ['912fd284', '2ad11fda', '6fd722dc'],
  );
  assert.equal(neutralObservation(a, { fillerUnits: 2 }), 'Call recorded. trace=912fd284 trace=2ad11fda');
  assert.equal(neutralObservation(` ${a} `, { echoAction: true }), `Call recorded.\n  while calling: ${a}`);
  assert.deepEqual(
    [0, 1].map((i) => traceUnit("write_file(path='notes/é.md', content='x')", i)),
    ['c4d66468', '37055e14'],
    'UTF-8 input',
  );
});

test('length-matched neutral: closest token count, earlier on ties, stops once long enough', () => {
  const words = (s: string): number => s.split(' ').length;
  const item = { failed_action: 'f(x=1)', obs_neutral: 'Call recorded.', obs_fail: 'a b c d e' }; // 5 words
  // 2 words plain, +1 word per unit: 3 units → 5 words.
  assert.equal(lengthMatchedNeutral(item, words), neutralObservation('f(x=1)', { fillerUnits: 3 }));
  // Target 1 word: the plain neutral (2 words) is already at least as long, the loop stops after unit 1.
  assert.equal(lengthMatchedNeutral({ ...item, obs_fail: 'a' }, words), 'Call recorded.');
  // Target 100 words: capped at 23 units.
  assert.equal(
    lengthMatchedNeutral({ ...item, obs_fail: Array(100).fill('w').join(' ') }, words),
    neutralObservation('f(x=1)', { fillerUnits: 23 }),
  );
  // Ties keep the earlier, shorter candidate: counts 2,4,6 with target 5 → gap 1 at units 1 and 2 → units 1.
  const even = (s: string): number => (s === item.obs_fail ? 5 : 2 * (s.split(' ').length - 1));
  assert.equal(lengthMatchedNeutral(item, even), neutralObservation('f(x=1)', { fillerUnits: 1 }));
});
