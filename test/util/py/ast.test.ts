import test from 'node:test';
import assert from 'node:assert/strict';
import { literalEval, parseExpression, PySyntaxError, unparse } from '../../../src/core/py/ast/index.ts';
import { pyReprValue } from '../../../src/core/py/values.ts';
import { loadFixture } from './fixtures.ts';

const { cases, python } = loadFixture('cpython-ast.json');

function observe(source: string): Record<string, unknown> {
  try {
    const node = parseExpression(source);
    const rec: Record<string, unknown> = { status: 'OK', unparse: unparse(node) };
    if (node.kind === 'Call') {
      const lit = (x: Parameters<typeof literalEval>[0]): string => {
        try {
          return 'LIT:' + pyReprValue(literalEval(x));
        } catch {
          return 'NONLIT:' + pyReprValue(unparse(x!));
        }
      };
      rec.kw = node.keywords.map((k) => [k.arg, k.arg !== null ? lit(k.value) : null]);
      rec.pos = node.args.map(lit);
    }
    return rec;
  } catch (e) {
    if (e instanceof PySyntaxError) return { status: 'ERR', msg: e.message };
    throw e;
  }
}

test(`ast.parse / literal_eval / unparse agree with CPython ${python} on ${cases.length} inputs`, () => {
  const mismatches: string[] = [];
  for (const { case: source, ...want } of cases as { case: string }[]) {
    const got = observe(source);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      mismatches.push(`${JSON.stringify(source)}\n    want ${JSON.stringify(want)}\n    got  ${JSON.stringify(got)}`);
    }
  }
  assert.equal(mismatches.length, 0, mismatches.join('\n'));
});

test('SyntaxError messages for typical model outputs', () => {
  const msg = (s: string): string => {
    try {
      parseExpression(s);
      return 'OK';
    } catch (e) {
      return (e as Error).message;
    }
  };
  assert.equal(msg('I will now call find_contact.'), 'invalid syntax');
  assert.equal(msg("find_contact(name='Dana"), 'unterminated string literal (detected at line 1)');
  assert.equal(msg("find_contact(name='Dana'"), "'(' was never closed");
  assert.equal(msg("find_contact(name='Dana'))"), "unmatched ')'");
  assert.equal(msg("f(a='x' b='y')"), 'invalid syntax. Perhaps you forgot a comma?');
  assert.equal(msg('f(a — b)'), "invalid character '—' (U+2014)");
  assert.equal(msg('f(a=1, 2)'), 'positional argument follows keyword argument');
});

test('random call-like junk: agreement with CPython of at least 99.5% (2000 inputs)', () => {
  const { cases: junk } = loadFixture('cpython-ast-random.json');
  const mismatches: string[] = [];
  for (const { case: source, ...want } of junk as { case: string }[]) {
    const got = observe(source);
    if (JSON.stringify(got) !== JSON.stringify(want))
      mismatches.push(`${JSON.stringify(source)}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
  }
  assert.ok(mismatches.length <= junk.length * 0.005, `${mismatches.length} mismatches:\n${mismatches.join('\n')}`);
});
