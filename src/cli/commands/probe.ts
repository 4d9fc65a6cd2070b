// `revloop probe` (score probe items under the corrective-gain conditions) and `revloop probe
// verify` (cached vs fresh scoring on a sample). Logic: src/probe/command.ts; see docs/probe.md.
import type { Command } from 'commander';
import { addModelOptions } from '../model-flags.ts';

export function register(program: Command): void {
  const probe = program
    .command('probe')
    .summary('corrective-gain probes: teacher-forced scores of a failed action under counterfactual transcripts')
    .description(
      'Scores every (item, condition, candidate) triple by teacher forcing and\n' +
        'stores it; repeating the command resumes. Needs a backend that can score:\n' +
        'gguf:<path> (in process) or vllm:<url>#<model> (prompt_logprobs).\n\n' +
        'Conditions: core = pre, fail, succ, neut, abstract; extended = neut_pad,\n' +
        'fail_echo, fail_terse, fail_verbose, fail_instr, fail_k2, fail_k3,\n' +
        'fail_early, fail_other, abstract_min; all; or a comma-separated list.\n' +
        '`revloop analyze --store DB` summarises G, copy, sem, p_rep and greedy\n' +
        'repeats. See docs/probe.md.',
    )
    .option('--model <spec>', 'gguf:<path>, vllm:<url>#<model> (or sim:<profile> for a toy run)')
    .option('--items <file>', 'probe items as JSON Lines (the documented schema)')
    .option('--build <N>', 'build the item pool and take a stratified subsample of N items (ToolShed: ≤ 3 per task)')
    .option('--env <name>', 'environment of --build: toolshed (default) or coderepair (needs --mbpp and python3)')
    .option('--mbpp <path>', 'the sanitized MBPP JSON file (CodeRepair; not bundled)')
    .option('--python <path>', 'Python 3 interpreter for CodeRepair (default: $REVLOOP_PYTHON, then python3)')
    .option('--conditions <set>', 'core | extended | all | comma-separated names', 'core')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--run <id>', 'probe run id (default: probe-<env>-<model label>)')
    .option('--limit <n>', 'only the first n items')
    .option('--json', 'print one JSON record per item (G, copy, sem and every measure) on stdout')
    .option('--no-progress', 'no progress line on stderr');
  addModelOptions(probe);
  probe.action(async (flags: Record<string, unknown>) => {
    const { probeCommand } = await import('../../app/probe.ts');
    const code = await probeCommand(flags as never, { out: process.stdout, err: process.stderr });
    if (code) process.exitCode = code;
  });

  const verify = probe
    .command('verify')
    .description('re-score a sample of items without the prefix cache and require agreement within the tolerance (exit 1 otherwise)')
    .option('--model <spec>', 'gguf:<path> or vllm:<url>#<model>')
    .option('--items <file>', 'probe items as JSON Lines')
    .option('--build <N>', 'build N items (see revloop probe --help)')
    .option('--env <name>', 'environment of --build: toolshed or coderepair')
    .option('--mbpp <path>', 'the sanitized MBPP JSON file (CodeRepair)')
    .option('--python <path>', 'Python 3 interpreter for CodeRepair')
    .option('--limit <n>', 'only the first n items')
    .option('--n <n>', 'items to sample (Python random.Random(0).sample)', '12')
    .option('--tolerance <nats>', 'largest allowed |cached - fresh|', '0.001')
    .option('--json', 'print the report as JSON');
  addModelOptions(verify);
  verify.action(async (_flags: Record<string, unknown>, cmd: Command) => {
    // `probe` declares the same options; commander may hand them to the parent, so merge both.
    const { probeVerifyCommand } = await import('../../app/probe.ts');
    const code = await probeVerifyCommand(cmd.optsWithGlobals() as never, { out: process.stdout, err: process.stderr });
    if (code) process.exitCode = code;
  });

  probe
    .command('items')
    .description(
      'write probe items as JSON Lines: --build N from ToolShed (or CodeRepair with --env coderepair --mbpp PATH), or a filtered --items file',
    )
    .option('-o, --out <file>', 'where to write the items')
    .option('--items <file>', 'probe items to re-read (validated) and write')
    .option('--build <N>', 'build the pool and take a stratified subsample of N items')
    .option('--env <name>', 'toolshed (default) or coderepair')
    .option('--mbpp <path>', 'the sanitized MBPP JSON file (CodeRepair)')
    .option('--python <path>', 'Python 3 interpreter for CodeRepair')
    .option('--limit <n>', 'only the first n items')
    .option('--no-progress', 'no progress line on stderr')
    .action(async (_flags: Record<string, unknown>, cmd: Command) => {
      const { probeItemsCommand } = await import('../../app/probe.ts');
      const code = await probeItemsCommand(cmd.optsWithGlobals() as never, { out: process.stdout, err: process.stderr });
      if (code) process.exitCode = code;
    });
}
