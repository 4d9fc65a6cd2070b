// `ast.literal_eval(node)` (CPython 3.11): constants, tuples, lists, sets, dicts, `set()`, signed
// numbers and `real ± imaginary` sums. Anything else, or an unhashable set element / dict key,
// raises — the caller reports the argument as "not a literal".
import type { Expr } from './nodes.ts';
import { PyComplex, PyDict, PySet, PyTuple, pyEquals, pyHashable, type PyValue } from '../values.ts';

export class LiteralEvalError extends Error {}

function malformed(node: Expr | null): never {
  throw new LiteralEvalError(`malformed node or string: ${node ? node.kind : 'None'}`);
}

function convertNum(node: Expr | null): PyValue {
  if (!node || node.kind !== 'Constant') malformed(node);
  const v = node.value;
  if (typeof v === 'bigint' || typeof v === 'number' || v instanceof PyComplex) return v;
  return malformed(node);
}

function convertSignedNum(node: Expr | null): PyValue {
  if (node && node.kind === 'UnaryOp' && (node.op === '+' || node.op === '-')) {
    const operand = convertNum(node.operand);
    if (node.op === '+') return operand;
    if (typeof operand === 'bigint') return -operand;
    if (typeof operand === 'number') return -operand;
    const c = operand as PyComplex;
    return new PyComplex(-c.real, -c.imag);
  }
  return convertNum(node);
}

function uniqueInsert(items: PyValue[], v: PyValue): void {
  if (!pyHashable(v)) throw new LiteralEvalError('unhashable type');
  if (!items.some((x) => pyEquals(x, v))) items.push(v);
}

/** Evaluate a literal expression node to a Python value, or throw LiteralEvalError. */
export function literalEval(node: Expr | null): PyValue {
  if (!node) return malformed(node);
  switch (node.kind) {
    case 'Constant':
      return node.value;
    case 'Tuple':
      return new PyTuple(node.elts.map(literalEval));
    case 'List':
      return node.elts.map(literalEval);
    case 'Set': {
      const items: PyValue[] = [];
      for (const e of node.elts) uniqueInsert(items, literalEval(e));
      return new PySet(items);
    }
    case 'Call':
      if (node.func.kind === 'Name' && node.func.id === 'set' && node.args.length === 0 && node.keywords.length === 0) {
        return new PySet([]);
      }
      return malformed(node);
    case 'Dict': {
      const keys = node.keys.map(literalEval);
      const values = node.values.map(literalEval);
      const entries: [PyValue, PyValue][] = [];
      keys.forEach((k, i) => {
        if (!pyHashable(k)) throw new LiteralEvalError('unhashable type');
        const hit = entries.find(([x]) => pyEquals(x, k));
        if (hit) hit[1] = values[i];
        else entries.push([k, values[i]]);
      });
      return new PyDict(entries);
    }
    case 'BinOp':
      if (node.op === '+' || node.op === '-') {
        const left = convertSignedNum(node.left);
        const right = convertNum(node.right);
        if ((typeof left === 'bigint' || typeof left === 'number') && right instanceof PyComplex) {
          const l = Number(left);
          return node.op === '+' ? new PyComplex(l + right.real, 0 + right.imag) : new PyComplex(l - right.real, 0 - right.imag);
        }
      }
      return convertSignedNum(node);
    default:
      return convertSignedNum(node);
  }
}
