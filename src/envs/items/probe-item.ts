// Probe items: one frozen decision point of an environment (ToolShed, CodeRepair) — the context
// before an attempt, a wrong action that fails there, the observations the runtime gives for it, and
// the correct action. Both environments build them; the probe study scores them.

/** One probe item; field names and order are the published JSONL schema. */
export interface ProbeItem {
  item_id: string;
  env: 'toolshed' | 'coderepair';
  task_id: string;
  template: string;
  step_index: number;
  operator: string;
  error_type: string;
  system_prompt: string;
  goal: string;
  prefix_actions: string[];
  prefix_observations: string[];
  failed_action: string;
  gold_action: string;
  obs_fail: string;
  obs_fail_terse: string;
  obs_fail_verbose: string;
  obs_fail_echo: string;
  obs_success: string;
  obs_neutral: string;
  obs_fail_other: string;
  distractors: string[];
  tool: string | null;
  meta: Record<string, unknown>;
}
