// Task templates, gold actions and goal predicates (docs/harness.md §1.8). Probe tasks cycle through six
// templates on `toolshed-task-{i}` streams; agent tasks interleave three single-call templates on
// `agent-task-{i}` streams. Both build their world with buildWorld(seed, i).
import { pyFormatG, pyRound } from '../../core/py/numbers.ts';
import { pySorted } from '../../core/py/strings.ts';
import { pyReprValue, type PyValue } from '../../core/py/values.ts';
import { pyFloatRepr, PY_SPACE_CLASS, pyStrip } from '../../core/py/format.ts';
import type { PyRandom } from '../../core/py/random.ts';
import { DEFAULT_SEED, rngFor } from './seeding.ts';
import { unitFactor } from './tools.ts';
import { buildWorld, type World } from './world.ts';

type ProbeTemplate = 'email_file' | 'cancel_event' | 'schedule' | 'roster' | 'archive' | 'convert';
type AgentOnlyTemplate = 'lookup' | 'simple_write' | 'simple_reminder';
/** The task templates (the probe's six and the agent study's extra ones). */
export type TemplateName = ProbeTemplate | AgentOnlyTemplate;

interface PayloadBase {
  world_seed: number;
  world_index: number;
}

/** A task's template and the facts its goal predicate checks. */
export type TaskPayload = PayloadBase &
  (
    | { template: 'email_file'; contact_email: string; file_content: string }
    | { template: 'cancel_event'; event_id: string }
    | { template: 'schedule'; contact_email: string; date: string; time: string }
    | { template: 'roster'; out_path: string; team_names: string[] }
    | { template: 'archive'; path: string; date: string }
    | { template: 'convert'; out_path: string; expected: number }
    | { template: 'lookup'; contact_name: string }
    | { template: 'simple_write'; out_path: string; text: string }
    | { template: 'simple_reminder'; date: string; text: string }
  );

/** A task's difficulty label. */
export type Difficulty = 'easy' | 'medium' | 'hard';

/** A ToolShed task: its id, goal text, template payload (what `isSolved` checks) and gold actions. */
export interface Task {
  task_id: string;
  goal: string;
  payload: TaskPayload;
  gold_actions: string[];
  difficulty: Difficulty;
}

/** `name(k=repr(v), …)` with kwargs in insertion order (ints stay ints: `value=59`). */
export function formatCall(name: string, kwargs: readonly (readonly [string, PyValue])[] | Map<string, PyValue>): string {
  const entries = kwargs instanceof Map ? [...kwargs.entries()] : kwargs;
  return `${name}(${entries.map(([k, v]) => `${k}=${pyReprValue(v)}`).join(', ')})`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

type TemplateFn = (i: number, world: World, rng: PyRandom, seed: number) => Task;

function writablePaths(world: World): string[] {
  return [...world.files.entries()].filter(([, f]) => !f.readonly).map(([p]) => p);
}

const emailFile: TemplateFn = (i, world, rng, seed) => {
  const contact = rng.choice(world.contacts);
  const path = rng.choice(writablePaths(world));
  const content = world.files.get(path)!.content;
  const stem = path.split('/').pop()!.split('.')[0];
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Send ${contact.name} the contents of ${path}. Use '${stem}' as the subject.`,
    payload: { template: 'email_file', world_seed: seed, world_index: i, contact_email: contact.email, file_content: content },
    gold_actions: [
      formatCall('find_contact', [['name', contact.name]]),
      formatCall('read_file', [['path', path]]),
      formatCall('send_message', [
        ['to', contact.email],
        ['subject', stem],
        ['body', content],
      ]),
      'finish()',
    ],
    difficulty: 'medium',
  };
};

const cancelEvent: TemplateFn = (i, world, rng, seed) => {
  const event = rng.choice(world.events);
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Cancel the '${event.title}' meeting scheduled on ${event.date}.`,
    payload: { template: 'cancel_event', world_seed: seed, world_index: i, event_id: event.id },
    gold_actions: [formatCall('list_events', [['date', event.date]]), formatCall('cancel_event', [['event_id', event.id]]), 'finish()'],
    difficulty: 'easy',
  };
};

const schedule: TemplateFn = (i, world, rng, seed) => {
  const contact = rng.choice(world.contacts);
  const date = `2026-10-${pad2(rng.randint(10, 26))}`;
  const time = `${pad2(rng.choice([9, 11, 13, 16]))}:30`;
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Schedule a 1:1 with ${contact.name} on ${date} at ${time}. Title the event '1:1'.`,
    payload: { template: 'schedule', world_seed: seed, world_index: i, contact_email: contact.email, date, time },
    gold_actions: [
      formatCall('find_contact', [['name', contact.name]]),
      formatCall('create_event', [
        ['title', '1:1'],
        ['date', date],
        ['time', time],
        ['attendees', [contact.email]],
      ]),
      'finish()',
    ],
    difficulty: 'medium',
  };
};

const roster: TemplateFn = (i, world, rng, seed) => {
  const team = rng.choice(pySorted(new Set(world.contacts.map((c) => c.team))));
  const members = world.contacts.filter((c) => c.team === team).map((c) => c.name);
  const outPath = 'reports/roster.md';
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Write the names of everyone on the ${team} team, comma separated, to ${outPath}.`,
    payload: { template: 'roster', world_seed: seed, world_index: i, out_path: outPath, team_names: members },
    gold_actions: [
      formatCall('list_contacts', [['team', team]]),
      formatCall('write_file', [
        ['path', outPath],
        ['content', members.join(', ')],
      ]),
      'finish()',
    ],
    difficulty: 'medium',
  };
};

const archive: TemplateFn = (i, world, rng, seed) => {
  const path = rng.choice(writablePaths(world));
  const date = `2026-11-${pad2(rng.randint(3, 27))}`;
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Delete ${path}, then set a reminder for ${date} saying '${path} was archived'.`,
    payload: { template: 'archive', world_seed: seed, world_index: i, path, date },
    gold_actions: [
      formatCall('delete_file', [['path', path]]),
      formatCall('set_reminder', [
        ['text', `${path} was archived`],
        ['date', date],
      ]),
      'finish()',
    ],
    difficulty: 'easy',
  };
};

const CONVERT_PAIRS: readonly (readonly [string, string])[] = [
  ['km', 'mi'],
  ['kg', 'lb'],
  ['l', 'gal'],
];

const convert: TemplateFn = (i, _world, rng, seed) => {
  const [src, dst] = rng.choice(CONVERT_PAIRS);
  // An int, so the gold call reads `value=59` (what a competent model would write).
  const value = rng.randint(5, 90);
  const expected = pyRound(value * unitFactor(src, dst)!, 4);
  const outPath = 'reports/conversion.md';
  return {
    task_id: `toolshed-${String(i).padStart(4, '0')}`,
    goal: `Convert ${pyFormatG(BigInt(value))} ${src} to ${dst} and write only the resulting number to ${outPath}.`,
    payload: { template: 'convert', world_seed: seed, world_index: i, out_path: outPath, expected },
    gold_actions: [
      formatCall('convert_units', [
        ['value', BigInt(value)],
        ['from_unit', src],
        ['to_unit', dst],
      ]),
      formatCall('write_file', [
        ['path', outPath],
        ['content', pyFloatRepr(expected)],
      ]),
      'finish()',
    ],
    difficulty: 'hard',
  };
};

const lookup: TemplateFn = (i, world, rng, seed) => {
  const contact = rng.choice(world.contacts);
  return {
    task_id: `agent-${String(i).padStart(4, '0')}`,
    goal: `Look up the contact record for ${contact.name}.`,
    payload: { template: 'lookup', world_seed: seed, world_index: i, contact_name: contact.name },
    gold_actions: [formatCall('find_contact', [['name', contact.name]]), 'finish()'],
    difficulty: 'easy',
  };
};

const simpleWrite: TemplateFn = (i, _world, rng, seed) => {
  const text = rng.choice(['backups verified', 'keys rotated', 'invoice sent', 'release tagged']);
  const outPath = 'notes/status.md';
  return {
    task_id: `agent-${String(i).padStart(4, '0')}`,
    goal: `Create the file ${outPath} containing exactly: ${text}`,
    payload: { template: 'simple_write', world_seed: seed, world_index: i, out_path: outPath, text },
    gold_actions: [
      formatCall('write_file', [
        ['path', outPath],
        ['content', text],
      ]),
      'finish()',
    ],
    difficulty: 'easy',
  };
};

const simpleReminder: TemplateFn = (i, _world, rng, seed) => {
  const date = `2026-12-${pad2(rng.randint(3, 27))}`;
  const text = rng.choice(['renew the domain', 'file the expenses', 'review the roadmap']);
  return {
    task_id: `agent-${String(i).padStart(4, '0')}`,
    goal: `Set a reminder for ${date} that says: ${text}`,
    payload: { template: 'simple_reminder', world_seed: seed, world_index: i, date, text },
    gold_actions: [
      formatCall('set_reminder', [
        ['text', text],
        ['date', date],
      ]),
      'finish()',
    ],
    difficulty: 'easy',
  };
};

const PROBE_TEMPLATE_FNS: readonly TemplateFn[] = [emailFile, cancelEvent, schedule, roster, archive, convert];

export const AGENT_TEMPLATES: readonly TemplateName[] = [
  'lookup',
  'cancel_event',
  'simple_write',
  'archive',
  'simple_reminder',
  'schedule',
  'lookup',
  'roster',
  'simple_write',
  'email_file',
  'simple_reminder',
  'convert',
];
const TEMPLATE_FNS: Record<TemplateName, TemplateFn> = {
  email_file: emailFile,
  cancel_event: cancelEvent,
  schedule,
  roster,
  archive,
  convert,
  lookup,
  simple_write: simpleWrite,
  simple_reminder: simpleReminder,
};

/** `generate_tasks(n, seed)`: probe tasks `toolshed-{i:04d}`, template i mod 6. */
export function generateTasks(n: number, seed = DEFAULT_SEED): Task[] {
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    const world = buildWorld(seed, i);
    const rng = rngFor(seed, `toolshed-task-${i}`);
    tasks.push(PROBE_TEMPLATE_FNS[i % PROBE_TEMPLATE_FNS.length](i, world, rng, seed));
  }
  return tasks;
}

/** `generate_agent_tasks(n, seed)`: agent tasks `agent-{i:04d}`, template AGENT_TEMPLATES[i mod 12]. */
export function generateAgentTasks(n: number, seed = DEFAULT_SEED): Task[] {
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    const world = buildWorld(seed, i);
    const rng = rngFor(seed, `agent-task-${i}`);
    const task = TEMPLATE_FNS[AGENT_TEMPLATES[i % AGENT_TEMPLATES.length]](i, world, rng, seed);
    task.task_id = `agent-${String(i).padStart(4, '0')}`;
    tasks.push(task);
  }
  return tasks;
}

/** The task's initial world (a fresh copy every call). */
export function taskWorld(task: Task): World {
  return buildWorld(task.payload.world_seed, task.payload.world_index);
}

const PY_SPLIT = new RegExp(`${PY_SPACE_CLASS}+`, 'u');

/** Whether the task's goal predicate holds in `world`. */
export function isSolved(task: Task, world: World): boolean {
  const p = task.payload;
  switch (p.template) {
    case 'email_file':
      return world.sent.some((m) => m.to === p.contact_email && m.body.includes(p.file_content));
    case 'cancel_event':
      return world.events.some((e) => e.id === p.event_id && e.cancelled);
    case 'schedule':
      return world.events.some((e) => !e.cancelled && e.date === p.date && e.time === p.time && e.attendees.includes(p.contact_email));
    case 'roster': {
      const f = world.files.get(p.out_path);
      if (!f) return false;
      return p.team_names.every((name) => f.content.includes(pyStrip(name).split(PY_SPLIT)[0]));
    }
    case 'archive':
      return !world.files.has(p.path) && world.reminders.some((r) => r.date === p.date);
    case 'convert': {
      const f = world.files.get(p.out_path);
      return !!f && f.content.includes(pyFloatRepr(p.expected));
    }
    case 'lookup': {
      const want = p.contact_name.toLowerCase();
      return world.resolved.some((n) => n.toLowerCase() === want);
    }
    case 'simple_write': {
      const f = world.files.get(p.out_path);
      return !!f && f.content.includes(pyStrip(p.text));
    }
    case 'simple_reminder':
      return world.reminders.some((r) => r.date === p.date && r.text.includes(pyStrip(p.text)));
  }
}
