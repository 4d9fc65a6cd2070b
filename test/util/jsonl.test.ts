// JSON Lines input: line numbers, CRLF, blank lines, and a UTF-8 byte-order mark before line 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseItems } from '../../src/envs/items/item-file.ts';
import { itemsJsonl } from '../../src/studies/probe/items.ts';
import { readJsonlLines } from '../../src/core/util/jsonl.ts';
import { shortItems } from '../probe/fixtures.ts';
import { tempDir } from '../tmp.ts';

async function lines(text: string) {
  const out = [];
  for await (const l of readJsonlLines(Readable.from([Buffer.from(text, 'utf8')]))) out.push(l);
  return out;
}

test('a byte-order mark before the first line is not part of the JSON; line numbers count blank lines', async () => {
  const got = await lines('\uFEFF{"a": 1}\r\n\r\n{"b": "é"}\r\n');
  assert.deepEqual(
    got.map((l) => [l.line, l.value, l.error]),
    [
      [1, { a: 1 }, undefined],
      [3, { b: 'é' }, undefined],
    ],
  );
  // Only the file's first character: a mark inside the file is still bad input.
  const inner = await lines('{"a": 1}\n\uFEFF{"b": 2}\n');
  assert.match(inner[1].error ?? '', /invalid JSON/);
});

test('a case file and a probe item file saved with a byte-order mark read as without one', async () => {
  const dir = tempDir('revloop-bom-');
  const file = join(dir, 'cases.jsonl');
  writeFileSync(
    file,
    '\uFEFF{"id": "k", "family": "exact-length", "source": "mine", "instruction": "Say hi.", "target": 2, "anchors": []}\r\n',
  );
  const { loadCaseSet } = await import('../../src/core/cases/index.ts');
  const set = await loadCaseSet(file);
  assert.deepEqual(
    set.cases.map((c) => c.id),
    ['k'],
  );
  assert.deepEqual(
    parseItems('\uFEFF' + itemsJsonl(shortItems()), 'items.jsonl').map((i) => i.item_id),
    shortItems().map((i) => i.item_id),
  );
});
