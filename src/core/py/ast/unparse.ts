// `ast.unparse(node)` (CPython 3.11's _Unparser) for expression nodes: operator precedence decides
// the parentheses, constants print with repr (inf as 1e309), f-strings choose their quotes the way
// the unparser does. ToolShed quotes it in "argument value '…' is not a literal".
import type { Comprehension, Expr, LambdaArgs } from './nodes.ts';
import { PyComplex, pyReprValue, PyTuple, type PyValue } from '../values.ts';
import { isPrintableChar } from './tokenize.ts';

/** _Precedence, lowest first (BOR shares EXPR's level). */
const P = {
  NAMED_EXPR: 1,
  TUPLE: 2,
  YIELD: 3,
  TEST: 4,
  OR: 5,
  AND: 6,
  NOT: 7,
  CMP: 8,
  EXPR: 9,
  BXOR: 10,
  BAND: 11,
  SHIFT: 12,
  ARITH: 13,
  TERM: 14,
  FACTOR: 15,
  POWER: 16,
  AWAIT: 17,
  ATOM: 18,
} as const;
type Prec = number;

const BINOP_PRECEDENCE: Record<string, Prec> = {
  '+': P.ARITH,
  '-': P.ARITH,
  '*': P.TERM,
  '@': P.TERM,
  '/': P.TERM,
  '%': P.TERM,
  '//': P.TERM,
  '<<': P.SHIFT,
  '>>': P.SHIFT,
  '|': P.EXPR,
  '^': P.BXOR,
  '&': P.BAND,
  '**': P.POWER,
};

const SINGLE_QUOTES = ["'", '"'];
const MULTI_QUOTES = ['"""', "'''"];
const ALL_QUOTES = [...SINGLE_QUOTES, ...MULTI_QUOTES];

/** str.encode("unicode_escape").decode("ascii") for one character. */
function unicodeEscape(c: string): string {
  if (c === '\\') return '\\\\';
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  const cp = c.codePointAt(0)!;
  if (cp < 0x100) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

class Unparser {
  private out: string[] = [];
  private readonly precedences = new Map<Expr, Prec>();

  constructor(private readonly avoidBackslashes = false) {}

  run(node: Expr): string {
    this.traverse(node);
    return this.out.join('');
  }

  private write(...s: string[]): void {
    this.out.push(...s);
  }

  private prec(node: Expr): Prec {
    return this.precedences.get(node) ?? P.TEST;
  }

  private setPrec(p: Prec, ...nodes: (Expr | null)[]): void {
    for (const n of nodes) if (n) this.precedences.set(n, p);
  }

  private delimitIf(start: string, end: string, cond: boolean, body: () => void): void {
    if (cond) this.write(start);
    body();
    if (cond) this.write(end);
  }

  private requireParens(p: Prec, node: Expr, body: () => void): void {
    this.delimitIf('(', ')', this.prec(node) > p, body);
  }

  private interleave<T>(items: readonly T[], each: (x: T) => void, sep = ', '): void {
    items.forEach((x, i) => {
      if (i) this.write(sep);
      each(x);
    });
  }

  private itemsView(items: readonly Expr[]): void {
    if (items.length === 1) {
      this.traverse(items[0]);
      this.write(',');
    } else {
      this.interleave(items, (x) => this.traverse(x));
    }
  }

  private writeConstant(value: PyValue): void {
    if (typeof value === 'number' || value instanceof PyComplex) {
      this.write(pyReprValue(value).replace(/inf/g, '1e309'));
    } else if (this.avoidBackslashes && typeof value === 'string') {
      this.writeStrAvoidingBackslashes(value);
    } else {
      this.write(pyReprValue(value));
    }
  }

  private strLiteralHelper(
    string: string,
    quoteTypes: readonly string[] = ALL_QUOTES,
    escapeSpecialWhitespace = false,
  ): [string, string[]] {
    const escapeChar = (c: string): string => {
      if (!escapeSpecialWhitespace && (c === '\n' || c === '\t')) return c;
      if (c === '\\' || !isPrintableChar(c)) return unicodeEscape(c);
      return c;
    };
    let escaped = Array.from(string, escapeChar).join('');
    let possible = [...quoteTypes];
    if (escaped.includes('\n')) possible = possible.filter((q) => MULTI_QUOTES.includes(q));
    possible = possible.filter((q) => !escaped.includes(q));
    if (!possible.length) {
      const r = pyReprValue(string);
      const quote = quoteTypes.find((q) => q.includes(r[0])) ?? r[0];
      return [r.slice(1, -1), [quote]];
    }
    if (escaped) {
      const lastCh = escaped[escaped.length - 1];
      // stable sort: quotes whose first char differs from the final character come first
      possible.sort((a, b) => Number(a[0] === lastCh) - Number(b[0] === lastCh));
      if (possible[0][0] === lastCh) escaped = escaped.slice(0, -1) + '\\' + lastCh;
    }
    return [escaped, possible];
  }

  private writeStrAvoidingBackslashes(string: string, quoteTypes: readonly string[] = ALL_QUOTES): void {
    const [s, quotes] = this.strLiteralHelper(string, quoteTypes);
    this.write(quotes[0] + s + quotes[0]);
  }

  private fstringInner(node: Expr): string {
    const sub = new Unparser(this.avoidBackslashes);
    sub.writeFstringInner(node);
    return sub.out.join('');
  }

  private writeFstringInner(node: Expr): void {
    if (node.kind === 'JoinedStr') {
      for (const v of node.values) this.writeFstringInner(v);
    } else if (node.kind === 'Constant' && typeof node.value === 'string') {
      this.write(node.value.replace(/\{/g, '{{').replace(/\}/g, '}}'));
    } else if (node.kind === 'FormattedValue') {
      this.formattedValue(node);
    }
  }

  private formattedValue(node: Extract<Expr, { kind: 'FormattedValue' }>): void {
    const inner = new Unparser(true);
    inner.setPrec(P.TEST + 1, node.value);
    const expr = inner.run(node.value);
    this.write('{');
    if (expr.startsWith('{')) this.write(' ');
    this.write(expr);
    if (node.conversion !== -1) this.write('!' + String.fromCharCode(node.conversion));
    if (node.formatSpec) {
      this.write(':');
      this.writeFstringInner(node.formatSpec);
    }
    this.write('}');
  }

  private joinedStr(node: Extract<Expr, { kind: 'JoinedStr' }>): void {
    this.write('f');
    if (this.avoidBackslashes) {
      this.writeStrAvoidingBackslashes(this.fstringInner(node));
      return;
    }
    let quoteTypes: string[] = [...ALL_QUOTES];
    const parts: string[] = [];
    for (const value of node.values) {
      const text = this.fstringInner(value);
      const [escaped, quotes] = this.strLiteralHelper(text, quoteTypes, value.kind === 'Constant');
      quoteTypes = quotes;
      parts.push(escaped);
    }
    const quote = quoteTypes[0];
    this.write(quote + parts.join('') + quote);
  }

  private comprehension(gen: Comprehension): void {
    this.write(gen.isAsync ? ' async for ' : ' for ');
    this.setPrec(P.TUPLE, gen.target);
    this.traverse(gen.target);
    this.write(' in ');
    this.setPrec(P.TEST + 1, gen.iter, ...gen.ifs);
    this.traverse(gen.iter);
    for (const cond of gen.ifs) {
      this.write(' if ');
      this.traverse(cond);
    }
  }

  private lambdaArgs(a: LambdaArgs): string {
    const parts: string[] = [];
    const param = (p: { name: string; default: Expr | null }): string =>
      p.default ? `${p.name}=${new Unparser().run(p.default)}` : p.name;
    parts.push(...a.posonly.map(param));
    if (a.posonly.length) parts.push('/');
    parts.push(...a.args.map(param));
    if (a.vararg !== null || a.kwonly.length) parts.push('*' + (a.vararg ?? ''));
    parts.push(...a.kwonly.map(param));
    if (a.kwarg !== null) parts.push('**' + a.kwarg);
    return parts.join(', ');
  }

  traverse(node: Expr): void {
    switch (node.kind) {
      case 'Constant': {
        const v = node.value;
        if (v instanceof PyTuple) {
          this.write('(');
          if (v.items.length === 1) this.write(pyReprValue(v.items[0]), ',');
          else this.write(v.items.map((x) => pyReprValue(x)).join(', '));
          this.write(')');
        } else if (typeof v === 'object' && v !== null && 'ellipsis' in v) {
          this.write('...');
        } else {
          if (node.u) this.write('u');
          this.writeConstant(v);
        }
        return;
      }
      case 'JoinedStr':
        return this.joinedStr(node);
      case 'FormattedValue':
        return this.formattedValue(node);
      case 'Name':
        return this.write(node.id);
      case 'NamedExpr':
        return this.requireParens(P.NAMED_EXPR, node, () => {
          this.setPrec(P.ATOM, node.target, node.value);
          this.traverse(node.target);
          this.write(' := ');
          this.traverse(node.value);
        });
      case 'Tuple':
        return this.delimitIf('(', ')', node.elts.length === 0 || this.prec(node) > P.TUPLE, () => this.itemsView(node.elts));
      case 'List':
        this.write('[');
        this.interleave(node.elts, (x) => this.traverse(x));
        return this.write(']');
      case 'Set':
        if (!node.elts.length) return this.write('{*()}');
        this.write('{');
        this.interleave(node.elts, (x) => this.traverse(x));
        return this.write('}');
      case 'Dict':
        this.write('{');
        this.interleave(
          node.keys.map((k, i) => [k, node.values[i]] as const),
          ([k, v]) => {
            if (k === null) {
              this.write('**');
              this.setPrec(P.EXPR, v);
              this.traverse(v);
            } else {
              this.traverse(k);
              this.write(': ');
              this.traverse(v);
            }
          },
        );
        return this.write('}');
      case 'ListComp':
      case 'SetComp':
      case 'GeneratorExp': {
        const [open, close] = node.kind === 'ListComp' ? ['[', ']'] : node.kind === 'SetComp' ? ['{', '}'] : ['(', ')'];
        this.write(open);
        this.traverse(node.elt);
        for (const g of node.generators) this.comprehension(g);
        return this.write(close);
      }
      case 'DictComp':
        this.write('{');
        this.traverse(node.key);
        this.write(': ');
        this.traverse(node.value);
        for (const g of node.generators) this.comprehension(g);
        return this.write('}');
      case 'IfExp':
        return this.requireParens(P.TEST, node, () => {
          this.setPrec(P.TEST + 1, node.body, node.test);
          this.traverse(node.body);
          this.write(' if ');
          this.traverse(node.test);
          this.write(' else ');
          this.setPrec(P.TEST, node.orelse);
          this.traverse(node.orelse);
        });
      case 'UnaryOp': {
        const p: Prec = node.op === 'not' ? P.NOT : P.FACTOR;
        return this.requireParens(p, node, () => {
          this.write(node.op);
          if (p !== P.FACTOR) this.write(' ');
          this.setPrec(p, node.operand);
          this.traverse(node.operand);
        });
      }
      case 'BinOp': {
        const p = BINOP_PRECEDENCE[node.op];
        return this.requireParens(p, node, () => {
          const rassoc = node.op === '**';
          this.setPrec(rassoc ? p + 1 : p, node.left);
          this.traverse(node.left);
          this.write(` ${node.op} `);
          this.setPrec(rassoc ? p : p + 1, node.right);
          this.traverse(node.right);
        });
      }
      case 'Compare':
        return this.requireParens(P.CMP, node, () => {
          this.setPrec(P.CMP + 1, node.left, ...node.comparators);
          this.traverse(node.left);
          node.ops.forEach((op, i) => {
            this.write(' ' + op + ' ');
            this.traverse(node.comparators[i]);
          });
        });
      case 'BoolOp': {
        let p: Prec = node.op === 'and' ? P.AND : P.OR;
        return this.requireParens(p, node, () => {
          this.interleave(
            node.values,
            (v) => {
              p = p + 1;
              this.setPrec(p, v);
              this.traverse(v);
            },
            ` ${node.op} `,
          );
        });
      }
      case 'Attribute':
        this.setPrec(P.ATOM, node.value);
        this.traverse(node.value);
        if (node.value.kind === 'Constant' && typeof node.value.value === 'bigint') this.write(' ');
        return this.write('.', node.attr);
      case 'Call':
        this.setPrec(P.ATOM, node.func);
        this.traverse(node.func);
        this.write('(');
        this.interleave([...node.args.map((a) => ({ a })), ...node.keywords.map((k) => ({ k }))], (x) => {
          if ('a' in x) this.traverse(x.a);
          else {
            this.write(x.k.arg === null ? '**' : x.k.arg + '=');
            this.traverse(x.k.value);
          }
        });
        return this.write(')');
      case 'Subscript':
        this.setPrec(P.ATOM, node.value);
        this.traverse(node.value);
        this.write('[');
        if (node.slice.kind === 'Tuple' && node.slice.elts.length) this.itemsView(node.slice.elts);
        else this.traverse(node.slice);
        return this.write(']');
      case 'Starred':
        this.write('*');
        this.setPrec(P.EXPR, node.value);
        return this.traverse(node.value);
      case 'Slice':
        if (node.lower) this.traverse(node.lower);
        this.write(':');
        if (node.upper) this.traverse(node.upper);
        if (node.step) {
          this.write(':');
          this.traverse(node.step);
        }
        return;
      case 'Lambda':
        return this.requireParens(P.TEST, node, () => {
          this.write('lambda');
          const args = this.lambdaArgs(node.args);
          if (args) this.write(' ', args);
          this.write(': ');
          this.setPrec(P.TEST, node.body);
          this.traverse(node.body);
        });
      case 'Await':
        return this.requireParens(P.AWAIT, node, () => {
          this.write('await');
          this.write(' ');
          this.setPrec(P.ATOM, node.value);
          this.traverse(node.value);
        });
      case 'Yield':
        return this.requireParens(P.YIELD, node, () => {
          this.write('yield');
          if (node.value) {
            this.write(' ');
            this.setPrec(P.YIELD, node.value);
            this.traverse(node.value);
          }
        });
      case 'YieldFrom':
        return this.requireParens(P.YIELD, node, () => {
          this.write('yield from ');
          this.setPrec(P.YIELD, node.value);
          this.traverse(node.value);
        });
    }
  }
}

/** `ast.unparse(node)`. */
export function unparse(node: Expr): string {
  return new Unparser().run(node);
}
