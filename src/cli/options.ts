// The options commands share, each built in one place: its flag, help, default and parsing (commander
// Options with argParser, choices and env), so one word means one thing on every command
// (docs/running.md, "One vocabulary"). Values are parsed while the command line is read, before a
// command does any work. Old spellings stay for one release as hidden aliases that say what replaced them.
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.ts';
import { CASE_FORMATS } from '../core/cases/types.ts';
import { PROMPT_VARIANTS } from '../core/verify/types.ts';
import { specFormsLine } from '../models/spec.ts';
import { RUN_DEFAULTS } from '../app/defaults.ts';
import { ANALYSIS_DEFAULTS } from '../studies/revision/analysis/defaults.ts';
import { collect, numberFlag, wholeNumber } from './flags.ts';

/** A whole-number option's parser (range checked, the flag named in the message). */
export function wholeParser(flag: string, range: { min?: number; max?: number } = {}): (value: string) => number {
  return (value) => wholeNumber(flag, value, range);
}

/** A number option's parser (≥ min; integers only when asked). */
export function numberParser(flag: string, o: { min: number; integer?: boolean }): (value: string) => number {
  return (value) => numberFlag(flag, value, o)!;
}

// ---- identity: the store, a run, the cases ----------------------------------------------------------

export const STORE_FLAG = '--store <location>';
const STORE_FORMS = 'a SQLite file, or postgres://user@host:port/db (with ?schema=NAME&pool=N if wanted)';
const POSTGRES_FORMS = 'postgres://user@host:port/db (with ?schema=NAME&pool=N if wanted; workers need PostgreSQL)';

/**
 * `--store`: a SQLite file or a PostgreSQL URL, from $REVLOOP_STORE when not given; `runs.db` unless
 * the command needs a store named (analyze, report: `required`), or `only` says it is PostgreSQL only.
 */
export function storeOption(o: { required?: boolean; postgresOnly?: boolean; readOnly?: boolean } = {}): Option {
  const forms = o.postgresOnly ? POSTGRES_FORMS : STORE_FORMS;
  const option = new Option(STORE_FLAG, `the run store: ${forms}${o.readOnly ? '; opened read-only' : ''}`).env('REVLOOP_STORE');
  return o.required || o.postgresOnly ? option : option.default(RUN_DEFAULTS.store);
}

/** The store a command works on: the flag's (or $REVLOOP_STORE's) value; an error naming the command when it needs one and has none. */
export function requireStore(value: string | undefined, command: string, o: { postgresOnly?: boolean } = {}): string {
  if (value) return value;
  throw new UsageError(
    `${command}: --store <location> is required (${o.postgresOnly ? POSTGRES_FORMS : STORE_FORMS}; or set REVLOOP_STORE)`,
    { option: '--store' },
  );
}

/** `--run <id>`: the one flag that names a run (old spelling `--run-id`). */
export function runOption(help: string, o: { many?: boolean } = {}): Option {
  return new Option(o.many ? '--run <id...>' : '--run <id>', help);
}

/** `--cases <file>`: a case file; '-' = standard input. */
export function casesOption(help = "case file (paper, COLLIE, IFEval or native JSON Lines; '-' = standard input)"): Option {
  return new Option('--cases <file>', help).makeOptionMandatory();
}

/** `--input-format <name>`: the format of the file read (case files; old spelling `--format`). */
export function inputFormatOption(): Option {
  return new Option('--input-format <name>', 'format of the case file (default: detected from its first row)').choices(CASE_FORMATS);
}

/** `--limit <n>`: only the first n cases (or items) read; more than there are runs them all, said in a note. */
export function limitOption(what = 'cases'): Option {
  return new Option('--limit <n>', `only the first n ${what}`).argParser(wholeParser('--limit', { min: 1 }));
}

// ---- output -------------------------------------------------------------------------------------

/** `-o, --output <file>`: the one flag for an output file; '-' = standard output (old spelling `--out`). */
export function outputOption(help: string, o: { required?: boolean } = {}): Option {
  const option = new Option('-o, --output <file>', help);
  return o.required ? option.makeOptionMandatory() : option;
}

/** `--out-dir <dir>`: the one flag for an output folder (old spelling `--out`). */
export function outDirOption(help: string): Option {
  return new Option('--out-dir <dir>', help);
}

export const jsonOption = (help: string) => new Option('--json', `${help} (snake_case keys; docs/running.md)`);
export const wideOption = () =>
  new Option('--wide', 'print tables, help and progress lines at full width (default: fitted to $COLUMNS, else 80 columns)');
export const noProgressOption = () => new Option('--no-progress', 'no progress lines on standard error');
export const pluginOption = (help = 'load a module that registers more families (repeatable)') =>
  new Option('--plugin <module>', help).argParser(collect);

// ---- the protocol -------------------------------------------------------------------------------

/** The largest revision budget any command takes (a run, an import, the caps of analyze and report). */
export const MAX_BUDGET = 1000;

/** `--budget <T>`: the revision budget T, revisions after the first draft (at most T+1 generations); its one meaning. */
export function budgetOption(
  fallback: number | undefined,
  help = 'the revision budget T: revisions after the first draft (at most T+1 generations)',
): Option {
  const option = new Option('--budget <T>', help).argParser(wholeParser('--budget', { min: 0, max: MAX_BUDGET }));
  return fallback === undefined ? option : option.default(fallback);
}

/** `--max-cap <k>`: the largest revision cap of curves and the budget replay (old spelling `--budget` on analyze and report). */
export function maxCapOption(): Option {
  return new Option(
    '--max-cap <k>',
    "largest revision cap k of the curves and the budget replay (at most the runs' budget; default: it)",
  ).argParser(wholeParser('--max-cap', { min: 0, max: MAX_BUDGET }));
}

export const variantOption = () =>
  new Option('--variant <name>', 'prompt and feedback wording').choices(PROMPT_VARIANTS).default(RUN_DEFAULTS.variant);
export const ifevalModeOption = (help = 'IFEval cases: joint success from the strict or the loose follow list') =>
  new Option('--ifeval-mode <mode>', help).choices(['strict', 'loose']).default(RUN_DEFAULTS.ifevalMode);
export const concurrencyOption = (fallback: number = RUN_DEFAULTS.concurrency) =>
  new Option('--concurrency <n>', 'trajectories in flight at once').argParser(wholeParser('--concurrency', { min: 1 })).default(fallback);
export const maxConsecutiveFailuresOption = () =>
  new Option('--max-consecutive-failures <n>', 'stop after n protocol-incomplete trajectories in a row (0 = never)')
    .argParser(wholeParser('--max-consecutive-failures', { min: 0 }))
    .default(RUN_DEFAULTS.maxConsecutiveFailures);
export const bootstrapOption = (fallback: number, help = 'bootstrap resamples for the 95% intervals; 0 switches them off') =>
  new Option('--bootstrap <B>', help).argParser(wholeParser('--bootstrap', { min: 0 })).default(fallback);
export const bootstrapSeedOption = () =>
  new Option('--seed <S>', 'bootstrap seed').argParser(wholeParser('--seed', { min: 0 })).default(ANALYSIS_DEFAULTS.seed);

/** `--lease-seconds` and `--reconnect-seconds` of the commands that work on a PostgreSQL store for long (run, worker). */
export const leaseSecondsOption = (help: string) =>
  new Option('--lease-seconds <s>', help)
    .argParser(wholeParser('--lease-seconds', { min: 1, max: 86_400 }))
    .default(RUN_DEFAULTS.leaseSeconds);
export const reconnectSecondsOption = (prefix = '') =>
  new Option(
    '--reconnect-seconds <s>',
    `${prefix}after losing the database connection, keep trying to reconnect this long before giving up (0 = give up at once)`,
  )
    .argParser(wholeParser('--reconnect-seconds', { min: 0, max: 86_400 }))
    .default(RUN_DEFAULTS.reconnectSeconds);

// ---- the model ------------------------------------------------------------------------------------

/** `--model <spec>`, its help written from the model registry (models/spec.ts): every backend, or those that can score or ban. */
export function modelOption(o: { need?: 'score' | 'ban'; required?: boolean; what?: string } = {}): Option {
  const forms = specFormsLine(o.need);
  const option = new Option(
    '--model <spec>',
    `${o.what ? `${o.what}: ` : ''}${forms} (\`revloop model info <spec>\` shows what one resolves to)`,
  );
  return o.required ? option.makeOptionMandatory() : option;
}

// ---- old spellings --------------------------------------------------------------------------------

const warned = new Set<string>();

/**
 * Keeps an old spelling of `target` for one release: hidden from help, it sets the target as if
 * the new flag were given (parsed, checked, repeatable alike), and says once on standard error
 * what replaced it.
 */
export function addAlias(cmd: Command, oldFlag: string, target: Option): Command {
  const takesValue = target.required || target.optional;
  const alias = new Option(takesValue ? `${oldFlag} ${target.variadic ? '<value...>' : '<value>'}` : oldFlag).hideHelp();
  cmd.addOption(alias);
  cmd.on(`option:${alias.name()}`, (value: unknown) => {
    if (!warned.has(oldFlag)) {
      warned.add(oldFlag);
      process.stderr.write(`revloop: note: ${oldFlag} is now ${target.long}; the old spelling goes in the next release\n`);
    }
    (cmd as unknown as NodeJS.EventEmitter).emit(`option:${target.name()}`, value);
  });
  return cmd;
}

/** Adds an option with its old spellings (each a hidden alias). */
export function addOptionWithAliases(cmd: Command, option: Option, ...oldFlags: string[]): Command {
  cmd.addOption(option);
  for (const old of oldFlags) addAlias(cmd, old, option);
  return cmd;
}
