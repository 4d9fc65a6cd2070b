// The remedy library: abstracted failure records, history policies, ban lists and the ledger.
import test from 'node:test';
import assert from 'node:assert/strict';
import { abstractFailures, banTokenSequences, buildAgentMessages, failedActions, FailureLedger } from '../../src/remedy/index.ts';
import { NEGATIVE_INSTRUCTION } from '../../src/remedy/failure-record.ts';
import { abstractFailureNote, banStrings, glossTable, callName, defaultGloss, GENERIC_GLOSS, type AgentStep } from '@revloop/revise';
import { errorGloss } from '../../src/envs/toolshed/index.ts';
import { NEGATIVE_INSTRUCTION as TOOLSHED_INSTRUCTION } from '../../src/envs/toolshed/prompt.ts';
import { ERROR_GLOSS } from '../../src/envs/toolshed/errors.ts';
import { actionToolName } from '../../src/envs/toolshed/parse.ts';
import type { ChatMessage, GenerateOptions, GenerateResult, Model } from '../../src/models/types.ts';
import { modelCapabilities } from '../../src/models/capabilities.ts';
import { CapabilityError } from '../../src/core/errors.ts';

const steps: AgentStep[] = [
  { action: "find_contact(name='Ana Ruiz')", observation: "{'name': 'Ana Ruiz'}", ok: true, errorType: null, tool: 'find_contact' },
  {
    action: "read_file(path='notes/x.md')",
    observation: "LookupError: no file matching 'notes/x.md'.",
    ok: false,
    errorType: 'file_not_found',
    tool: 'read_file',
  },
  { action: '  oops (', observation: 'SyntaxError: could not parse the call (…).', ok: false, errorType: 'parse_error', tool: null },
  {
    action: "read_file(path='notes/x.md') ",
    observation: "LookupError: no file matching 'notes/x.md'.",
    ok: false,
    errorType: 'file_not_found',
    tool: 'read_file',
  },
];

test('abstract note: the reference text byte for byte (em dash, gloss, tool fallback)', () => {
  assert.equal(
    abstractFailureNote({ tool: 'create_event', errorType: 'format_error' }, 1),
    '[attempt 1 failed: create_event \u2014 an argument was badly formatted; that call is not repeatable]',
  );
  assert.equal(
    abstractFailureNote({ tool: null, errorType: 'parse_error' }, 3),
    '[attempt 3 failed: the tool \u2014 the call could not be parsed; that call is not repeatable]',
  );
  assert.equal(
    abstractFailureNote({ tool: '', errorType: 'timeout' }, 2),
    '[attempt 2 failed: the tool \u2014 the call failed; that call is not repeatable]',
  );
  assert.equal(
    abstractFailureNote({ tool: 'x', errorType: 'boom' }, 1, glossTable({ boom: 'it exploded' })),
    '[attempt 1 failed: x \u2014 it exploded; that call is not repeatable]',
  );
});

test('history policies: verbatim keeps, drop deletes, abstract replaces failed steps; instruction after a newline', () => {
  const verbatim = buildAgentMessages('SYS\n', 'GOAL', steps, { feedback: 'verbatim' });
  assert.equal(verbatim.length, 2 + 2 * steps.length);
  assert.deepEqual(verbatim[4], { role: 'assistant', content: "read_file(path='notes/x.md')" });
  assert.deepEqual(verbatim[5], { role: 'user', content: "Observation: LookupError: no file matching 'notes/x.md'." });

  const drop = buildAgentMessages('SYS\n', 'GOAL', steps, { feedback: 'drop' });
  assert.deepEqual(
    drop.map((m) => m.role),
    ['system', 'user', 'assistant', 'user'],
  );

  const abs = buildAgentMessages('SYS\n', 'GOAL', steps, { feedback: 'abstract' });
  assert.deepEqual(
    abs.slice(4).map((m) => m.content),
    [
      '[attempt 1 failed: read_file \u2014 no such file; that call is not repeatable]',
      '[attempt 2 failed: the tool \u2014 the call could not be parsed; that call is not repeatable]',
      '[attempt 3 failed: read_file \u2014 no such file; that call is not repeatable]',
    ],
  );
  assert.ok(abs.slice(4).every((m) => m.role === 'user'));
  assert.ok(!abs.some((m) => m.role === 'assistant' && m.content.includes('notes/x.md')), 'no failed call is echoed back under abstract');

  const instr = buildAgentMessages('SYS\n', 'GOAL', [], { feedback: 'verbatim', negativeInstruction: true });
  assert.equal(instr[0].content, `SYS\n\n${NEGATIVE_INSTRUCTION}`);
  assert.equal(
    NEGATIVE_INSTRUCTION,
    'Important: some of your earlier tool calls failed. Do not repeat a call that has already failed; change the call before trying again.',
  );
});

test('ban strings: failed actions only, stripped, empty skipped, de-duplicated in order', () => {
  assert.deepEqual(failedActions(steps), ["read_file(path='notes/x.md')", '  oops (', "read_file(path='notes/x.md') "]);
  assert.deepEqual(banStrings([...failedActions(steps), '   ', '\t']), ["read_file(path='notes/x.md')", 'oops (']);
});

test('ban token sequences: both whitespace variants, empty tokenizations dropped, identical tuples kept once', () => {
  // A toy tokenizer: one token per character code; a leading space merges into the next character.
  const tok = (s: string) => {
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      if (s[i] === ' ' && i + 1 < s.length) out.push(1000 + s.charCodeAt(++i));
      else out.push(s.charCodeAt(i));
    }
    return out;
  };
  const seqs = banTokenSequences(['ab', ' ab ', 'c'], tok);
  assert.deepEqual(seqs, [[97, 98], [1097, 98], [99], [1099]]);
  assert.deepEqual(
    banTokenSequences(['x'], () => []),
    [],
  );
});

test('abstractFailures: records with 1-based index, transcript position, parsed tool when not given', () => {
  const recs = abstractFailures([
    { action: "delete_file(path='a')", observation: 'e', ok: false, errorType: 'file_not_found' },
    { action: 'ok()', observation: 'fine', ok: true },
    { action: 'not a call', observation: 'e', ok: false, errorType: 'parse_error' },
  ]);
  assert.deepEqual(
    recs.map((r) => [r.index, r.step, r.tool]),
    [
      [1, 0, 'delete_file'],
      [2, 2, null],
    ],
  );
  assert.equal(recs[0].note, '[attempt 1 failed: delete_file \u2014 no such file; that call is not repeatable]');
});

test('generic defaults: families any tool-calling harness meets, "<thing>_not_found", else "the call failed"', () => {
  assert.equal(defaultGloss('parse_error'), 'the call could not be parsed');
  assert.equal(defaultGloss('calendar_slot_not_found'), 'no such calendar slot');
  assert.equal(defaultGloss('unsupported_conversion'), 'the call failed', 'environment-specific families are not built in');
  assert.equal(defaultGloss('test_failure'), 'the call failed');
  assert.equal(defaultGloss('_not_found'), 'the call failed');
  assert.equal(defaultGloss('toString'), 'the call failed');
  assert.equal(defaultGloss(null), 'the call failed');
  assert.equal(callName("  read_file(path='a.md') "), 'read_file');
  assert.equal(callName("read_file(path='a.md') and more"), null);
  assert.equal(callName('not a call'), null);
});

test('ToolShed supplies its gloss table and parser; the generic defaults agree with it wherever they speak', () => {
  for (const [family, gloss] of Object.entries(ERROR_GLOSS)) {
    assert.equal(errorGloss(family), gloss);
    const generic = defaultGloss(family);
    if (family in GENERIC_GLOSS || family.endsWith('_not_found')) assert.equal(generic, gloss, family);
    else assert.equal(generic, 'the call failed', family);
  }
  assert.equal(TOOLSHED_INSTRUCTION, NEGATIVE_INSTRUCTION, 'one owner: ToolShed re-exports the remedy instruction');
  // The ToolShed parser strips fences and labels; the generic default does not.
  const fenced = { action: "```python\nread_file(path='a')\n```", observation: 'e', ok: false, errorType: 'unsupported_conversion' };
  assert.equal(abstractFailures([fenced])[0].note, '[attempt 1 failed: the tool \u2014 the call failed; that call is not repeatable]');
  assert.equal(
    abstractFailures([fenced], { toolOf: actionToolName, gloss: errorGloss })[0].note,
    '[attempt 1 failed: read_file \u2014 that conversion is not supported; that call is not repeatable]',
  );
  const ledger = new FailureLedger({ toolOf: actionToolName, gloss: errorGloss });
  assert.equal(ledger.record(fenced)?.tool, 'read_file');
  assert.equal(
    ledger.messages('SYS', 'GOAL')[2].content,
    '[attempt 1 failed: read_file \u2014 that conversion is not supported; that call is not repeatable]',
  );
});

class FakeModel implements Model {
  readonly spec = 'fake:';
  readonly label = 'fake';
  calls: Array<{ messages: ChatMessage[]; options: GenerateOptions }> = [];
  constructor(
    readonly capabilities: Model['capabilities'],
    private readonly reply: string,
  ) {}
  async generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
    this.calls.push({ messages, options });
    return { text: this.reply, attempts: [] };
  }
}

test('FailureLedger: abstracted context, ban where the backend can, repeat detection where it cannot', async () => {
  const ledger = new FailureLedger();
  assert.equal(ledger.record(steps[0]), null);
  const rec = ledger.record(steps[1]);
  assert.equal(rec?.note, '[attempt 1 failed: read_file \u2014 no such file; that call is not repeatable]');
  assert.deepEqual(ledger.banList(), ["read_file(path='notes/x.md')"]);
  assert.ok(ledger.isRepeat("  read_file(path='notes/x.md')\n"));
  assert.ok(!ledger.isRepeat("find_contact(name='Ana Ruiz')"));

  const banning = new FakeModel(modelCapabilities({ ban: true }), "read_file(path='notes/y.md')");
  const r1 = await ledger.generate(banning, 'SYS', 'GOAL', { maxTokens: 16 });
  assert.deepEqual(banning.calls[0].options.bannedSequences, ["read_file(path='notes/x.md')"]);
  assert.equal(r1.banEnforced, true);
  assert.equal(r1.repeat, false);
  assert.ok(!banning.calls[0].messages.some((m) => m.content === "read_file(path='notes/x.md')"));

  const plain = new FakeModel(modelCapabilities(), "read_file(path='notes/x.md')");
  const r2 = await ledger.generate(plain, 'SYS', 'GOAL', { maxTokens: 16 });
  assert.equal(plain.calls[0].options.bannedSequences, undefined);
  assert.equal(r2.banEnforced, false);
  assert.equal(r2.repeat, true);
  await assert.rejects(ledger.generate(plain, 'SYS', 'GOAL', { maxTokens: 16, requireBan: true }), CapabilityError);

  const verbatim = new FailureLedger({ feedback: 'verbatim', ban: false });
  verbatim.record(steps[1]);
  const m = verbatim.messages('SYS', 'GOAL');
  assert.equal(m[2].content, "read_file(path='notes/x.md')");
});
