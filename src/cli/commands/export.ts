// `revloop export`: a run in the paper's per-case schema (app/export.ts).
import { Option, type Command } from 'commander';
import { dataOnStdout } from '../output.ts';
import { oneRun } from '../flags.ts';
import { addOptionWithAliases, outputOption, runOption, storeOption } from '../options.ts';
import { isStdout } from '../stdio.ts';

export function register(program: Command): void {
  const cmd = program
    .command('export')
    .summary("write a run in the paper's per-case JSON Lines schema")
    .argument('[run]', 'run id (or use --run)')
    .addOption(runOption('run id'))
    .addOption(storeOption({ readOnly: true }));
  addOptionWithAliases(
    cmd,
    new Option('--output-format <name>', 'paper: the per-case schema of docs/protocol.md (Python json.dumps bytes)')
      .choices(['paper'])
      .default('paper'),
    '--format',
  );
  cmd
    .addOption(outputOption("output file (written atomically; '-' = standard output)", { required: true }))
    .option('--partial', 'export the finished trajectories of an unfinished run')
    .option('--allow-unverified', 'export a run whose chain or tables disagree with its events (refused by default); says so on stderr')
    .action(
      async (
        runArg: string | undefined,
        opts: { run?: string; store: string; outputFormat: 'paper'; output: string; partial?: boolean; allowUnverified?: boolean },
      ) => {
        const run = oneRun('export', runArg, opts.run, 'revloop export --store DB --run ID -o FILE');
        const { exportRun } = await import('../../app/export.ts');
        const toStdout = isStdout(opts.output);
        const r = await exportRun({
          store: opts.store,
          runId: run,
          format: opts.outputFormat,
          output: toStdout ? null : opts.output,
          partial: opts.partial,
          allowUnverified: opts.allowUnverified,
        });
        // With -o - the rows are the only thing on stdout; notes go to stderr.
        const say = toStdout ? process.stderr : process.stdout;
        for (const w of r.warnings) process.stderr.write(`revloop: ${w}\n`);
        if (r.simulated) say.write(`note: run '${run}' is SIMULATED; its rows describe a simulated controller\n`);
        if (toStdout) {
          dataOnStdout();
          process.stdout.write(r.text!);
        } else say.write(`wrote ${r.rows} rows to ${opts.output}\n`);
        // The run's head, to keep: `audit --expect-head` holds a later log against it.
        if (r.head) {
          const { headLine } = await import('../heads.ts');
          say.write(`${headLine(opts.store, run, r.head)}\n`);
        }
      },
    );
}
