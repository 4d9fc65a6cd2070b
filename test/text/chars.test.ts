// The lookup tables behind the hot-path scanners agree with the regex classes they replace, for
// every BMP code point: Python `\w` (chars.ts) and Python `\s` (core/py/format.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bmpWordTable, PY_WORD_CHAR, wordCharBefore, wordCharLength } from '../../src/core/text/chars.ts';
import { isPySpaceCode, PY_SPACE_CLASS, PY_SPACE_CODES, pyStrip } from '../../src/core/py/format.ts';

test('the \\w table equals the regex class [\\p{L}\\p{N}_] on every BMP code point (surrogates: 0)', () => {
  const table = bmpWordTable();
  const re = new RegExp(`^${PY_WORD_CHAR}$`, 'u');
  const wrong: number[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const want = c >= 0xd800 && c <= 0xdfff ? 0 : re.test(String.fromCharCode(c)) ? 1 : 0;
    if (table[c] !== want) wrong.push(c);
  }
  assert.deepEqual(wrong, []);
});

test('word characters across surrogate pairs: an astral letter is one \\w of length 2; a lone surrogate is not \\w', () => {
  const s = 'a\u{10400}\ud800b\udc00';
  assert.equal(wordCharLength(s, 1), 2); // Deseret capital letter
  assert.equal(wordCharLength(s, 3), 0); // lone high surrogate
  assert.equal(wordCharLength(s, 5), 0); // lone low surrogate
  assert.equal(wordCharBefore(s, 3), true);
  assert.equal(wordCharBefore(s, 4), false);
  assert.equal(wordCharBefore(s, 6), false);
  assert.equal(wordCharLength(s, 99), 0);
});

test('Python whitespace: the code list, the scanner test and the regex class agree on every BMP code point', () => {
  const re = new RegExp(`^${PY_SPACE_CLASS}$`, 'u');
  for (let c = 0; c < 0x10000; c++) {
    const want = re.test(String.fromCharCode(c));
    assert.equal(isPySpaceCode(c), want, `U+${c.toString(16)}`);
    assert.equal(PY_SPACE_CODES.includes(c), want, `U+${c.toString(16)}`);
  }
  assert.equal(pyStrip('\u0085\u00a0 x\u3000y \u001c\n'), 'x\u3000y');
  assert.equal(pyStrip('\ufeffx'), '\ufeffx', 'U+FEFF is not Python whitespace');
});
