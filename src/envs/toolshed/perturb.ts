// Perturbation operators (docs/harness.md §2): plausible wrong variants of a correct call, each tagged
// with the error family it is meant to provoke. Their order is fixed; the index in the returned
// list is the `pert_index` of probe item ids.
import { pyFormatG } from '../../core/py/numbers.ts';
import { pyStr, type PyValue } from '../../core/py/values.ts';
import { pyStrip } from '../../core/py/format.ts';
import { parseAction } from './parse.ts';
import { formatCall } from './tasks.ts';
import { TOOLS_BY_NAME } from './tools.ts';
import type { World } from './world.ts';

/** A perturbed (failing) variant of a gold action: the action, the operator, and the error family it should raise. */
export interface Perturbation {
  action: string;
  operator: string;
  expectedError: string;
}

const TOOL_TYPOS: Readonly<Record<string, string>> = {
  find_contact: 'find_contacts',
  read_file: 'read_files',
  write_file: 'save_file',
  delete_file: 'remove_file',
  list_files: 'list_file',
  list_contacts: 'list_contact',
  list_events: 'list_event',
  create_event: 'add_event',
  cancel_event: 'delete_event',
  send_message: 'send_email',
  set_reminder: 'create_reminder',
  convert_units: 'convert_unit',
};

const ARG_TYPOS: Readonly<Record<string, string>> = {
  path: 'file_path',
  folder: 'directory',
  name: 'contact_name',
  team: 'team_name',
  date: 'day',
  time: 'start_time',
  attendees: 'participants',
  event_id: 'id',
  to: 'recipient',
  subject: 'title',
  body: 'message',
  text: 'note',
  value: 'amount',
  from_unit: 'source_unit',
  to_unit: 'target_unit',
  content: 'text',
};

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The operators that occur in the probe item pool (8). */
export const PROBE_OPERATORS: readonly string[] = [
  'arg_typo',
  'date_format',
  'drop_arg',
  'hallucinated_entity',
  'name_for_email',
  'readonly_target',
  'tool_typo',
  'type_swap',
];

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Numeric value of a Unicode decimal digit (Nd runs are aligned blocks of ten, zero first). */
function digitValue(ch: string): number {
  let cp = ch.codePointAt(0)!;
  let start = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  cp -= start;
  return cp % 10;
}

function pyInt(digits: string): number {
  let n = 0;
  for (const ch of digits) n = n * 10 + digitValue(ch);
  return n;
}

/** `MONTHS[int(mo) - 1]` with Python's negative indexing (month 00 reads December). */
function monthName(mo: string): string {
  const i = pyInt(mo) - 1;
  const name = MONTHS[i < 0 ? MONTHS.length + i : i];
  if (name === undefined) throw new RangeError(`list index out of range (month ${mo})`);
  return name;
}

const ISO_DATE = /^(\p{Nd}{4})-(\p{Nd}{2})-(\p{Nd}{2})\n?$/u;

/** `perturbations(gold, world)`: every applicable wrong variant, in the fixed operator order. */
export function perturbations(action: string, world: World): Perturbation[] {
  if (pyStrip(action) === 'finish()') return [];
  const parsed = parseAction(action);
  const spec = TOOLS_BY_NAME.get(parsed.name);
  if (!spec) return [];
  const kw = new Map(parsed.kwargs);
  const out: Perturbation[] = [];

  // 1. Drop the last required argument present (when more than one is present).
  const required = spec.args.filter((a) => a.required && kw.has(a.name)).map((a) => a.name);
  if (required.length > 1) {
    const dropped = new Map(kw);
    dropped.delete(required[required.length - 1]);
    out.push({ action: formatCall(spec.name, dropped), operator: 'drop_arg', expectedError: 'missing_argument' });
  }

  // 2. Misspell the tool name.
  if (has(TOOL_TYPOS, spec.name)) {
    out.push({ action: formatCall(TOOL_TYPOS[spec.name], kw), operator: 'tool_typo', expectedError: 'unknown_tool' });
  }

  // 3. Rename the first keyword (call order) that has a synonym.
  for (const argName of kw.keys()) {
    if (!has(ARG_TYPOS, argName)) continue;
    const renamed = new Map<string, PyValue>();
    for (const [k, v] of kw) renamed.set(k === argName ? ARG_TYPOS[k] : k, v);
    out.push({ action: formatCall(spec.name, renamed), operator: 'arg_typo', expectedError: 'unexpected_argument' });
    break;
  }

  // 4. Type confusion: a non-empty list becomes its first element, a number becomes format(v, "g").
  for (const a of spec.args) {
    if (!kw.has(a.name)) continue;
    const v = kw.get(a.name)!;
    if (a.type === 'list[str]' && Array.isArray(v) && v.length) {
      const swapped = new Map(kw);
      swapped.set(a.name, v[0]);
      out.push({ action: formatCall(spec.name, swapped), operator: 'type_swap', expectedError: 'type_error' });
      break;
    }
    if ((a.type === 'int' || a.type === 'float') && (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')) {
      const swapped = new Map(kw);
      swapped.set(a.name, pyFormatG(typeof v === 'boolean' ? BigInt(v) : v));
      out.push({ action: formatCall(spec.name, swapped), operator: 'type_swap', expectedError: 'type_error' });
      break;
    }
  }

  // 5. The date written the way a person would write it.
  for (const a of spec.args) {
    const v = kw.get(a.name);
    if (a.name === 'date' && typeof v === 'string') {
      const m = ISO_DATE.exec(v);
      if (m) {
        const swapped = new Map(kw);
        swapped.set(a.name, `${monthName(m[2])} ${pyInt(m[3])}, ${m[1]}`);
        out.push({ action: formatCall(spec.name, swapped), operator: 'date_format', expectedError: 'format_error' });
      }
      break;
    }
  }

  // 6. A referent that does not exist in this world (operator and family depend on the tool).
  const hall = hallucinate(spec.name, kw, world);
  if (hall) out.push(hall);
  return out;
}

function hallucinate(tool: string, kw: Map<string, PyValue>, world: World): Perturbation | null {
  const swapped = new Map(kw);
  const make = (operator: string, expectedError: string): Perturbation => ({
    action: formatCall(tool, swapped),
    operator,
    expectedError,
  });
  switch (tool) {
    case 'find_contact':
      swapped.set('name', 'Alex Ramirez');
      return make('hallucinated_entity', 'contact_not_found');
    case 'read_file':
    case 'delete_file':
      swapped.set('path', world.files.has('notes/meeting_notes.md') ? 'notes/archive_2025.md' : 'notes/meeting_notes.md');
      return make('hallucinated_entity', 'file_not_found');
    case 'cancel_event':
      swapped.set('event_id', 'evt-9');
      return make('hallucinated_entity', 'event_not_found');
    case 'send_message': {
      // The classic small-model mistake: the person's name where the address belongs.
      const to = kw.get('to');
      const email = to === undefined ? '' : pyStr(to);
      const c = world.contacts.find((x) => x.email === email);
      if (!c) return null;
      swapped.set('to', c.name);
      return make('name_for_email', 'format_error');
    }
    case 'list_contacts':
      swapped.set('team', 'marketing');
      return make('hallucinated_entity', 'team_not_found');
    case 'list_files':
      swapped.set('folder', 'documents');
      return make('hallucinated_entity', 'folder_not_found');
    case 'convert_units':
      swapped.set('to_unit', 'm');
      return make('hallucinated_entity', 'unsupported_conversion');
    case 'create_event': {
      const attendees = kw.get('attendees');
      if (!Array.isArray(attendees) || !attendees.length) return null;
      swapped.set('attendees', ['alex.ramirez@corp.example']);
      return make('hallucinated_entity', 'attendee_not_found');
    }
    case 'write_file':
      swapped.set('path', 'system/config.ini');
      return make('readonly_target', 'permission_error');
    case 'set_reminder':
      swapped.set('date', 'next Tuesday');
      return make('date_format', 'format_error');
    case 'list_events':
      swapped.set('date', 'tomorrow');
      return make('date_format', 'format_error');
    default:
      return null;
  }
}
