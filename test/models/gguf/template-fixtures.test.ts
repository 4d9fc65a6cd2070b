// Our renderer against golden renders by Python Jinja2 configured like HF apply_chat_template
// (fixtures/make-template-fixtures.py): same bytes for every template, conversation and kwargs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ChatRenderer, DEFAULT_TEMPLATE_DATE } from '../../../src/models/gguf/chat-template.ts';
import { TINY_CHAT_TEMPLATE } from '../../../src/test/tiny-model.ts';
import type { ChatMessage } from '../../../src/models/types.ts';

interface Fixture {
  pinned_date: string;
  templates: Array<{
    name: string;
    template: string;
    cases: Array<{ messages: ChatMessage[]; kwargs: Record<string, unknown>; add_generation_prompt: boolean; expected: string }>;
  }>;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/templates.json', import.meta.url), 'utf8')) as Fixture;

test('the fixture was generated from the current tiny template and the default pinned date', () => {
  assert.equal(fixture.templates.find((t) => t.name === 'tiny')?.template, TINY_CHAT_TEMPLATE);
  assert.equal(fixture.pinned_date, DEFAULT_TEMPLATE_DATE.toISOString().slice(0, 10));
});

for (const t of fixture.templates) {
  test(`template "${t.name}" renders byte for byte as HF-configured Jinja2 does (${t.cases.length} cases)`, () => {
    for (const [i, c] of t.cases.entries()) {
      const r = new ChatRenderer(
        { template: t.template, origin: t.name },
        { specialTokens: { bos_token: '<s>', eos_token: '</s>' }, kwargs: c.kwargs, date: DEFAULT_TEMPLATE_DATE },
      );
      assert.equal(
        r.render(c.messages, c.add_generation_prompt),
        c.expected,
        `case ${i}: ${JSON.stringify(c.kwargs)} agp=${c.add_generation_prompt}`,
      );
    }
  });
}
