// `ast.parse(text, mode="eval")` for Python expressions, with CPython 3.11's way of choosing the
// SyntaxError message: tokenizer errors win; otherwise a second pass with the "invalid_*" grammar
// rules looks for a specific message ("invalid syntax. Perhaps you forgot a comma?", "positional
// argument follows keyword argument", …); otherwise "'(' was never closed" or "invalid syntax".
// The grammar is CPython's expression grammar; the second pass reproduces the common invalid_*
// rules, not all of them (see docs/toolshed.md for the known differences).
import type { Comprehension, Expr, Keyword, LambdaArgs, LambdaParam } from './nodes.ts';
import { tokenize, type Token, type TokenStream } from './tokenize.ts';
import { decodeStringToken, LiteralError, splitFString, type FStringPart } from './strings.ts';
import { PyBytes, PyComplex, PyEllipsis, type PyValue } from '../values.ts';

/** A Python SyntaxError: `message` is CPython's `exc.msg`. */
export class PySyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PySyntaxError';
  }
}

const KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

/** CPython 3.11 matches soft keywords with strncmp(keyword, token, len(token)), so prefixes count. */
function isSoftKeywordToken(text: string): boolean {
  return ['_', 'case', 'match'].some((k) => text.length > 0 && k.startsWith(text) && (k !== '_' || text === '_'));
}

class ParseFail extends Error {}
class TokenizerSignal extends Error {}

const COMPARE_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  pos = 0;
  maxFetched = -1;
  /** call_invalid_rules: the second pass enables the invalid_* alternatives. */
  invalid: boolean;
  private memo = new Map<string, { node: Expr; end: number } | null>();

  constructor(
    private readonly stream: TokenStream,
    secondPass: boolean,
  ) {
    this.invalid = secondPass;
  }

  // ---- token access -------------------------------------------------------------------------

  tok(i = this.pos): Token {
    if (i > this.maxFetched) this.maxFetched = i;
    const t = this.stream.tokens[i];
    if (t) return t;
    if (this.stream.error) throw new TokenizerSignal(this.stream.error.message);
    return this.stream.tokens[this.stream.tokens.length - 1];
  }

  fail(): never {
    throw new ParseFail();
  }

  isOp(text: string, i = this.pos): boolean {
    const t = this.tok(i);
    return t.type === 'OP' && t.text === text;
  }

  isKw(text: string, i = this.pos): boolean {
    const t = this.tok(i);
    return t.type === 'NAME' && t.text === text;
  }

  eatOp(text: string): boolean {
    if (this.isOp(text)) {
      this.pos++;
      return true;
    }
    return false;
  }

  eatKw(text: string): boolean {
    if (this.isKw(text)) {
      this.pos++;
      return true;
    }
    return false;
  }

  expectOp(text: string): void {
    if (!this.eatOp(text)) this.fail();
  }

  /** Try `fn`; on a plain parse failure restore the position and return null. */
  attempt<T>(fn: () => T): T | null {
    const save = this.pos;
    try {
      return fn();
    } catch (e) {
      if (e instanceof ParseFail) {
        this.pos = save;
        return null;
      }
      throw e;
    }
  }

  withoutInvalid<T>(fn: () => T): T {
    const prev = this.invalid;
    this.invalid = false;
    try {
      return fn();
    } finally {
      this.invalid = prev;
    }
  }

  isName(i = this.pos): boolean {
    const t = this.tok(i);
    return t.type === 'NAME' && !KEYWORDS.has(t.text);
  }

  // ---- entry ----------------------------------------------------------------------------------

  parseEval(): Expr {
    const e = this.expressions();
    while (this.tok().type === 'NEWLINE') this.pos++;
    if (this.tok().type !== 'ENDMARKER') this.fail();
    return e;
  }

  expressions(): Expr {
    const first = this.expression();
    if (!this.isOp(',')) return first;
    const elts = [first];
    while (this.eatOp(',')) {
      const e = this.attempt(() => this.expression());
      if (!e) break;
      elts.push(e);
    }
    return { kind: 'Tuple', elts };
  }

  // ---- expressions ----------------------------------------------------------------------------

  expression(): Expr {
    if (this.invalid) this.invalidExpression();
    if (this.isKw('lambda')) return this.lambdef();
    const a = this.disjunction();
    const save = this.pos;
    if (this.eatKw('if')) {
      const rest = this.attempt(() => {
        const test = this.disjunction();
        if (!this.eatKw('else')) this.fail();
        const orelse = this.expression();
        return { test, orelse };
      });
      if (rest) return { kind: 'IfExp', test: rest.test, body: a, orelse: rest.orelse };
      this.pos = save;
    }
    return a;
  }

  /** invalid_expression and invalid_legacy_expression (second pass only). */
  invalidExpression(): void {
    const start = this.pos;
    const t0 = this.tok();
    // Keywords are not NAME tokens in CPython, so only a plain name makes it look one token further.
    const isName = this.isName();
    const t1 = isName ? this.tok(start + 1) : null;
    // !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid
    if (!(isName && (t1?.type === 'STRING' || isSoftKeywordToken(t0.text)))) {
      const hit = this.attempt(() => {
        const a = this.disjunction();
        this.withoutInvalid(() => this.expressionWithoutInvalid());
        return a;
      });
      if (hit) {
        const legacy = hit.kind === 'Name' && (hit.id === 'print' || hit.id === 'exec');
        if (!legacy && this.tok(this.pos - 1).level > 0) {
          throw new PySyntaxError('invalid syntax. Perhaps you forgot a comma?');
        }
      }
      this.pos = start;
    }
    // a=disjunction 'if' b=disjunction !('else'|':')
    this.attempt(() => {
      this.disjunction();
      if (!this.eatKw('if')) this.fail();
      this.disjunction();
      if (!this.isKw('else') && !this.isOp(':')) throw new PySyntaxError("expected 'else' after 'if' expression");
      this.fail();
    });
    this.pos = start;
    // invalid_legacy_expression: a=NAME !'(' b=star_expressions. The star_expressions parse runs
    // with the invalid rules on, so it can itself raise (e.g. "c + d e" reports the comma at "+d e").
    if (this.isName()) {
      this.attempt(() => {
        this.pos++;
        if (this.isOp('(')) this.fail();
        this.starExpressions();
        if (t0.text === 'print' || t0.text === 'exec') {
          throw new PySyntaxError(`Missing parentheses in call to '${t0.text}'. Did you mean ${t0.text}(...)?`);
        }
        this.fail();
      });
      this.pos = start;
    }
  }

  expressionWithoutInvalid(): Expr {
    return this.expression();
  }

  namedExpression(): Expr {
    if (this.isName() && this.isOp(':=', this.pos + 1)) {
      const assignment = this.attempt((): Expr => {
        const target: Expr = { kind: 'Name', id: this.nameId(this.tok()) };
        this.pos += 2;
        return { kind: 'NamedExpr', target, value: this.expression() };
      });
      if (assignment) return assignment;
    }
    if (this.invalid) this.invalidNamedExpression();
    const e = this.expression();
    if (this.isOp(':=')) this.fail();
    return e;
  }

  /** invalid_named_expression (second pass only). */
  invalidNamedExpression(): void {
    const start = this.pos;
    // a=expression ':=' expression
    this.attempt(() => {
      const a = this.expression();
      if (!this.eatOp(':=')) this.fail();
      this.expression();
      throw new PySyntaxError(`cannot use assignment expressions with ${exprName(a)}`);
    });
    this.pos = start;
    // a=NAME '=' b=bitwise_or !('='|':=')
    if (this.isName() && this.isOp('=', start + 1)) {
      this.attempt(() => {
        this.pos += 2;
        this.bitwiseOr();
        if (this.isOp('=') || this.isOp(':=')) this.fail();
        throw new PySyntaxError("invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
      });
      this.pos = start;
    }
    // !(list|tuple|genexp|'True'|'None'|'False') a=bitwise_or b='=' bitwise_or !('='|':=')
    const excluded =
      this.isKw('True') ||
      this.isKw('None') ||
      this.isKw('False') ||
      (this.isOp('[') && this.attempt(() => this.listAtom()) !== null) ||
      (this.isOp('(') && this.attempt(() => this.parenTupleOrGenexp()) !== null);
    this.pos = start;
    if (!excluded) {
      this.attempt(() => {
        const a = this.bitwiseOr();
        if (!this.eatOp('=')) this.fail();
        this.bitwiseOr();
        if (this.isOp('=') || this.isOp(':=')) this.fail();
        throw new PySyntaxError(`cannot assign to ${exprName(a)} here. Maybe you meant '==' instead of '='?`);
      });
      this.pos = start;
    }
  }

  /** The tuple or genexp alternatives of a parenthesised atom (not a plain group). */
  parenTupleOrGenexp(): Expr {
    const e = this.parenAtom();
    if (e.kind !== 'Tuple' && e.kind !== 'GeneratorExp') this.fail();
    return e;
  }

  starNamedExpression(): Expr {
    if (this.eatOp('*')) return { kind: 'Starred', value: this.bitwiseOr() };
    return this.namedExpression();
  }

  disjunction(): Expr {
    const key = `d:${this.pos}:${this.invalid ? 1 : 0}`;
    if (this.memo.has(key)) {
      const m = this.memo.get(key);
      if (!m) this.fail();
      this.pos = m.end;
      return m.node;
    }
    const start = this.pos;
    try {
      const first = this.conjunction();
      const values = [first];
      for (;;) {
        const next = this.attempt(() => {
          if (!this.eatKw('or')) this.fail();
          return this.conjunction();
        });
        if (!next) break;
        values.push(next);
      }
      const node: Expr = values.length > 1 ? { kind: 'BoolOp', op: 'or', values } : first;
      this.memo.set(key, { node, end: this.pos });
      return node;
    } catch (e) {
      if (e instanceof ParseFail) {
        this.memo.set(key, null);
        this.pos = start;
      }
      throw e;
    }
  }

  conjunction(): Expr {
    const first = this.inversion();
    const values = [first];
    for (;;) {
      const next = this.attempt(() => {
        if (!this.eatKw('and')) this.fail();
        return this.inversion();
      });
      if (!next) break;
      values.push(next);
    }
    return values.length > 1 ? { kind: 'BoolOp', op: 'and', values } : first;
  }

  inversion(): Expr {
    if (this.eatKw('not')) return { kind: 'UnaryOp', op: 'not', operand: this.inversion() };
    return this.comparison();
  }

  comparison(): Expr {
    const left = this.bitwiseOr();
    const ops: string[] = [];
    const comparators: Expr[] = [];
    for (;;) {
      const save = this.pos;
      const t = this.tok();
      let op: string | null = null;
      if (t.type === 'OP' && COMPARE_OPS.has(t.text)) {
        op = t.text;
        this.pos++;
      } else if (this.isKw('in')) {
        op = 'in';
        this.pos++;
      } else if (this.isKw('not') && this.isKw('in', this.pos + 1)) {
        op = 'not in';
        this.pos += 2;
      } else if (this.isKw('is')) {
        this.pos++;
        op = this.eatKw('not') ? 'is not' : 'is';
      }
      if (!op) break;
      const right = this.attempt(() => this.bitwiseOr());
      if (!right) {
        // PEG: the longer alternative fails, the shorter comparison stands.
        this.pos = save;
        break;
      }
      ops.push(op);
      comparators.push(right);
    }
    return ops.length ? { kind: 'Compare', left, ops, comparators } : left;
  }

  private binary(next: () => Expr, ops: string[]): Expr {
    let left = next();
    for (;;) {
      const save = this.pos;
      const t = this.tok();
      if (t.type !== 'OP' || !ops.includes(t.text)) return left;
      this.pos++;
      const right = this.attempt(next);
      if (!right) {
        // PEG: `a * <nothing>` is just `a`, with the operator left for the caller.
        this.pos = save;
        return left;
      }
      left = { kind: 'BinOp', op: t.text, left, right };
    }
  }

  bitwiseOr(): Expr {
    return this.binary(() => this.bitwiseXor(), ['|']);
  }
  bitwiseXor(): Expr {
    return this.binary(() => this.bitwiseAnd(), ['^']);
  }
  bitwiseAnd(): Expr {
    return this.binary(() => this.shiftExpr(), ['&']);
  }
  shiftExpr(): Expr {
    return this.binary(() => this.sum(), ['<<', '>>']);
  }
  sum(): Expr {
    return this.binary(() => this.term(), ['+', '-']);
  }
  term(): Expr {
    return this.binary(() => this.factor(), ['*', '/', '//', '%', '@']);
  }

  factor(): Expr {
    const t = this.tok();
    if (t.type === 'OP' && (t.text === '+' || t.text === '-' || t.text === '~')) {
      this.pos++;
      return { kind: 'UnaryOp', op: t.text, operand: this.factor() };
    }
    return this.power();
  }

  power(): Expr {
    const base = this.awaitPrimary();
    const right = this.attempt(() => {
      this.expectOp('**');
      return this.factor();
    });
    return right ? { kind: 'BinOp', op: '**', left: base, right } : base;
  }

  awaitPrimary(): Expr {
    if (this.eatKw('await')) return { kind: 'Await', value: this.primary() };
    return this.primary();
  }

  primary(): Expr {
    let e = this.atom();
    // Left-recursive in CPython's grammar: each trailer either parses completely or the shorter
    // primary stands.
    for (;;) {
      const base: Expr = e;
      let next: Expr | null = null;
      if (this.isOp('.')) {
        next = this.attempt(() => {
          this.pos++;
          if (!this.isName()) this.fail();
          const attr = this.nameId(this.tok());
          this.pos++;
          return { kind: 'Attribute' as const, value: base, attr };
        });
      } else if (this.isOp('(')) {
        const gen = this.attempt(() => this.genexp());
        next = gen
          ? { kind: 'Call', func: base, args: [gen], keywords: [] }
          : this.attempt(() => {
              this.pos++;
              const { args, keywords } = this.callArguments();
              return { kind: 'Call' as const, func: base, args, keywords };
            });
      } else if (this.isOp('[')) {
        next = this.attempt(() => {
          this.pos++;
          const slice = this.slices();
          this.expectOp(']');
          return { kind: 'Subscript' as const, value: base, slice };
        });
      }
      if (!next) return e;
      e = next;
    }
  }

  slices(): Expr {
    const first = this.attempt(() => {
      const s = this.slice();
      if (this.isOp(',')) this.fail();
      return s;
    });
    if (first) return first;
    const elts: Expr[] = [];
    do {
      if (this.isOp(']')) break;
      elts.push(this.isOp('*') ? this.starredExpression() : this.slice());
    } while (this.eatOp(','));
    if (!elts.length) this.fail();
    return { kind: 'Tuple', elts };
  }

  slice(): Expr {
    const withColon = this.attempt(() => {
      const lower = this.attempt(() => this.expression());
      this.expectOp(':');
      const upper = this.attempt(() => this.expression());
      let step: Expr | null = null;
      if (this.eatOp(':')) step = this.attempt(() => this.expression());
      return { kind: 'Slice' as const, lower, upper, step };
    });
    return withColon ?? this.namedExpression();
  }

  starredExpression(): Expr {
    this.expectOp('*');
    return { kind: 'Starred', value: this.expression() };
  }

  // ---- call arguments ------------------------------------------------------------------------

  /** After '(': arguments and the closing ')'. */
  callArguments(): { args: Expr[]; keywords: Keyword[] } {
    if (this.eatOp(')')) return { args: [], keywords: [] };
    const start = this.pos;
    const normal = this.attempt(() => {
      const r = this.args();
      this.eatOp(',');
      if (!this.isOp(')')) this.fail();
      this.pos++;
      return r;
    });
    if (normal) return normal;
    if (this.invalid) {
      this.pos = start;
      this.invalidArguments();
    }
    this.fail();
  }

  args(): { args: Expr[]; keywords: Keyword[] } {
    const args: Expr[] = [];
    const keywords: Keyword[] = [];
    // ','.(starred_expression | (assignment_expression | expression !':=') !'=')+ [',' kwargs] | kwargs
    const first = this.attempt(() => this.positionalItem());
    if (first) {
      args.push(first);
      for (;;) {
        const more = this.attempt(() => {
          this.expectOp(',');
          return this.positionalItem();
        });
        if (!more) break;
        args.push(more);
      }
      const kw = this.attempt(() => {
        this.expectOp(',');
        return this.kwargs();
      });
      if (kw) {
        args.push(...kw.starred);
        keywords.push(...kw.keywords);
      }
      return { args, keywords };
    }
    const kw = this.kwargs();
    args.push(...kw.starred);
    keywords.push(...kw.keywords);
    return { args, keywords };
  }

  positionalItem(): Expr {
    if (this.isOp('*')) return this.starredExpression();
    let e: Expr;
    if (this.isName() && this.isOp(':=', this.pos + 1)) {
      e = this.namedExpression();
    } else {
      e = this.expression();
      if (this.isOp(':=')) this.fail();
    }
    if (this.isOp('=')) this.fail();
    return e;
  }

  /** kwarg_or_starred items, then kwarg_or_double_starred items (starred ones go to args). */
  kwargs(): { starred: Expr[]; keywords: Keyword[] } {
    const starred: Expr[] = [];
    const keywords: Keyword[] = [];
    let sawDouble = false;
    const item = (): void => {
      if (this.invalid) this.invalidKwarg();
      if (this.isName() && this.isOp('=', this.pos + 1)) {
        const arg = this.nameId(this.tok());
        this.pos += 2;
        keywords.push({ arg, value: this.expression() });
      } else if (!sawDouble && this.isOp('*')) {
        starred.push(this.starredExpression());
      } else if (this.eatOp('**')) {
        keywords.push({ arg: null, value: this.expression() });
        sawDouble = true;
      } else {
        this.fail();
      }
    };
    item();
    for (;;) {
      const nStarred = starred.length;
      const nKeywords = keywords.length;
      const before = sawDouble;
      const ok = this.attempt(() => {
        this.expectOp(',');
        item();
        return true;
      });
      if (!ok) {
        starred.length = nStarred;
        keywords.length = nKeywords;
        sawDouble = before;
        break;
      }
    }
    return { starred, keywords };
  }

  invalidKwarg(): void {
    const start = this.pos;
    const t = this.tok();
    if (t.type === 'NAME' && (t.text === 'True' || t.text === 'False' || t.text === 'None') && this.isOp('=', start + 1)) {
      throw new PySyntaxError(`cannot assign to ${t.text}`);
    }
    if (this.isName() && this.isOp('=', start + 1)) {
      this.attempt(() => {
        this.pos += 2;
        this.expression();
        if (this.isKw('for') || (this.isKw('async') && this.isKw('for', this.pos + 1))) {
          this.forIfClauses();
          throw new PySyntaxError("invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
        }
        this.fail();
      });
      this.pos = start;
      return;
    }
    // !(NAME '=') a=expression b='='
    this.attempt(() => {
      this.expression();
      if (this.isOp('=')) throw new PySyntaxError('expression cannot contain assignment, perhaps you meant "=="?');
      this.fail();
    });
    this.pos = start;
  }

  invalidArguments(): void {
    const start = this.pos;
    const restore = (): void => {
      this.pos = start;
    };
    // a=args ',' '*'
    this.attempt(() => {
      const a = this.args();
      this.expectOp(',');
      if (this.isOp('*') && a.keywords.some((k) => k.arg === null)) {
        throw new PySyntaxError('iterable argument unpacking follows keyword argument unpacking');
      }
      this.fail();
    });
    restore();
    // a=expression b=for_if_clauses ',' [args | expression for_if_clauses]
    this.attempt(() => {
      this.expression();
      this.forIfClauses();
      this.expectOp(',');
      throw new PySyntaxError('Generator expression must be parenthesized');
    });
    restore();
    // a=NAME b='=' expression for_if_clauses
    this.attempt(() => {
      if (!this.isName() || !this.isOp('=', this.pos + 1)) this.fail();
      this.pos += 2;
      this.expression();
      this.forIfClauses();
      throw new PySyntaxError("invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
    });
    restore();
    // a=args b=for_if_clauses
    this.attempt(() => {
      const a = this.args();
      this.forIfClauses();
      if (a.args.length > 1) throw new PySyntaxError('Generator expression must be parenthesized');
      this.fail();
    });
    restore();
    // args ',' a=expression b=for_if_clauses
    this.attempt(() => {
      this.args();
      this.expectOp(',');
      this.expression();
      this.forIfClauses();
      throw new PySyntaxError('Generator expression must be parenthesized');
    });
    restore();
    // a=args ',' args
    this.attempt(() => {
      const a = this.args();
      this.expectOp(',');
      this.args();
      throw new PySyntaxError(
        a.keywords.some((k) => k.arg === null)
          ? 'positional argument follows keyword argument unpacking'
          : 'positional argument follows keyword argument',
      );
    });
    restore();
  }

  // ---- comprehensions -------------------------------------------------------------------------

  forIfClauses(): Comprehension[] {
    const gens: Comprehension[] = [];
    for (;;) {
      let isAsync = false;
      if (this.isKw('async') && this.isKw('for', this.pos + 1)) {
        isAsync = true;
        this.pos++;
      }
      if (!this.eatKw('for')) break;
      const target = this.starTargets();
      if (!this.eatKw('in')) this.fail();
      const iter = this.disjunction();
      const ifs: Expr[] = [];
      while (this.eatKw('if')) ifs.push(this.disjunction());
      gens.push({ target, iter, ifs, isAsync });
    }
    if (!gens.length) this.fail();
    return gens;
  }

  starTargets(): Expr {
    const one = (): Expr => (this.eatOp('*') ? { kind: 'Starred', value: this.bitwiseOr() } : this.bitwiseOr());
    const first = one();
    if (!this.isOp(',')) return first;
    const elts = [first];
    while (this.eatOp(',')) {
      if (this.isKw('in')) break;
      elts.push(one());
    }
    return { kind: 'Tuple', elts };
  }

  genexp(): Expr {
    this.expectOp('(');
    let elt: Expr;
    if (this.isName() && this.isOp(':=', this.pos + 1)) elt = this.namedExpression();
    else {
      elt = this.expression();
      if (this.isOp(':=')) this.fail();
    }
    const generators = this.forIfClauses();
    this.expectOp(')');
    return { kind: 'GeneratorExp', elt, generators };
  }

  // ---- atoms ----------------------------------------------------------------------------------

  nameId(t: Token): string {
    return t.text.normalize('NFKC');
  }

  atom(): Expr {
    const t = this.tok();
    if (t.type === 'NAME') {
      if (t.text === 'True' || t.text === 'False' || t.text === 'None') {
        this.pos++;
        return { kind: 'Constant', value: t.text === 'None' ? null : t.text === 'True' };
      }
      if (KEYWORDS.has(t.text)) this.fail();
      this.pos++;
      return { kind: 'Name', id: this.nameId(t) };
    }
    if (t.type === 'NUMBER') {
      this.pos++;
      return { kind: 'Constant', value: parseNumber(t.text) };
    }
    if (t.type === 'STRING') return this.strings();
    if (t.type === 'OP') {
      if (t.text === '...') {
        this.pos++;
        return { kind: 'Constant', value: PyEllipsis };
      }
      if (t.text === '(') return this.parenAtom();
      if (t.text === '[') return this.listAtom();
      if (t.text === '{') return this.braceAtom();
    }
    return this.fail();
  }

  parenAtom(): Expr {
    const start = this.pos;
    // tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'
    const tuple = this.attempt((): Expr => {
      this.expectOp('(');
      if (this.eatOp(')')) return { kind: 'Tuple', elts: [] };
      const elts = [this.starNamedExpression()];
      this.expectOp(',');
      while (!this.isOp(')')) {
        elts.push(this.starNamedExpression());
        if (!this.eatOp(',')) break;
      }
      this.expectOp(')');
      return { kind: 'Tuple', elts };
    });
    if (tuple) return tuple;
    // group: '(' (yield_expr | named_expression) ')'
    const group = this.attempt((): Expr => {
      this.expectOp('(');
      const e = this.isKw('yield') ? this.yieldExpr() : this.namedExpression();
      this.expectOp(')');
      return e;
    });
    if (group) return group;
    if (this.invalid) {
      // invalid_group: '(' starred_expression ')' | '(' '**' expression ')'
      this.attempt(() => {
        this.expectOp('(');
        if (this.isOp('*')) {
          this.starredExpression();
          this.expectOp(')');
          throw new PySyntaxError('cannot use starred expression here');
        }
        this.expectOp('**');
        this.expression();
        this.expectOp(')');
        throw new PySyntaxError('cannot use double starred expression here');
      });
    }
    this.pos = start;
    return this.genexp();
  }

  yieldExpr(): Expr {
    this.pos++; // 'yield'
    if (this.eatKw('from')) return { kind: 'YieldFrom', value: this.expression() };
    const value = this.attempt(() => this.starExpressions());
    return { kind: 'Yield', value };
  }

  starExpressions(): Expr {
    const one = (): Expr => (this.eatOp('*') ? { kind: 'Starred', value: this.bitwiseOr() } : this.expression());
    const first = one();
    if (!this.isOp(',')) return first;
    const elts = [first];
    while (this.eatOp(',')) {
      const e = this.attempt(one);
      if (!e) break;
      elts.push(e);
    }
    return { kind: 'Tuple', elts };
  }

  listAtom(): Expr {
    const start = this.pos;
    const list = this.attempt((): Expr => {
      this.expectOp('[');
      const elts: Expr[] = [];
      while (!this.isOp(']')) {
        elts.push(this.starNamedExpression());
        if (!this.eatOp(',')) break;
      }
      this.expectOp(']');
      return { kind: 'List', elts };
    });
    if (list) return list;
    this.pos = start;
    this.expectOp('[');
    const elt = this.namedExpression();
    const generators = this.forIfClauses();
    this.expectOp(']');
    return { kind: 'ListComp', elt, generators };
  }

  braceAtom(): Expr {
    const start = this.pos;
    const dict = this.attempt((): Expr => {
      this.expectOp('{');
      const keys: (Expr | null)[] = [];
      const values: Expr[] = [];
      while (!this.isOp('}')) {
        if (this.eatOp('**')) {
          keys.push(null);
          values.push(this.bitwiseOr());
        } else {
          keys.push(this.expression());
          this.expectOp(':');
          values.push(this.expression());
        }
        if (!this.eatOp(',')) break;
      }
      this.expectOp('}');
      return { kind: 'Dict', keys, values };
    });
    if (dict) return dict;
    const set = this.attempt((): Expr => {
      this.expectOp('{');
      const elts: Expr[] = [];
      while (!this.isOp('}')) {
        elts.push(this.starNamedExpression());
        if (!this.eatOp(',')) break;
      }
      if (!elts.length) this.fail();
      this.expectOp('}');
      return { kind: 'Set', elts };
    });
    if (set) return set;
    const dictComp = this.attempt((): Expr => {
      this.expectOp('{');
      const key = this.expression();
      this.expectOp(':');
      const value = this.expression();
      const generators = this.forIfClauses();
      this.expectOp('}');
      return { kind: 'DictComp', key, value, generators };
    });
    if (dictComp) return dictComp;
    this.pos = start;
    this.expectOp('{');
    const elt = this.namedExpression();
    const generators = this.forIfClauses();
    this.expectOp('}');
    return { kind: 'SetComp', elt, generators };
  }

  lambdef(): Expr {
    this.pos++; // 'lambda'
    const args: LambdaArgs = { posonly: [], args: [], vararg: null, kwonly: [], kwarg: null };
    let afterStar = false;
    while (!this.isOp(':')) {
      if (this.eatOp('**')) {
        if (!this.isName()) this.fail();
        args.kwarg = this.nameId(this.tok());
        this.pos++;
      } else if (this.eatOp('*')) {
        afterStar = true;
        if (this.isName()) {
          args.vararg = this.nameId(this.tok());
          this.pos++;
        }
      } else if (this.eatOp('/')) {
        args.posonly = args.args;
        args.args = [];
      } else {
        if (!this.isName()) this.fail();
        const p: LambdaParam = { name: this.nameId(this.tok()), default: null };
        this.pos++;
        if (this.eatOp('=')) p.default = this.expression();
        (afterStar ? args.kwonly : args.args).push(p);
      }
      if (!this.eatOp(',')) break;
    }
    this.expectOp(':');
    return { kind: 'Lambda', args, body: this.expression() };
  }

  strings(): Expr {
    const parts: ReturnType<typeof decodeStringToken>[] = [];
    while (this.tok().type === 'STRING') {
      try {
        parts.push(decodeStringToken(this.tok().text));
      } catch (e) {
        if (e instanceof LiteralError) throw new PySyntaxError(e.message);
        throw e;
      }
      this.pos++;
    }
    const isBytes = parts.map((p) => p.kind === 'bytes');
    if (isBytes.some((b) => b) && isBytes.some((b) => !b)) throw new PySyntaxError('cannot mix bytes and nonbytes literals');
    const u = parts[0].u;
    if (isBytes[0]) {
      const s = parts.map((p) => p.value).join('');
      return { kind: 'Constant', value: new PyBytes(Uint8Array.from(s, (c) => c.charCodeAt(0))) };
    }
    if (!parts.some((p) => p.kind === 'fstring')) {
      const node: Expr = { kind: 'Constant', value: parts.map((p) => p.value).join('') };
      if (u) node.u = true;
      return node;
    }
    // f-strings: merge adjacent literal pieces, keep replacement fields as FormattedValue nodes.
    const values: Expr[] = [];
    const pushLiteral = (text: string): void => {
      const last = values[values.length - 1];
      if (last && last.kind === 'Constant' && typeof last.value === 'string') last.value += text;
      else if (text) values.push({ kind: 'Constant', value: text });
    };
    for (const p of parts) {
      if (p.kind !== 'fstring') {
        pushLiteral(p.value);
        continue;
      }
      let split: FStringPart[];
      try {
        split = splitFString(p.body, p.raw);
      } catch (e) {
        if (e instanceof LiteralError) throw new PySyntaxError(e.message);
        throw e;
      }
      for (const part of split) {
        if (part.kind === 'literal') pushLiteral(part.text);
        else {
          if (part.debug) pushLiteral(part.debug);
          values.push(fstringField(part));
        }
      }
    }
    return { kind: 'JoinedStr', values };
  }
}

/** `_PyPegen_get_expr_name`: how CPython names an expression in error messages. */
function exprName(e: Expr): string {
  switch (e.kind) {
    case 'Attribute':
      return 'attribute';
    case 'Subscript':
      return 'subscript';
    case 'Starred':
      return 'starred';
    case 'Name':
      return 'name';
    case 'List':
      return 'list';
    case 'Tuple':
      return 'tuple';
    case 'Lambda':
      return 'lambda';
    case 'Call':
      return 'function call';
    case 'BoolOp':
    case 'BinOp':
    case 'UnaryOp':
      return 'expression';
    case 'GeneratorExp':
      return 'generator expression';
    case 'Yield':
    case 'YieldFrom':
      return 'yield expression';
    case 'Await':
      return 'await expression';
    case 'ListComp':
      return 'list comprehension';
    case 'SetComp':
      return 'set comprehension';
    case 'DictComp':
      return 'dict comprehension';
    case 'Dict':
      return 'dict literal';
    case 'Set':
      return 'set display';
    case 'JoinedStr':
    case 'FormattedValue':
      return 'f-string expression';
    case 'Constant':
      if (e.value === null) return 'None';
      if (e.value === true) return 'True';
      if (e.value === false) return 'False';
      if (typeof e.value === 'object' && 'ellipsis' in e.value) return 'ellipsis';
      return 'literal';
    case 'Compare':
      return 'comparison';
    case 'IfExp':
      return 'conditional expression';
    case 'NamedExpr':
      return 'named expression';
    default:
      return 'expression';
  }
}

function fstringField(part: FStringPart): Expr {
  let value: Expr;
  try {
    value = parseExpression(`(${part.text})`);
  } catch (e) {
    if (e instanceof PySyntaxError) throw new PySyntaxError(`f-string: ${e.message}`);
    throw e;
  }
  let formatSpec: Expr | null = null;
  if (part.spec) {
    const values: Expr[] = [];
    for (const s of part.spec) {
      if (s.kind === 'literal') values.push({ kind: 'Constant', value: s.text });
      else values.push(fstringField(s));
    }
    formatSpec = { kind: 'JoinedStr', values };
  }
  return { kind: 'FormattedValue', value, conversion: part.conversion, formatSpec };
}

/** The value of a NUMBER token: int → bigint, float → number, imaginary → PyComplex. */
function parseNumber(text: string): PyValue {
  const t = text.replace(/_/g, '');
  const last = t[t.length - 1];
  if (last === 'j' || last === 'J') return new PyComplex(0, Number(t.slice(0, -1)));
  if (/^0[xX]/.test(t)) return BigInt(t);
  if (/^0[oO]/.test(t)) return BigInt('0o' + t.slice(2));
  if (/^0[bB]/.test(t)) return BigInt('0b' + t.slice(2));
  if (/[.eE]/.test(t)) return Number(t);
  return BigInt(t);
}

/**
 * `ast.parse(source, mode="eval").body`. Throws PySyntaxError with CPython's message on invalid
 * input.
 */
export function parseExpression(source: string): Expr {
  if (source.includes('\0')) throw new PySyntaxError('source code string cannot contain null bytes');
  const stream = tokenize(source);
  // A tokenizer error is raised when the parser asks for that token. A parser error found first is
  // replaced by a tokenizer error further on (CPython re-tokenises the rest of the source), except
  // for "unexpected indent" and running off the end inside brackets on the same line.
  const laterTokenizerError = stream.error && !stream.error.unclosed ? stream.error.message : null;

  const first = new Parser(stream, false);
  try {
    return first.parseEval();
  } catch (e) {
    if (e instanceof TokenizerSignal) throw new PySyntaxError(e.message);
    // An error raised while building a node (e.g. mixing bytes and str literals) is also replaced
    // by a later tokenizer error.
    if (e instanceof PySyntaxError && laterTokenizerError) throw new PySyntaxError(laterTokenizerError);
    if (!(e instanceof ParseFail)) throw e;
  }
  const furthest = stream.tokens[Math.min(first.maxFetched, stream.tokens.length - 1)];
  const second = new Parser(stream, true);
  try {
    second.parseEval();
  } catch (e) {
    if (e instanceof TokenizerSignal) throw new PySyntaxError(e.message);
    if (e instanceof PySyntaxError) {
      if (laterTokenizerError) throw new PySyntaxError(laterTokenizerError);
      throw withUnclosedOverride(stream, e.message, second.maxFetched);
    }
    if (!(e instanceof ParseFail)) throw e;
  }
  if (furthest && furthest.type === 'INDENT' && first.maxFetched < stream.tokens.length) throw new PySyntaxError('unexpected indent');
  if (laterTokenizerError) throw new PySyntaxError(laterTokenizerError);
  throw withUnclosedOverride(stream, 'invalid syntax', first.maxFetched);
}

/** A parser error on a later line than an unclosed bracket is reported as the unclosed bracket. */
function withUnclosedOverride(stream: TokenStream, message: string, fetched: number): PySyntaxError {
  const err = stream.error;
  if (err && err.unclosed) {
    const at = stream.tokens[Math.min(fetched, stream.tokens.length - 1)];
    if (at && at.line > err.line) return new PySyntaxError(err.message);
  }
  return new PySyntaxError(message);
}
