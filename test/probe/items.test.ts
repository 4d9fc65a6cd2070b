// Probe item files: strict reading with file:line: field: problem errors, and writing exactly as
// the reference does (the same bytes as ToolShed's writer for built items).
import test from 'node:test';
import assert from 'node:assert/strict';
import { buildToolshedItems } from '../../src/envs/toolshed/index.ts';
import { itemToJson } from '../../src/envs/toolshed/items.ts';
import { itemJsonLine, itemsJsonl, parseItems } from '../../src/studies/probe/items.ts';
import { InputError } from '../../src/core/errors.ts';
import { shortItems } from './fixtures.ts';

test("items written by the probe module are byte-identical to ToolShed's writer", () => {
  for (const it of buildToolshedItems().slice(0, 40)) assert.equal(itemJsonLine(it), itemToJson(it));
});

test('reading round-trips; CRLF and blank lines are tolerated', () => {
  const items = shortItems();
  const text = itemsJsonl(items).replace(/\n/g, '\r\n') + '\r\n\r\n';
  assert.deepEqual(parseItems(text, 'x.jsonl'), items);
});

test('bad lines are reported as file:line: field: problem', () => {
  const good = itemJsonLine(shortItems()[0]);
  const cases: Array<[string, RegExp]> = [
    ['{"item_id": 1}', /^f\.jsonl:2: item_id: must be a string, got a number$/],
    [good.replace('"goal": "Read the to-do note.", ', ''), /^f\.jsonl:2: goal: missing/],
    [good.replace('"step_index": 1', '"step_index": -1'), /^f\.jsonl:2: step_index: must be a non-negative integer/],
    [
      good.replace('"prefix_observations": ["[\'notes/todo.md\']"]', '"prefix_observations": []'),
      /^f\.jsonl:2: prefix_observations: has 0 entries but prefix_actions has 1/,
    ],
    [good.replace('"meta": {}', '"meta": {}, "extra": 1'), /^f\.jsonl:2: extra: unknown field/],
    ['not json', /^f\.jsonl:2: invalid JSON/],
    [good, /^f\.jsonl:2: item_id: "mine-0001-s1-a" already appears on line 1/],
  ];
  for (const [line, re] of cases) {
    assert.throws(
      () => parseItems(`${good}\n${line}\n`, 'f.jsonl'),
      (e: unknown) => e instanceof InputError && re.test((e as Error).message),
      line.slice(0, 60),
    );
  }
  assert.throws(() => parseItems('\n\n', 'empty.jsonl'), /no probe items/);
});
