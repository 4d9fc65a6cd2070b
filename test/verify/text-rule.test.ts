// Which text each family judges outside the revision loop (src/core/verify/text-rule.ts): COLLIE's
// own structures and IFEval the text as given (as COLLIE's and google-research's checkers do), the
// paper's families the stripped text; the revision loop always the stripped draft. The case from
// issue 39: a GPT-4 answer to "a sentence with exactly 109 characters" that ends in "\n\n" — 109
// characters as given (COLLIE: pass), 107 stripped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { BUILTIN_FAMILIES, getFamily, loadFamilies, verifyBatch } from '../../src/core/verify/index.ts';
import { textRuleOf, textToVerify } from '../../src/core/verify/text-rule.ts';
import { COLLIE_CODES } from '../../src/core/verify/collie/types.ts';
import { TEXT_RULE_HELP } from '../../src/cli/commands/verify.ts';
import { pyStrip } from '../../src/core/py/format.ts';
import { tempDir } from '../tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'revloop.mjs');
// 107 characters, then the two newlines the model added.
const SENTENCE = 'The old lighthouse keeper climbed the spiral stairs every evening to light the lamp for ships at sea.';
const ANSWER = SENTENCE.padEnd(107, '!') + '\n\n';

function revloop(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function batch(rows: object[], request = {}): Promise<Array<Record<string, unknown>>> {
  let out = '';
  const sink = new Writable({
    write(chunk, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  await verifyBatch(Readable.from([rows.map((r) => JSON.stringify(r) + '\n').join('')]), sink, { request });
  sink.end();
  await once(sink, 'finish');
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

test('the 109-character case: c04 counts the text as given (109, as COLLIE does), the revision loop the stripped draft (107)', async () => {
  assert.equal([...ANSWER].length, 109);
  assert.equal([...pyStrip(ANSWER)].length, 107);
  await loadFamilies(['c04']);
  const c04 = getFamily('c04');
  const c = { id: 'x', family: 'c04', source: 'test', task: 'Please generate a sentence with exactly 109 characters.', targets: 109 };
  assert.equal(textRuleOf(c04), 'as-given');
  assert.equal(c04.verify(textToVerify(c04, ANSWER), c).joint_success, true);
  // What the revision loop verifies (engine/loop.ts strips every draft): 107 characters, a failure.
  const stripped = c04.verify(pyStrip(ANSWER), c);
  assert.equal(stripped.joint_success, false);
  assert.equal(stripped.observed_character_count, 107);

  // `revloop verify` on the file as written, and with --text-rule stripped.
  const dir = tempDir('revloop-text-rule-');
  const file = join(dir, 'answer.txt');
  writeFileSync(file, ANSWER);
  const given = revloop(['verify', '--family', 'c04', '--targets', '109', '--text-file', file, '--json']);
  assert.equal(given.code, 0, given.stderr);
  assert.deepEqual(JSON.parse(given.stdout), {
    joint_success: true,
    observed_character_count: 109,
    target_character_count: 109,
    count_residual: 0,
    violation_vector: [0],
  });
  const strippedCli = revloop(['verify', '--family', 'c04', '--targets', '109', '--text-file', file, '--json', '--text-rule', 'stripped']);
  assert.equal(JSON.parse(strippedCli.stdout).observed_character_count, 107);

  // A batch row: as given by default; --text-rule stripped / as-given apply to every family.
  const row = { id: 'gpt4', family: 'c04', targets: 109, text: ANSWER };
  assert.equal((await batch([row]))[0].joint_success, true);
  assert.equal((await batch([row], { textRule: 'stripped' }))[0].observed_character_count, 107);
  const exact = { id: 'e', family: 'exact-length', target: 2, anchors: [], text: '  two words\n\n' };
  assert.equal((await batch([exact], { textRule: 'as-given' }))[0].word_count, 2, 'surrounding whitespace never changes a word count');
});

test("every built-in family's text rule: as given for COLLIE's structures and IFEval, stripped for the paper's; verify --help says so", async () => {
  await loadFamilies();
  const asGiven = new Set<string>([...COLLIE_CODES, 'ifeval']);
  for (const name of BUILTIN_FAMILIES) assert.equal(textRuleOf(getFamily(name)), asGiven.has(name) ? 'as-given' : 'stripped', name);
  // The help text lists exactly these families under each rule (it is written without loading them).
  const [strippedPart, givenPart] = TEXT_RULE_HELP.split('as given');
  for (const name of BUILTIN_FAMILIES) {
    const listed = (part: string) => new RegExp(`(^|\\s)${name}(\\s|,|$)`).test(part);
    assert.ok(asGiven.has(name) ? listed(givenPart) && !listed(strippedPart) : listed(strippedPart) && !listed(givenPart), name);
  }
  const help = revloop(['verify', '--help']);
  assert.equal(help.code, 0);
  assert.ok(help.stdout.includes(TEXT_RULE_HELP.trimEnd()), help.stdout);
  assert.match(help.stdout, /--text-rule <rule>/);
  const bad = revloop(['verify', '--family', 'c04', '--targets', '3', '--text-rule', 'raw'], 'abc');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--text-rule must be family, stripped or as-given, got 'raw'/);
});
