// The command line's names for the library's options. Below the app layer an error names the option
// it is about as the library calls it (`runId`, `plugins`; namingOption in core/errors.ts); the error
// printer (errors.ts) words it with the flag instead, the spelling the user typed when they typed
// one (an old alias included), so the library speaks of options and the command line of flags.
// test/cli/option-flags.test.ts checks that every flag here is one of a command's, and that every
// option an error of src/ names has a line.

/** Each option's flags: the first is the one named when the user typed none of them. */
const FLAGS: Readonly<Record<string, readonly string[]>> = {
  allowSubset: ['--allow-subset'],
  apiKeyEnv: ['--api-key-env'],
  arms: ['--arms'],
  banProvider: ['--ban'],
  budget: ['--budget'],
  contextWindow: ['--context-window'],
  draftField: ['--draft-field'],
  format: ['--input-format', '--format'],
  fromRun: ['--from-run'],
  harness: ['--harness'],
  history: ['--history'],
  mbpp: ['--mbpp'],
  messagePolicy: ['--harness'],
  plannerRun: ['--planner-run'],
  plugins: ['--plugin'],
  port: ['--port'],
  punkt: ['--punkt'],
  python: ['--python'],
  runId: ['--run', '--run-id'],
  runIds: ['--run'],
  sha256: ['--sha256'],
  states: ['--states'],
  store: ['--store'],
  truncations: ['--truncations'],
  url: ['--url'],
};

/** Commands whose flag for an option differs from FLAGS'. */
const BY_COMMAND: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  // Its runs are <prefix>__<policy>; a stored run to replay is --replay's.
  'compare-policies': { runId: ['--run-prefix', '--replay', '--run-id-prefix'] },
};

/** Every flag this table names, for the test that holds them against the commands. */
export function mappedFlags(): string[] {
  const all = [...Object.values(FLAGS), ...Object.values(BY_COMMAND).flatMap((m) => Object.values(m))].flat();
  return [...new Set(all)];
}

/** Every option this table maps, for the test that holds them against the errors of src/. */
export function mappedOptions(): string[] {
  return Object.keys(FLAGS);
}

/**
 * The flag that stands for `option` on the command line `argv` (as process.argv: node, script,
 * command, …): of its spellings, the one the user typed, else its first; null for an option the
 * command line has no flag for (the message then keeps the option's name).
 */
export function flagFor(option: string, argv: readonly string[]): string | null {
  const command = argv[2];
  const spellings = (command !== undefined ? BY_COMMAND[command]?.[option] : undefined) ?? FLAGS[option];
  if (!spellings) return null;
  const words = argv.slice(3);
  return spellings.find((f) => words.some((w) => w === f || w.startsWith(`${f}=`))) ?? spellings[0];
}
