// Python expression AST nodes (the `ast` module's shapes, reduced to expressions).
import type { PyValue } from '../values.ts';

export interface Keyword {
  /** null for `**value`. */
  arg: string | null;
  value: Expr;
}

export interface Comprehension {
  target: Expr;
  iter: Expr;
  ifs: Expr[];
  isAsync: boolean;
}

export interface LambdaParam {
  name: string;
  default: Expr | null;
}

export interface LambdaArgs {
  posonly: LambdaParam[];
  args: LambdaParam[];
  vararg: string | null;
  kwonly: LambdaParam[];
  kwarg: string | null;
}

export type Expr =
  | { kind: 'Constant'; value: PyValue; u?: boolean }
  | { kind: 'JoinedStr'; values: Expr[] }
  | { kind: 'FormattedValue'; value: Expr; conversion: number; formatSpec: Expr | null }
  | { kind: 'Name'; id: string }
  | { kind: 'Attribute'; value: Expr; attr: string }
  | { kind: 'Subscript'; value: Expr; slice: Expr }
  | { kind: 'Slice'; lower: Expr | null; upper: Expr | null; step: Expr | null }
  | { kind: 'Call'; func: Expr; args: Expr[]; keywords: Keyword[] }
  | { kind: 'Starred'; value: Expr }
  | { kind: 'UnaryOp'; op: '+' | '-' | '~' | 'not'; operand: Expr }
  | { kind: 'BinOp'; op: string; left: Expr; right: Expr }
  | { kind: 'BoolOp'; op: 'and' | 'or'; values: Expr[] }
  | { kind: 'Compare'; left: Expr; ops: string[]; comparators: Expr[] }
  | { kind: 'IfExp'; test: Expr; body: Expr; orelse: Expr }
  | { kind: 'Lambda'; args: LambdaArgs; body: Expr }
  | { kind: 'NamedExpr'; target: Expr; value: Expr }
  | { kind: 'Tuple'; elts: Expr[] }
  | { kind: 'List'; elts: Expr[] }
  | { kind: 'Set'; elts: Expr[] }
  | { kind: 'Dict'; keys: (Expr | null)[]; values: Expr[] }
  | { kind: 'ListComp'; elt: Expr; generators: Comprehension[] }
  | { kind: 'SetComp'; elt: Expr; generators: Comprehension[] }
  | { kind: 'GeneratorExp'; elt: Expr; generators: Comprehension[] }
  | { kind: 'DictComp'; key: Expr; value: Expr; generators: Comprehension[] }
  | { kind: 'Await'; value: Expr }
  | { kind: 'Yield'; value: Expr | null }
  | { kind: 'YieldFrom'; value: Expr };
