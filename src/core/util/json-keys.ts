// snake_case keys for JSON meant for scripts (the paper's records use them): one conversion from
// the camelCase of typed objects, and the type it produces. Used where a structure shared with
// TypeScript code (the viewer's analysis sections) is sent as JSON.

/** `tocLabel` → `toc_label`, `pairedN` → `paired_n`, `xLabel` → `x_label`. */
export type SnakeCase<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}`
  : S;

/** A value's type with every object key in snake_case (arrays and unions followed). */
export type SnakeKeys<T> =
  T extends ReadonlyArray<infer U>
    ? SnakeKeys<U>[]
    : T extends object
      ? { [K in keyof T as K extends string ? SnakeCase<K> : K]: SnakeKeys<T[K]> }
      : T;

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export interface SnakeKeysOptions {
  /** Keys whose object value is a map of data (names as keys), kept as they are. */
  dataMaps?: readonly string[];
  /**
   * Also keep each renamed key under its old camelCase name (a deprecated alias, for one
   * release), after the snake_case one.
   */
  aliases?: boolean;
}

/** A deep copy of plain JSON data with every object key in snake_case. */
export function snakeKeys<T>(value: T, o: SnakeKeysOptions = {}): SnakeKeys<T> {
  const maps = new Set(o.dataMaps ?? []);
  const convert = (v: unknown, keepKeys: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => convert(x, false));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    const aliases: Array<[string, unknown]> = [];
    for (const [k, x] of Object.entries(v)) {
      const value = convert(x, maps.has(k));
      const key = keepKeys ? k : snakeCase(k);
      out[key] = value;
      if (o.aliases && key !== k) aliases.push([k, value]);
    }
    for (const [k, x] of aliases) if (!(k in out)) out[k] = x;
    return out;
  };
  return convert(value, false) as SnakeKeys<T>;
}
