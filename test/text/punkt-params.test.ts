// Loading Punkt parameters (english.json and punkt_tab folders), the resolution chain, and the
// messages people see when the data is missing or malformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireShared } from '../helpers.ts';
import { loadPunktParams, resolvePunkt, sentTokenize, wordTokenize } from '../../src/core/text/index.ts';
import { punktCandidates } from '../../src/core/text/punkt-resolve.ts';
import { punktTabFiles, PUNKT_TAB_FILES } from '../../src/core/text/punkt-params.ts';
import { codePointCompare } from '../../src/core/text/punkt-params.ts';
import { UserError } from '../../src/core/errors.ts';
import { tempDir } from '../tmp.ts';

const shared = requireShared('punkt', 'english.json');
const root = tempDir('revloop-punkt-');

function writeTab(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

test('english.json loads with the published counts', { skip: shared.skip }, () => {
  const p = loadPunktParams(shared.path!);
  assert.equal(p.abbrevTypes.size, 156);
  assert.equal(p.collocations.size, 37);
  assert.equal(p.sentStarters.size, 39);
  assert.equal(p.orthoContext.size, 20366);
  assert.ok(p.abbrevTypes.has('u.s') && p.sentStarters.has('however') && p.collocations.has('##number##\tbusiness'));
});

test('a punkt_tab folder round-trips: same parameters, same sentences and words', { skip: shared.skip }, () => {
  const fromJson = loadPunktParams(shared.path!);
  const dir = writeTab(join(root, 'tab', 'punkt_tab', 'english'), punktTabFiles(fromJson));
  for (const path of [dir, join(root, 'tab', 'punkt_tab')]) {
    const fromTab = loadPunktParams(path);
    assert.deepEqual([...fromTab.abbrevTypes].sort(), [...fromJson.abbrevTypes].sort());
    assert.deepEqual([...fromTab.collocations].sort(), [...fromJson.collocations].sort());
    assert.deepEqual([...fromTab.sentStarters].sort(), [...fromJson.sentStarters].sort());
    assert.deepEqual(new Map([...fromTab.orthoContext].sort()), new Map([...fromJson.orthoContext].sort()));
    const text = 'Dr. Watson arrived at 5 p.m. on Jan. 3. Holmes, however, was out.\n\nThe U.S. Army? No.';
    assert.deepEqual(sentTokenize(text, fromTab), sentTokenize(text, fromJson));
    assert.deepEqual(wordTokenize(text, fromTab), wordTokenize(text, fromJson));
  }
  // CRLF line ends (files edited on Windows) load the same.
  const crlf = Object.fromEntries(Object.entries(punktTabFiles(fromJson)).map(([n, c]) => [n, c.replace(/\n/g, '\r\n') + '\r\n']));
  assert.deepEqual(loadPunktParams(writeTab(join(root, 'crlf'), crlf)).orthoContext.size, fromJson.orthoContext.size);
});

test('malformed parameter files are reported with file, line and field', () => {
  const good = { 'abbrev_types.txt': 'mr', 'collocations.tab': 'a\tb', 'ortho_context.tab': 'the\t34', 'sent_starters.txt': 'the' };
  const badOrtho = writeTab(join(root, 'bad1'), { ...good, 'ortho_context.tab': 'the\t34\nfoo\tbar' });
  assert.throws(
    () => loadPunktParams(badOrtho),
    (e: Error) => e instanceof UserError && /ortho_context\.tab:2: flags: expected an integer, got "bar"/.test(e.message),
  );
  const badColl = writeTab(join(root, 'bad2'), { ...good, 'collocations.tab': 'a b' });
  assert.throws(() => loadPunktParams(badColl), /collocations\.tab:1: expected two tab-separated fields/);
  const missing = writeTab(join(root, 'bad3'), { 'abbrev_types.txt': 'mr' });
  assert.throws(() => loadPunktParams(missing), /(collocations|ortho_context)\.tab: missing \(a punkt_tab folder holds abbrev_types\.txt/);
  const json = join(root, 'bad.json');
  writeFileSync(json, JSON.stringify({ abbrev_types: ['mr'], collocations: [['a']], sent_starters: [], ortho_context: {} }));
  assert.throws(() => loadPunktParams(json), /bad\.json: collocations: expected a list of \[type, type\] pairs/);
  writeFileSync(json, '{not json');
  assert.throws(() => loadPunktParams(json), /bad\.json: not valid JSON/);
  assert.throws(() => loadPunktParams(join(root, 'nope')), /Punkt parameters not found: .*nope/);
  assert.equal(PUNKT_TAB_FILES.length, 4);
});

test('resolution chain: explicit path, $REVLOOP_PUNKT, fetched copy, shared data, else a helpful error', () => {
  const dataDir = join(root, 'data');
  const fetched = writeTab(join(dataDir, 'punkt_tab', 'english'), {
    'abbrev_types.txt': 'mr',
    'collocations.tab': '',
    'ortho_context.tab': '',
    'sent_starters.txt': '',
  });
  const envOnly = writeTab(join(root, 'envdir'), {
    'abbrev_types.txt': 'dr',
    'collocations.tab': '',
    'ortho_context.tab': '',
    'sent_starters.txt': '',
  });
  const env = { REVLOOP_DATA_DIR: dataDir, REVLOOP_PUNKT: envOnly };
  assert.deepEqual(punktCandidates('/explicit/x.json', { env, sharedFile: '/s.json' }), [{ origin: 'explicit', path: '/explicit/x.json' }]);
  assert.deepEqual(
    punktCandidates(null, { env, sharedFile: '/s.json' }).map((c) => c.origin),
    ['REVLOOP_PUNKT', 'fetched', 'shared'],
  );
  assert.ok(resolvePunkt(null, { env, sharedFile: null }).abbrevTypes.has('dr'));
  assert.equal(resolvePunkt(null, { env: { REVLOOP_DATA_DIR: dataDir }, sharedFile: null }).source, fetched);
  assert.throws(
    () => resolvePunkt(null, { env: { REVLOOP_DATA_DIR: join(root, 'empty') }, sharedFile: null }),
    (e: Error) => e instanceof UserError && /revloop data fetch punkt/.test(e.message) && /name them with punkt \(/.test(e.message),
  );
  assert.throws(() => resolvePunkt(join(root, 'missing.json')), /Punkt parameters not found at .*missing\.json \(from punkt\)/);
  assert.throws(() => resolvePunkt(null, { env: { REVLOOP_PUNKT: join(root, 'gone') }, sharedFile: null }), /\(from \$REVLOOP_PUNKT\)/);
});

test('codePointCompare orders like Python (astral characters after U+FFFF)', () => {
  assert.deepEqual(['\uffff', '\u{10000}', 'a', ''].sort(codePointCompare), ['', 'a', '\uffff', '\u{10000}']);
});

test('english.json: an orthographic-context value that is not an integer is reported when read, naming the file and the type', () => {
  const dir = tempDir('punkt-json');
  const json = join(dir, 'english.json');
  writeFileSync(
    json,
    JSON.stringify({ abbrev_types: ['mr'], collocations: [], sent_starters: [], ortho_context: { the: 34, odd: 'x', constructor: 2 } }),
  );
  const p = loadPunktParams(json);
  assert.equal(p.orthoContext.get('the'), 34);
  assert.equal(p.orthoContext.get('constructor'), 2, 'an own "constructor" entry is an entry');
  assert.equal(p.orthoContext.get('toString'), undefined, "Object.prototype's members are not entries");
  assert.equal(p.orthoContext.get('missing'), undefined);
  assert.throws(
    () => p.orthoContext.get('odd'),
    (e: Error) =>
      e instanceof UserError && e.message.includes(json) && /ortho_context.*"odd": expected an integer, got "x"/.test(e.message),
  );
});
