// `revloop run`: plan and run (or resume) the closed loop over a case set. Logic: src/loop/run-command.ts.
import type { Command } from 'commander';
import { collect } from '../flags.ts';

export function register(program: Command): void {
  program
    .command('run')
    .summary('run (or resume) the closed loop over a case set, recording every step in the store')
    .description(
      'Plans a run (immutable: cases, model, protocol, prompt and verifier fingerprints, all hashed) and runs it: ' +
        'draft, verify, feed back, revise, until the first joint success or after revision T. ' +
        'Repeating the command resumes: finished trajectories are skipped, the others continue from their ' +
        'last accepted draft. A different plan under an existing run id is refused. Ctrl-C stops cleanly. ' +
        'See docs/running.md.',
    )
    .requiredOption('--cases <file>', 'case file (paper, COLLIE or native JSON Lines)')
    .requiredOption('--model <spec>', 'openai:<model>, openai-compatible:<url>#<model>, vllm:<url>#<model>, gguf:<path>, sim:<profile>')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--run-id <id>', 'run id (default: <cases>__<model label>[__<protocol>])')
    .option('--budget <T>', 'revisions after the first draft (at most T+1 generations)', '8')
    .option('--history <policy>', 'full | last:K | reset', 'full')
    .option('--variant <name>', 'prompt wording: baseline | structured | concise', 'baseline')
    .option('--concurrency <n>', 'trajectories in flight at once', '4')
    .option('--limit <n>', 'only the first n cases')
    .option('--format <name>', 'case format: paper-exact, paper-structured, collie, native (default: detect)')
    .option('--timeout <seconds>', 'per-attempt timeout for HTTP models (default 180)')
    .option('--retries <n>', 'retries after a failed attempt (default 4)')
    .option('--rpm <n>', 'requests started per minute at most')
    .option('--api-key-env <name>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--extra-body <json>', 'extra request-body keys, e.g. \'{"chat_template_kwargs":{"enable_thinking":false}}\'')
    .option('--temperature <t>', "sampling temperature (default 0 = greedy; 'omit' leaves it to the provider)")
    .option('--seed <n>', 'sampling seed sent with every request')
    .option('--label <name>', 'controller name in analyses (default: from the spec)')
    .option('--max-consecutive-failures <n>', 'stop after n protocol-incomplete trajectories in a row (0 = never)', '3')
    .option('--plugin <module>', 'load a module that registers more families (repeatable)', collect, [])
    .action(async (opts: Record<string, string> & { plugin: string[] }) => {
      const { loadFamilyPlugins } = await import('../../core/verify/index.ts');
      await loadFamilyPlugins(opts.plugin);
      const { runCommand } = await import('../../app/run.ts');
      const code = await runCommand(opts as never, { out: process.stdout, err: process.stderr });
      if (code) process.exitCode = code;
    });
}
