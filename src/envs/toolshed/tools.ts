// The twelve ToolShed tools: signatures, documentation lines and the unit table (docs/harness.md §1.1).
// The rendered docs are part of the system prompt, so every string here is byte-exact.

/** The argument types ToolShed's tools take. */
export type ArgType = 'str' | 'int' | 'float' | 'list[str]';

/** One argument of a tool: name, type and whether it is required. */
export interface ArgSpec {
  name: string;
  type: ArgType;
  required: boolean;
  description: string;
}

/** A tool: its name, description, arguments and return description. */
export interface ToolSpec {
  name: string;
  description: string;
  args: readonly ArgSpec[];
  returns: string;
}

function arg(name: string, type: ArgType, description: string): ArgSpec {
  return { name, type, required: true, description };
}

/** ToolShed's twelve tools in the system prompt's order. */
export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_files',
    description: 'List the files inside a folder.',
    args: [arg('folder', 'str', "folder name, e.g. 'notes'")],
    returns: 'list[str]',
  },
  {
    name: 'read_file',
    description: 'Return the contents of a file.',
    args: [arg('path', 'str', "full path, e.g. 'notes/todo.md'")],
    returns: 'str',
  },
  {
    name: 'write_file',
    description: 'Create or overwrite a file.',
    args: [arg('path', 'str', 'full path'), arg('content', 'str', 'text to store')],
    returns: 'str',
  },
  { name: 'delete_file', description: 'Delete a file.', args: [arg('path', 'str', 'full path')], returns: 'str' },
  {
    name: 'find_contact',
    description: 'Look up one contact by full name.',
    args: [arg('name', 'str', 'exact full name')],
    returns: 'dict',
  },
  {
    name: 'list_contacts',
    description: 'List the members of a team.',
    args: [arg('team', 'str', "team name, e.g. 'design'")],
    returns: 'list[dict]',
  },
  {
    name: 'list_events',
    description: 'List calendar events on a date.',
    args: [arg('date', 'str', 'date as YYYY-MM-DD')],
    returns: 'list[dict]',
  },
  {
    name: 'create_event',
    description: 'Add a calendar event.',
    args: [
      arg('title', 'str', 'event title'),
      arg('date', 'str', 'date as YYYY-MM-DD'),
      arg('time', 'str', 'start time as HH:MM'),
      arg('attendees', 'list[str]', 'list of attendee emails'),
    ],
    returns: 'str',
  },
  {
    name: 'cancel_event',
    description: 'Cancel a calendar event by id.',
    args: [arg('event_id', 'str', "event id, e.g. 'evt-4'")],
    returns: 'str',
  },
  {
    name: 'send_message',
    description: 'Send a message to one recipient email address.',
    args: [arg('to', 'str', 'recipient email address'), arg('subject', 'str', 'subject line'), arg('body', 'str', 'message body')],
    returns: 'str',
  },
  {
    name: 'set_reminder',
    description: 'Store a reminder for a date.',
    args: [arg('text', 'str', 'reminder text'), arg('date', 'str', 'date as YYYY-MM-DD')],
    returns: 'str',
  },
  {
    name: 'convert_units',
    description: 'Convert a value between two units.',
    args: [arg('value', 'float', 'numeric value'), arg('from_unit', 'str', 'source unit'), arg('to_unit', 'str', 'target unit')],
    returns: 'float',
  },
];

export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));

/** `name(arg: type, …) -> returns`. */
export function toolSignature(spec: ToolSpec): string {
  const parts = spec.args.map((a) => (a.required ? `${a.name}: ${a.type}` : `${a.name}: ${a.type} = None`));
  return `${spec.name}(${parts.join(', ')}) -> ${spec.returns}`;
}

/** The doc block of one tool as it appears in the system prompt. */
export function toolDoc(spec: ToolSpec): string {
  const lines = [`- ${toolSignature(spec)}`, `    ${spec.description}`];
  for (const a of spec.args) lines.push(`    ${a.name}${a.required ? '' : ' (optional)'}: ${a.description}`);
  return lines.join('\n');
}

/**
 * Supported conversions in table order (the verbose error lists the first five). c→f is computed
 * as v·9/5+32 and is not rounded.
 */
export const UNIT_TABLE: readonly (readonly [string, string, number])[] = [
  ['km', 'mi', 0.621371],
  ['mi', 'km', 1.609344],
  ['kg', 'lb', 2.204623],
  ['lb', 'kg', 0.453592],
  ['c', 'f', 0.0],
  ['l', 'gal', 0.264172],
  ['gal', 'l', 3.785412],
];

export function unitFactor(src: string, dst: string): number | undefined {
  const hit = UNIT_TABLE.find(([a, b]) => a === src && b === dst);
  return hit ? hit[2] : undefined;
}
