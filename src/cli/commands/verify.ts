// `revloop verify`: one text (from --text-file or stdin) or a JSON Lines batch (--jsonl), through the
// verifier of a constraint family. A thin shell over src/core/verify.
import type { Command } from 'commander';
import { collect, wholeNumber } from '../flags.ts';
import { dataOnStdout, writeRaw } from '../output.ts';
import { isStdio, isStdout } from '../stdio.ts';
import { InputError, UserError } from '../../core/errors.ts';
import { RUN_DEFAULTS } from '../../app/defaults.ts';
import type { TextRule } from '../../core/verify/types.ts';

interface VerifyOptions {
  family?: string;
  target?: string;
  anchors?: string;
  targets?: string;
  textFile?: string;
  json?: boolean;
  feedback?: boolean;
  variant?: string;
  jsonl?: string;
  output?: string;
  plugin?: string[];
  ifevalMode?: string;
  jobs?: string;
  textRule?: string;
}

const SINGLE_ONLY = ['family', 'target', 'anchors', 'targets', 'textFile', 'feedback', 'variant', 'json'] as const;
const FLAG_NAMES: Record<string, string> = {
  family: '--family',
  target: '--target',
  anchors: '--anchors',
  targets: '--targets',
  textFile: '--text-file',
  feedback: '--feedback',
  variant: '--variant',
  json: '--json',
  output: '--output',
  jobs: '--jobs',
};

export function register(program: Command): void {
  program
    .command('verify')
    .summary('verify a text (or a JSON Lines batch) against a constraint family')
    .description(
      'Verify one text against a constraint family and print its verifier state (field names and values ' +
        'exactly as the reference protocol records them), or verify a JSON Lines batch with --jsonl. ' +
        "Each family judges the text by its own rule (below): stripped (Python str.strip()), as the paper's " +
        "protocol does with every draft, or as given, as the benchmark's own checker does.",
    )
    .option('--family <name>', 'constraint family: exact-length, c01…c14 (COLLIE), ifeval, or a registered one')
    .option('--target <n>', 'exact-length: the target word count')
    .option('--anchors <list>', 'exact-length: required anchors separated by \';\' (e.g. "IPO;quiet period")')
    .option(
      '--targets <json>',
      'COLLIE families: the targets as JSON (e.g. \'[3, 5, 20]\' for c10); ifeval: \'{"instruction_id_list": [...], "kwargs": [...]}\'',
    )
    .option('--ifeval-mode <mode>', 'ifeval: the follow list joint success uses, strict or loose', RUN_DEFAULTS.ifevalMode)
    .option('--text-file <file>', "read the text from this file ('-' or none: standard input)")
    .option('--json', 'print the state as one JSON object (Python json.dumps bytes)')
    .option('--feedback', 'also print the exact feedback message the model would receive')
    .option('--variant <name>', 'feedback wording: baseline, structured or concise', RUN_DEFAULTS.variant)
    .option('--jsonl <file>', "batch: one JSON object per line ('-' = standard input), see docs/verify.md")
    .option('-o, --output <file>', "batch: write the results to this file (atomically; '-' = standard output, the default)")
    .option(
      '--jobs <n>',
      'batch: threads that verify (default: the idle CPU cores, at least 1, for an input of 16 MiB or more; one thread below); the output is the same for any number',
    )
    .option('--text-rule <rule>', "which text to judge: family (each family's rule, below), stripped or as-given", 'family')
    .option('--plugin <module>', 'load a module that registers more families (repeatable; see docs/verify.md)', collect, [])
    .addHelpText(
      'after',
      '\nText rule per family (docs/verify.md#which-text-is-verified):\n' +
        TEXT_RULE_HELP +
        '\nExamples:\n' +
        '  revloop verify --family exact-length --target 120 \\\n' +
        '    --anchors "IPO;quiet period" < draft.txt\n' +
        "  revloop verify --family c10 --targets '[3, 5, 20]' --text-file draft.txt \\\n" +
        '    --feedback\n' +
        '  revloop verify --jsonl texts.jsonl -o states.jsonl\n' +
        '  revloop verify --jsonl ifeval-responses.jsonl --ifeval-mode loose\n',
    )
    .action(async (opts: VerifyOptions, cmd: Command) => {
      const { loadFamilyPlugins } = await import('../../core/verify/index.ts');
      await loadFamilyPlugins(opts.plugin);
      if (opts.jsonl !== undefined) await runBatch(opts, cmd);
      else await runSingle(opts);
    });
}

/**
 * The built-in families' text rules (textRule in their definitions, text-rule.ts), as help shows them
 * without loading every family; test/verify/text-rule.test.ts checks it against the families.
 */
export const TEXT_RULE_HELP =
  "  stripped (Python str.strip(), as the paper's revision loop sees every draft):\n" +
  '    exact-length c05 c07 c09 c10 c12, and registered families by default\n' +
  "  as given (as COLLIE's and IFEval's checkers; a file's last newline counts):\n" +
  '    c01 c02 c03 c04 c06a c08 c11 c14 ifeval\n' +
  '  (revloop run always verifies the stripped draft, whatever the family)\n';

function textRule(opts: VerifyOptions): TextRule | undefined {
  const rule = opts.textRule ?? 'family';
  if (rule === 'family') return undefined;
  if (rule !== 'stripped' && rule !== 'as-given') throw new UserError(`--text-rule must be family, stripped or as-given, got '${rule}'`);
  return rule;
}

function explicitlySet(cmd: Command, key: string): boolean {
  return cmd.getOptionValueSource(key) === 'cli';
}

function ifevalMode(opts: VerifyOptions): 'strict' | 'loose' {
  const mode = opts.ifevalMode ?? RUN_DEFAULTS.ifevalMode;
  if (mode !== 'strict' && mode !== 'loose') throw new UserError(`--ifeval-mode must be strict or loose, got '${mode}'`);
  return mode;
}

async function runBatch(opts: VerifyOptions, cmd: Command): Promise<void> {
  const clash = SINGLE_ONLY.filter((k) => explicitlySet(cmd, k));
  if (clash.length) {
    throw new UserError(`--jsonl takes the family and targets from each line; drop ${clash.map((k) => FLAG_NAMES[k]).join(', ')}`);
  }
  const { tuneV8ForBatch } = await import('../jit.ts');
  tuneV8ForBatch();
  const { verifyBatch, verifyBatchToFile } = await import('../../core/verify/index.ts');
  const { idleCores } = await import('../../core/verify/batch-threads.ts');
  const { existsSync, statSync } = await import('node:fs');
  const input = opts.jsonl === '-' ? process.stdin : opts.jsonl!;
  if (typeof input === 'string' && !existsSync(input)) throw new UserError(`--jsonl: no such file: ${input}`);
  const jobs = opts.jobs === undefined ? idleCores() : wholeNumber('--jobs', opts.jobs, { min: 1 });
  const totalBytes = typeof input === 'string' ? statSync(input).size : 0;
  const tty = process.stderr.isTTY;
  const started = Date.now();
  const onProgress = tty
    ? (done: number, failed: number, bytesRead: number) => {
        const elapsed = Math.max((Date.now() - started) / 1000, 1e-3);
        const share = totalBytes > 0 ? Math.min(1, bytesRead / totalBytes) : 0;
        const eta = share > 0 ? `, ${Math.round(100 * share)}% of the input read, ETA ${Math.round(elapsed * (1 / share - 1))} s` : '';
        writeRaw(process.stderr, `\rverified ${done} lines (${failed} failed), ${Math.round(done / elapsed)} lines/s${eta}\x1b[K`);
      }
    : undefined;
  const options = {
    onProgress,
    jobs,
    // Threads asked for are started at once; the default's start only on an input large enough to repay them.
    workersFrom: opts.jobs === undefined ? undefined : 0,
    plugins: opts.plugin,
    request: { ifevalMode: ifevalMode(opts), textRule: textRule(opts) },
  };
  const toFile = opts.output !== undefined && !isStdout(opts.output);
  if (!toFile) dataOnStdout();
  let summary;
  try {
    summary = toFile ? await verifyBatchToFile(input, opts.output!, options) : await verifyBatch(input, process.stdout, options);
  } catch (e) {
    // The reader of standard output went away (`revloop verify --jsonl big.jsonl | head`): stop quietly.
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw e;
  }
  if (tty && summary.lines >= 1000) process.stderr.write('\n');
  if (summary.failed > 0) {
    process.stderr.write(
      `revloop: ${summary.failed} of ${summary.lines} lines failed (their output lines carry "error"); ${summary.verified} verified\n`,
    );
    process.exitCode = 1;
  } else if (toFile) {
    process.stderr.write(`verified ${summary.lines} lines → ${opts.output}\n`);
  }
}

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) throw new UserError('no text to verify: pass --text-file FILE or pipe the text on standard input');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseTarget(raw: string): number {
  if (!/^\s*\d+\s*$/.test(raw)) throw new UserError(`--target must be a whole number of words, got '${raw}'`);
  return Number(raw);
}

function parseTargets(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new UserError(`--targets must be JSON (e.g. '[3, 5, 20]'): ${(e as Error).message}`);
  }
}

async function runSingle(opts: VerifyOptions): Promise<void> {
  if (opts.output) throw new UserError('--output is for batches (--jsonl); a single result goes to standard output');
  if (opts.jobs !== undefined) throw new UserError('--jobs is for batches (--jsonl); a single text is verified on one thread');
  if (!opts.family)
    throw new UserError('--family is required (exact-length, c01…c14, ifeval or a registered family), or use --jsonl for a batch');
  const { getFamily, PROMPT_VARIANTS, stateEnergy } = await import('../../core/verify/index.ts');
  const { caseFromRequest } = await import('../../core/verify/input.ts');
  const { pyJsonDumps, pyFloatRepr } = await import('../../core/py/format.ts');
  const { textToVerify } = await import('../../core/verify/text-rule.ts');
  const rule = textRule(opts);
  const variant = opts.variant ?? RUN_DEFAULTS.variant;
  if (!(PROMPT_VARIANTS as readonly string[]).includes(variant)) {
    throw new UserError(`--variant must be one of ${PROMPT_VARIANTS.join(', ')}, got '${variant}'`);
  }
  const family = getFamily(opts.family);
  const req: Record<string, unknown> = { id: 'cli', family: family.name };
  if (opts.target !== undefined) req.target = parseTarget(opts.target);
  if (opts.anchors !== undefined)
    req.anchors = opts.anchors
      .split(';')
      .map((a) => a.trim())
      .filter((a) => a !== '');
  if (opts.targets !== undefined) req.targets = parseTargets(opts.targets);
  if (family.name === 'exact-length' && req.anchors === undefined) req.anchors = [];
  const built = caseFromRequest(req as any, { ifevalMode: ifevalMode(opts) });
  if (!built.ok) {
    const flag = (f: string) => (f === 'target' ? '--target' : f === 'anchors' ? '--anchors' : f === 'targets' ? '--targets' : f);
    throw new UserError(
      built.problems.map(([f, p]) => `${flag(f)} ${p}`).join('\n') + `\n(family ${family.name}; see revloop verify --help)`,
    );
  }
  let bytes: Buffer;
  const fromFile = !!opts.textFile && !isStdio(opts.textFile);
  if (fromFile) {
    const { readFile } = await import('node:fs/promises');
    try {
      bytes = await readFile(opts.textFile!);
    } catch (e) {
      throw new UserError(`--text-file: cannot read ${opts.textFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  } else bytes = await readStdin();
  // The text boundary: what is not UTF-8 text (or holds NUL) is refused, never verified as U+FFFD.
  const { textBytesFault } = await import('../../core/util/text-boundary.ts');
  const bad = textBytesFault(bytes);
  if (bad) throw new InputError(bad.problem, { file: fromFile ? opts.textFile! : '<standard input>', line: bad.line, field: 'text' });
  const text = textToVerify(built.family, bytes.toString('utf8'), rule);
  const state = built.family.verify(text, built.case);
  const feedback = opts.feedback ? built.family.feedback(state, built.case, variant as any) : undefined;
  if (opts.json) {
    dataOnStdout();
    const out: Record<string, unknown> = { ...state };
    if (feedback !== undefined) out.feedback = feedback;
    process.stdout.write(pyJsonDumps(out) + '\n');
    return;
  }
  const lines = [`${family.name}: ${state.joint_success ? 'PASS' : 'FAIL'} (violation energy ${pyFloatRepr(stateEnergy(state))})`];
  for (const [k, v] of Object.entries(state)) {
    const shown = k === 'violation_vector' ? `[${(v as number[]).map(pyFloatRepr).join(', ')}]` : pyJsonDumps(v);
    lines.push(`  ${k}: ${shown}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  if (feedback !== undefined) process.stdout.write(`\nfeedback (${variant}):\n${feedback}\n`);
}
