// Action parsing, HARNESS.md §1.4.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseAction, cleanActionText, actionToolName } from '../../src/envs/toolshed/parse.ts';
import { ToolError } from '../../src/envs/toolshed/errors.ts';
import { PyTuple } from '../../src/core/py/values.ts';

function kind(action: string): string {
  try {
    parseAction(action);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ToolError);
    return e.standard;
  }
}

test('keyword arguments keep call order and literal types', () => {
  const p = parseAction("create_event(title='1:1', date='2026-10-11', time='09:30', attendees=['a@corp.example'])");
  assert.equal(p.name, 'create_event');
  assert.deepEqual([...p.kwargs.keys()], ['title', 'date', 'time', 'attendees']);
  assert.deepEqual(p.kwargs.get('attendees'), ['a@corp.example']);
  const n = parseAction('convert_units(value=59, from_unit="km", to_unit=\'mi\')');
  assert.equal(n.kwargs.get('value'), 59n, 'ints stay ints');
  assert.equal(parseAction('f(x=59.0)').kwargs.get('x'), 59);
  assert.ok(parseAction("f(x=('a', 'b'))").kwargs.get('x') instanceof PyTuple);
});

test('a repeated keyword keeps its first position and its last value (dict semantics)', () => {
  const p = parseAction('f(a=1, b=2, a=3)');
  assert.deepEqual(
    [...p.kwargs.entries()],
    [
      ['a', 3n],
      ['b', 2n],
    ],
  );
});

test('positional arguments are parsed and kept separately', () => {
  const p = parseAction("find_contact('Ada Lovelace')");
  assert.deepEqual(p.positional, ['Ada Lovelace']);
  assert.equal(p.kwargs.size, 0);
});

test('code fences (optionally python / tool_code) and one leading label are removed', () => {
  assert.equal(cleanActionText("```python\nread_file(path='a/b.md')\n```"), "read_file(path='a/b.md')");
  assert.equal(cleanActionText("```tool_code read_file(path='a')```"), "read_file(path='a')");
  assert.equal(cleanActionText('```\nfinish()\n```'), 'finish()');
  assert.equal(cleanActionText("Action: cancel_event(event_id='evt-1')"), "cancel_event(event_id='evt-1')");
  assert.equal(cleanActionText('ASSISTANT :  finish()'), 'finish()');
  assert.equal(cleanActionText('you:finish()'), 'finish()');
  assert.equal(cleanActionText('Reply: Tool: finish()'), 'Tool: finish()', 'only one label is removed');
  assert.equal(cleanActionText('actıon: finish()'), 'finish()', 'Python re.I matches dotless i');
  assert.equal(cleanActionText('Thought: finish()'), 'Thought: finish()', 'other labels stay');
  assert.equal(cleanActionText('\u00a0finish()\u2003'), 'finish()', 'Python whitespace is stripped');
});

test('empty, syntax, not-a-call, ** and non-literal errors', () => {
  assert.equal(kind('   '), 'Error: empty action. Emit exactly one tool call.');
  assert.equal(kind('```python\n```'), 'Error: empty action. Emit exactly one tool call.');
  assert.equal(kind('Action:'), 'Error: empty action. Emit exactly one tool call.');
  assert.equal(kind("find_contact(name='Ada'"), "SyntaxError: could not parse the call ('(' was never closed).");
  assert.equal(kind("f(a='x' b='y')"), 'SyntaxError: could not parse the call (invalid syntax. Perhaps you forgot a comma?).');
  assert.equal(kind('x = f()'), 'SyntaxError: could not parse the call (invalid syntax).');
  for (const a of ['finish', 'x.y(z=1)', 'f()()', "'text'", '[f()]', 'f(a=1), g()']) {
    assert.equal(kind(a), "Error: the action must be a single tool call, e.g. read_file(path='notes/todo.md').", a);
  }
  assert.equal(kind("f(**{'a': 1})"), 'Error: argument unpacking (**) is not supported.');
  assert.equal(kind('list_files(folder=notes)'), "Error: list_files: argument value 'notes' is not a literal.");
  assert.equal(kind('read_file(path=notes/todo.md)'), "Error: read_file: argument value 'notes / todo.md' is not a literal.");
  assert.equal(
    kind('send_message(to=dana.bergmann@corp.example)'),
    "Error: send_message: argument value 'dana.bergmann @ corp.example' is not a literal.",
  );
  assert.equal(kind("f(*['a'])"), `Error: f: argument value "*['a']" is not a literal.`);
  assert.equal(kind('f(x={[1]: 2})'), "Error: f: argument value '{[1]: 2}' is not a literal.", 'unhashable dict key');
});

test('keywords are checked before positionals, in call order', () => {
  assert.equal(kind('f(a, b=c)'), "Error: f: argument value 'c' is not a literal.");
  assert.equal(kind('f(x, **k)'), 'Error: argument unpacking (**) is not supported.');
});

test('literal_eval accepts what Python accepts', () => {
  assert.deepEqual(parseAction('f(x=-1, y=+2.5, z=set(), w=None, v=True)').kwargs.get('x'), -1n);
  assert.equal(kind('f(x=1+2)'), "Error: f: argument value '1 + 2' is not a literal.");
  assert.equal(kind('f(x=1+2j)'), 'ok');
  assert.equal(kind("f(x='a' 'b')"), 'ok');
  assert.equal(parseAction("f(x='a' 'b')").kwargs.get('x'), 'ab');
  assert.equal(kind("f(x=f'{a}')"), `Error: f: argument value "f'{a}'" is not a literal.`);
});

test('actionToolName: the parsed name (misspellings included) or null', () => {
  assert.equal(actionToolName("find_contacts(name='x')"), 'find_contacts');
  assert.equal(actionToolName('not a call'), null);
});

test('property: any text either parses or fails with a ToolError, and step never throws', async () => {
  const fc = (await import('fast-check')).default;
  const { step } = await import('../../src/envs/toolshed/step.ts');
  const { buildWorld } = await import('../../src/envs/toolshed/world.ts');
  const world = buildWorld(20260808, 0);
  const pieces = [
    ...Array.from('abcfnrt_0129.,:;=+-*/%@!~<>()[]{}\'"\\ \n\t#`$—é😀'),
    'find_contact(',
    "name='",
    "')",
    'lambda',
    ' if ',
    ' else ',
    ' for ',
    ' in ',
    'not ',
    "f'{",
    '}',
    '"""',
    '0x',
    '1e',
    'j',
    '**',
    ':=',
    '...',
    'print ',
  ];
  const text = fc.oneof(
    fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((a: string[]) => a.join('')),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
  );
  fc.assert(
    fc.property(text, (s: string) => {
      try {
        parseAction(s);
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
      }
      const out = step(structuredClone(world), s);
      assert.equal(typeof out.observation, 'string');
    }),
    { numRuns: 3000, seed: 20260808 },
  );
});
