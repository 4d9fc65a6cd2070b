// Rendering with the model's own Jinja template, HF apply_chat_template style (docs/harness.md §3.4, §13.2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ChatRenderer,
  strftimeUtc,
  DEFAULT_TEMPLATE_KWARGS,
  DEFAULT_TEMPLATE_DATE,
  resolveChatTemplate,
} from '../../../src/models/gguf/chat-template.ts';
import { TINY_CHAT_TEMPLATE } from '../../../src/test/tiny-model.ts';
import { UserError } from '../../../src/core/errors.ts';

const tiny = (kwargs: Record<string, unknown> = { ...DEFAULT_TEMPLATE_KWARGS }) =>
  new ChatRenderer(
    { template: TINY_CHAT_TEMPLATE, origin: 'gguf' },
    { specialTokens: { bos_token: '<s>', eos_token: '</s>' }, kwargs, date: DEFAULT_TEMPLATE_DATE },
  );

test('tiny template renders ChatML with BOS, the generation prompt and the empty think block (thinking off)', () => {
  const text = tiny().render([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ]);
  assert.equal(
    text,
    '<s><|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  );
});

test('enable_thinking=true drops the think block; no generation prompt when not asked', () => {
  const r = tiny({ enable_thinking: true });
  assert.equal(r.render([{ role: 'user', content: 'Hi' }]), '<s><|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  assert.equal(r.render([{ role: 'user', content: 'Hi' }], false), '<s><|im_start|>user\nHi<|im_end|>\n');
});

test('no system message is added, consecutive user turns stay separate, whitespace is kept verbatim', () => {
  const text = tiny().render([
    { role: 'user', content: 'goal' },
    { role: 'assistant', content: '  read_file(path="x")  ' },
    { role: 'user', content: 'Observation: Error' },
    { role: 'user', content: '[attempt 1 failed]' },
  ]);
  assert.ok(!text.includes('system'));
  assert.ok(text.includes('<|im_start|>assistant\n  read_file(path="x")  <|im_end|>'));
  assert.ok(text.includes('<|im_start|>user\nObservation: Error<|im_end|>\n<|im_start|>user\n[attempt 1 failed]<|im_end|>'));
});

test('templates follow HF Jinja settings: trim_blocks and lstrip_blocks', () => {
  const t = '{% for m in messages %}\n  {% if m.role == "user" %}\nU:{{ m.content }}\n  {% endif %}\n{% endfor %}';
  const r = new ChatRenderer({ template: t, origin: 'test' }, { specialTokens: {}, kwargs: {}, date: null });
  assert.equal(
    r.render([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ]),
    'U:a\nU:b\n',
  );
});

test('strftime_now is pinned by default (Llama 3.x date line) and follows the clock when date is null', () => {
  const t = 'Today Date: {{ strftime_now("%d %b %Y") }}';
  const pinned = new ChatRenderer({ template: t, origin: 'test' }, { specialTokens: {}, kwargs: {}, date: DEFAULT_TEMPLATE_DATE });
  assert.equal(pinned.render([]), 'Today Date: 26 Jul 2024');
  const live = new ChatRenderer({ template: t, origin: 'test' }, { specialTokens: {}, kwargs: {}, date: null });
  assert.match(live.render([]), /^Today Date: \d\d \w{3} \d{4}$/);
  assert.equal(pinned.describe().date, '2024-07-26');
});

test('strftimeUtc formats the directives templates use, in English and UTC', () => {
  const d = new Date(Date.UTC(2026, 0, 5, 7, 8, 9));
  assert.equal(strftimeUtc(d, '%Y-%m-%d %H:%M:%S %b %B %a %A %j %y %%'), '2026-01-05 07:08:09 Jan January Mon Monday 005 26 %');
});

test('template errors are user errors naming the origin', () => {
  assert.throws(
    () => new ChatRenderer({ template: '{% for %}', origin: 'my.jinja' }, { specialTokens: {}, kwargs: {}, date: null }),
    (e: Error) => e instanceof UserError && /my\.jinja/.test(e.message),
  );
  const raising = new ChatRenderer(
    { template: "{{ raise_exception('System role not supported') }}", origin: 'gguf' },
    { specialTokens: {}, kwargs: {}, date: null },
  );
  assert.throws(() => raising.render([]), /System role not supported/);
  assert.throws(() => tiny().render([{ role: 'tool' as 'user', content: 'x' }]), /message 0/);
});

test('resolveChatTemplate: a user file wins, a GGUF without a template is a clear error', () => {
  assert.equal(resolveChatTemplate('{{ x }}', undefined, 'm.gguf').origin, 'gguf');
  assert.throws(() => resolveChatTemplate(undefined, undefined, 'm.gguf'), /no tokenizer\.chat_template/);
  assert.throws(() => resolveChatTemplate('{{ x }}', '/nonexistent/t.jinja', 'm.gguf'), /cannot read chat template file/);
});
