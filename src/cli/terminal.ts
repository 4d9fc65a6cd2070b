// How wide terminal text may be: tables of `runs` and `analyze` fit the terminal unless --wide.
/**
 * Columns to fit: the terminal's width when standard output is one, else $COLUMNS when set, else
 * none (piped output stays as wide as its tables). `wide` turns fitting off.
 */
export function outputWidth(
  wide: boolean | undefined,
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (wide) return undefined;
  if (stream.isTTY && stream.columns) return stream.columns;
  const n = Number(env.COLUMNS);
  return Number.isInteger(n) && n >= 40 ? n : undefined;
}
