// `revloop model`: inspect a model spec, try one generation, list the simulated profiles.
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { ProviderError, UserError } from '../../core/errors.ts';
import { addModelOptions, modelOptionsFromFlags, type ModelFlags } from '../flags.ts';
import { jsonOption } from '../options.ts';
import { jsonOutput } from '../json.ts';
import { readInputText } from '../stdio.ts';
import { markedName } from '../../core/simulated.ts';

interface TryFlags extends ModelFlags {
  prompt?: string;
  promptFile?: string;
  maxTokens: string;
  json?: boolean;
}

/** `revloop model try`'s token limit when --max-tokens is not given (its one home: no library function has this default). */
const TRY_MAX_TOKENS = 256;

export function register(program: Command): void {
  const model = program.command('model').description('inspect model specs, try a model, list simulated profiles');

  addModelOptions(
    model
      .command('info <spec>')
      .description('show what a spec resolves to: backend, label, capabilities and settings (never the API key)')
      .addOption(jsonOption('print JSON')),
  ).action(async (spec: string, flags: ModelFlags & { json?: boolean }) => {
    const { describeModel } = await import('../../models/describe.ts');
    const info = await describeModel(spec, modelOptionsFromFlags(flags));
    if (flags.json) process.stdout.write(jsonOutput(info));
    else
      for (const [k, v] of Object.entries(info)) process.stdout.write(`${k.padEnd(14)} ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
  });

  addModelOptions(
    model
      .command('try <spec>')
      .description('send one prompt and print the reply and every attempt (retries included)')
      .option('--prompt <text>', 'the user message')
      .option('--prompt-file <file>', "read the user message from a file ('-' = standard input)")
      .option('--max-tokens <n>', 'token limit', String(TRY_MAX_TOKENS))
      .addOption(jsonOption('print the result and attempts as JSON')),
  ).action(async (spec: string, flags: TryFlags) => {
    if ((flags.prompt === undefined) === (flags.promptFile === undefined))
      throw new UserError('give exactly one of --prompt TEXT or --prompt-file FILE');
    const maxTokens = Number(flags.maxTokens);
    if (!Number.isInteger(maxTokens) || maxTokens < 1)
      throw new UserError(`--max-tokens must be a positive integer (got "${flags.maxTokens}")`);
    let prompt = flags.prompt;
    if (flags.promptFile !== undefined) {
      prompt = await readInputText(flags.promptFile, '--prompt-file', async (path) => {
        try {
          return await readFile(path, 'utf8');
        } catch (e) {
          throw new UserError(`cannot read --prompt-file ${path}: ${(e as Error).message}`);
        }
      });
    }
    const { createModel } = await import('../../models/index.ts');
    const m = await createModel(spec, modelOptionsFromFlags(flags));
    try {
      const result = await m.generate([{ role: 'user', content: prompt! }], {
        maxTokens,
        onAttempt: (a) => {
          if (!flags.json)
            process.stderr.write(
              `attempt: ${a.ok ? 'ok' : `failed (${a.error?.kind}: ${a.error?.message})`} status=${a.status ?? '-'} ${a.latencyMs} ms\n`,
            );
        },
      });
      if (flags.json) process.stdout.write(jsonOutput({ model: m.label, simulated: m.capabilities.simulated, ...result }));
      else {
        if (m.capabilities.simulated)
          process.stderr.write(`${markedName(m.label, true)}: the reply below comes from a simulation, not a model\n`);
        if (result.text === null)
          throw new ProviderError(`${m.label}: every attempt failed (${result.attempts.length}); see the attempt lines above`);
        process.stdout.write(result.text + (result.text.endsWith('\n') ? '' : '\n'));
      }
    } finally {
      await m.close?.();
    }
  });

  model
    .command('sims')
    .description('list the simulated controller profiles and their parameters')
    .addOption(jsonOption('print JSON'))
    .action(async (flags: { json?: boolean }) => {
      const { SIM_PROFILES } = await import('../../models/sim/profiles.ts');
      if (flags.json) {
        process.stdout.write(jsonOutput(SIM_PROFILES));
        return;
      }
      for (const p of Object.values(SIM_PROFILES)) {
        process.stdout.write(`${markedName(`sim:${p.name}`, true)} — ${p.description}\n`);
        process.stdout.write(
          `  ${Object.entries(p.params)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}\n`,
        );
      }
      process.stdout.write('Override any parameter in the spec, e.g. sim:steady?gain=0.7&recur=0.2&seed=3 (see docs/models.md).\n');
    });
}
