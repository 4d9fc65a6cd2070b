// `revloop agent`: ToolShed agent rollouts under harness variants (verbatim, +instr, drop,
// abstract, decoder ban). Logic: src/agent/rollout/command.ts; see docs/agent.md.
import type { Command } from 'commander';
import { addModelOptions } from '../model-flags.ts';

export function register(program: Command): void {
  const cmd = program
    .command('agent')
    .summary('agent rollouts on ToolShed tasks under harness variants (verbatim, +instr, drop, abstract, +ban)')
    .description(
      'Runs one rollout per ToolShed agent task (generate_agent_tasks, seed\n' +
        '20260808) under each harness and stores success, repeat rates, loops and\n' +
        'token counts; repeating the command resumes by task. The +ban harnesses\n' +
        'need a backend that can ban token sequences: gguf:<path> (in process) or\n' +
        'vllm:<url>#<model> (bad_words). Settings of record: 24 tasks, 6 steps,\n' +
        '32 new tokens, greedy. `revloop analyze --store DB` shows the tables.\n' +
        'See docs/agent.md.',
    )
    .option('--model <spec>', 'gguf:<path>, vllm:<url>#<model>, openai-compatible:<url>#<model>, sim:<profile>')
    .option('--harness <names>', 'verbatim | verbatim+instr | drop | abstract | verbatim+ban | abstract+ban (comma-separated for several)')
    .option('--tasks <N>', 'number of agent tasks', '24')
    .option('--max-steps <n>', 'steps per rollout', '6')
    .option('--max-new-tokens <n>', 'tokens per model turn', '32')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--run <id>', 'run id (default: agent-toolshed-<label>-<harness>-t<temp>-s<seed>)')
    .option('--json', 'print each finished rollout as one JSON line on stdout')
    .option('--no-progress', 'no progress line on stderr');
  addModelOptions(cmd);
  cmd.action(async (flags: Record<string, unknown>) => {
    const { agentCommand } = await import('../../app/agent.ts');
    const code = await agentCommand(flags as never, { out: process.stdout, err: process.stderr });
    if (code) process.exitCode = code;
  });
}
