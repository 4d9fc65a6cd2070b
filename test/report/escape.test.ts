import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeHtml, jsonForScript } from '../../src/html/escape.ts';

test('jsonForScript: hostile strings cannot end the script element and round-trip exactly', () => {
  const hostile = [
    '</script><script>alert(1)</script>',
    '<!-- <script>',
    '\u2028\u2029',
    'a & b > c',
    '</SCRIPT >',
    '\ud800 lone surrogate',
    'é😀',
  ];
  const json = jsonForScript({ hostile });
  assert.ok(!/<|>|&|\u2028|\u2029/.test(json), json);
  assert.deepEqual(JSON.parse(json), { hostile });
});

test('jsonForScript: any string round-trips and never contains < > & U+2028 U+2029 (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 40 })), (strings) => {
      const json = jsonForScript(strings);
      assert.ok(!/[<>&\u2028\u2029]/.test(json));
      assert.deepEqual(
        JSON.parse(json),
        strings.map((s) => JSON.parse(JSON.stringify(s))),
      );
    }),
    { numRuns: 300, seed: 7 },
  );
});

test('escapeHtml: escapes the five HTML-significant characters', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(escapeHtml('plain text, é'), 'plain text, é');
});
