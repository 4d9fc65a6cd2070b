// IFEval's four standard accuracies (prompt-level and instruction-level, strict and loose; as
// evaluation_lib.print_report computes them) at the first draft and at the end of the budget, per
// controller, plus a table per instruction type. Read from the stored IFEval states, which carry
// both follow lists whatever mode decided joint success. Plain data first (analyzeIfeval, for the
// report's section registry and JSON); renderIfeval for the terminal.
import type { TrajectoryRecord } from '../../../store/types.ts';

const IFEVAL_ANALYSIS_SCHEMA = 'revloop.ifeval-analysis/1';

export interface IfevalAccuracies {
  /** Fraction of prompts whose every instruction is followed; null without prompts. */
  prompt_strict: number | null;
  prompt_loose: number | null;
  /** Fraction of instructions followed. */
  instruction_strict: number | null;
  instruction_loose: number | null;
}

export interface IfevalInstructionRow {
  instruction_id: string;
  n: number;
  first_draft: { strict: number; loose: number };
  end_of_budget: { strict: number; loose: number };
}

interface IfevalControllerSummary {
  controller: string;
  /** A simulated (`sim:`) controller: its numbers describe a simulation, never a model. */
  simulated: boolean;
  runs: string[];
  /** The mode joint success (and so the stop rule) used: strict, loose, or mixed across runs. */
  mode: 'strict' | 'loose' | 'mixed';
  prompts: number;
  instructions: number;
  first_draft: IfevalAccuracies;
  end_of_budget: IfevalAccuracies;
  /** Per instruction id (instructions_registry's tier 1), sorted by id. */
  by_instruction: IfevalInstructionRow[];
  /** Per instruction group (the part before ":", the official tier 0), sorted. */
  by_group: IfevalInstructionRow[];
}

/** IFEval's standard accuracies per controller (prompt- and instruction-level, strict and loose) at the first draft and after revision. */
export interface IfevalAnalysis {
  schema: typeof IFEVAL_ANALYSIS_SCHEMA;
  controllers: IfevalControllerSummary[];
  /** Protocol-incomplete IFEval trajectories, excluded from every number. */
  excluded_incomplete: number;
}

interface FollowLists {
  ids: string[];
  strict: boolean[];
  loose: boolean[];
}

function lists(state: Record<string, unknown>): FollowLists | null {
  const ids = state.instruction_id_list;
  const strict = state.follow_instruction_list_strict;
  const loose = state.follow_instruction_list_loose;
  if (!Array.isArray(ids) || !Array.isArray(strict) || !Array.isArray(loose)) return null;
  return { ids: ids as string[], strict: strict as boolean[], loose: loose as boolean[] };
}

class Tally {
  prompts = 0;
  promptStrict = 0;
  promptLoose = 0;
  instructions = 0;
  instructionStrict = 0;
  instructionLoose = 0;

  add(l: FollowLists): void {
    this.prompts++;
    if (l.strict.every(Boolean)) this.promptStrict++;
    if (l.loose.every(Boolean)) this.promptLoose++;
    this.instructions += l.ids.length;
    this.instructionStrict += l.strict.filter(Boolean).length;
    this.instructionLoose += l.loose.filter(Boolean).length;
  }

  accuracies(): IfevalAccuracies {
    const f = (k: number, n: number) => (n ? k / n : null);
    return {
      prompt_strict: f(this.promptStrict, this.prompts),
      prompt_loose: f(this.promptLoose, this.prompts),
      instruction_strict: f(this.instructionStrict, this.instructions),
      instruction_loose: f(this.instructionLoose, this.instructions),
    };
  }
}

type Counts = { n: number; fs: number; fl: number; es: number; el: number };

function rows(map: Map<string, Counts>): IfevalInstructionRow[] {
  return [...map.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, c]) => ({
      instruction_id: id,
      n: c.n,
      first_draft: { strict: c.fs / c.n, loose: c.fl / c.n },
      end_of_budget: { strict: c.es / c.n, loose: c.el / c.n },
    }));
}

/** The IFEval section over any trajectories (non-IFEval ones are ignored); empty when there are none. */
export function analyzeIfeval(trajectories: readonly TrajectoryRecord[]): IfevalAnalysis {
  const groups = new Map<string, TrajectoryRecord[]>();
  let excluded = 0;
  for (const t of trajectories) {
    if (t.family !== 'ifeval') continue;
    if (t.status !== 'complete' || !t.rounds.length) {
      excluded++;
      continue;
    }
    const list = groups.get(t.controller) ?? [];
    list.push(t);
    groups.set(t.controller, list);
  }
  const controllers: IfevalControllerSummary[] = [];
  for (const [controller, ts] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const first = new Tally();
    const final = new Tally();
    const byId = new Map<string, Counts>();
    const byGroup = new Map<string, Counts>();
    const modes = new Set<string>();
    for (const t of ts) {
      const a = lists(t.rounds[0].state);
      const b = lists(t.rounds[t.rounds.length - 1].state);
      if (!a || !b) continue;
      modes.add(String(t.rounds[0].state.ifeval_mode ?? 'strict'));
      first.add(a);
      final.add(b);
      a.ids.forEach((id, i) => {
        for (const [map, key] of [
          [byId, id],
          [byGroup, id.split(':')[0]],
        ] as const) {
          const c = map.get(key) ?? { n: 0, fs: 0, fl: 0, es: 0, el: 0 };
          c.n++;
          c.fs += +a.strict[i];
          c.fl += +a.loose[i];
          c.es += +b.strict[i];
          c.el += +b.loose[i];
          map.set(key, c);
        }
      });
    }
    controllers.push({
      controller,
      simulated: ts.some((t) => t.simulated),
      runs: [...new Set(ts.map((t) => t.runId))].sort(),
      mode: modes.size === 1 ? ([...modes][0] as 'strict' | 'loose') : 'mixed',
      prompts: first.prompts,
      instructions: first.instructions,
      first_draft: first.accuracies(),
      end_of_budget: final.accuracies(),
      by_instruction: rows(byId),
      by_group: rows(byGroup),
    });
  }
  return { schema: IFEVAL_ANALYSIS_SCHEMA, controllers, excluded_incomplete: excluded };
}

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);

/** Terminal tables; '' when there is no IFEval trajectory. */
export function renderIfeval(a: IfevalAnalysis): string {
  if (!a.controllers.length && !a.excluded_incomplete) return '';
  const out: string[] = ['', 'IFEval: accuracy at the first draft → at the end of the budget (strict / loose)'];
  for (const c of a.controllers) {
    // One SIMULATED mark per label (sim: labels already say "simulated").
    const tag = c.simulated && !/simulated/i.test(c.controller) ? ' [SIMULATED]' : '';
    out.push(`\n${c.controller}${tag} — ${c.prompts} prompts, ${c.instructions} instructions, joint success ${c.mode}`);
    out.push(`  ${'accuracy'.padEnd(26)}${'first draft'.padStart(12)}${'end of budget'.padStart(16)}`);
    const line = (label: string, k: keyof IfevalAccuracies) =>
      out.push(`  ${label.padEnd(26)}${pct(c.first_draft[k]).padStart(12)}${pct(c.end_of_budget[k]).padStart(16)}`);
    line('prompt-level strict', 'prompt_strict');
    line('prompt-level loose', 'prompt_loose');
    line('instruction-level strict', 'instruction_strict');
    line('instruction-level loose', 'instruction_loose');
    const width = Math.max(16, ...c.by_instruction.map((r) => r.instruction_id.length)) + 2;
    out.push(
      `\n  ${'instruction'.padEnd(width)}${'n'.padStart(5)}${'first strict/loose'.padStart(22)}${'final strict/loose'.padStart(22)}`,
    );
    for (const r of c.by_instruction) {
      const cell = (x: { strict: number; loose: number }) => `${pct(x.strict)} / ${pct(x.loose)}`;
      out.push(
        `  ${r.instruction_id.padEnd(width)}${String(r.n).padStart(5)}${cell(r.first_draft).padStart(22)}${cell(r.end_of_budget).padStart(22)}`,
      );
    }
  }
  if (a.excluded_incomplete) out.push(`\n${a.excluded_incomplete} protocol-incomplete IFEval trajectories excluded`);
  return out.join('\n') + '\n';
}
