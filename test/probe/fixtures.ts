// Small probe items written for the tests (our own sentences; short, so the tiny model is quick).
import type { ProbeItem } from '../../src/studies/probe/probe-types.ts';

export function shortItems(): ProbeItem[] {
  const base = {
    env: 'toolshed',
    template: 'mine',
    operator: 'hallucinated_entity',
    error_type: 'file_not_found',
    system_prompt: 'You call tools. Reply with one call and nothing else.\n',
    obs_success: 'renew the domain',
    obs_neutral: 'Call recorded.',
    tool: 'read_file',
    meta: {},
  } as const;
  return [
    {
      ...base,
      item_id: 'mine-0001-s1-a',
      task_id: 'mine-0001',
      step_index: 1,
      goal: 'Read the to-do note.',
      prefix_actions: ["list_files(folder='notes')"],
      prefix_observations: ["['notes/todo.md']"],
      failed_action: "read_file(path='note.txt')",
      gold_action: "read_file(path='notes/todo.md')",
      obs_fail: "LookupError: no file matching 'note.txt'.",
      obs_fail_terse: "Error: no file 'note.txt'.",
      obs_fail_verbose: "LookupError: no file matching 'note.txt'. Known files include: notes/todo.md.",
      obs_fail_echo: "LookupError: no file matching 'note.txt'.\n  while calling: read_file(path='note.txt')",
      obs_fail_other: "NameError: unknown tool 'read_files'. Did you mean 'read_file'?",
      distractors: ["read_files(path='notes/todo.md')", "read_file(file_path='notes/todo.md')"],
    },
    {
      ...base,
      item_id: 'mine-0002-s0-b',
      task_id: 'mine-0002',
      step_index: 0,
      goal: 'Delete the old draft.',
      operator: 'tool_typo',
      error_type: 'unknown_tool',
      tool: 'remove_file',
      prefix_actions: [],
      prefix_observations: [],
      failed_action: "remove_file(path='draft.md')",
      gold_action: "delete_file(path='draft.md')",
      obs_fail: "NameError: unknown tool 'remove_file'. Did you mean 'delete_file'?",
      obs_fail_terse: "Error: unknown tool 'remove_file'.",
      obs_fail_verbose:
        "NameError: unknown tool 'remove_file'. Did you mean 'delete_file'? The available tools are: read_file, delete_file.",
      obs_fail_echo: "NameError: unknown tool 'remove_file'. Did you mean 'delete_file'?\n  while calling: remove_file(path='draft.md')",
      obs_success: 'OK',
      obs_fail_other: '',
      distractors: ["delete_file(file_path='draft.md')"],
    },
  ];
}
