// Counterfactual observations for one fixed failed call (docs/harness.md §1.7): what the runtime would
// have printed had the call succeeded (argument-aware, so it names the same person or file), a
// valence-free acknowledgement, and that acknowledgement padded with hash "trace" units to the
// token length of the real error.
import { blake2bHex } from '../../core/py/blake2b.ts';
import { pyLen } from '../../core/py/strings.ts';
import { pyRepr, pyStrip } from '../../core/py/format.ts';
import { pyTruthy, type PyValue } from '../../core/py/values.ts';
import { ToolError } from './errors.ts';
import { parseAction } from './parse.ts';

/** First string among the named kwargs, else the first string among all kwargs then positionals. */
function firstStr(kwargs: Map<string, PyValue>, positional: readonly PyValue[], ...names: string[]): string | null {
  for (const n of names) {
    const v = kwargs.get(n);
    if (typeof v === 'string') return v;
  }
  for (const v of [...kwargs.values(), ...positional]) if (typeof v === 'string') return v;
  return null;
}

const SUCCESS_SHAPES: Readonly<Record<string, string>> = {
  list_files: "['notes/agenda.md', 'notes/todo.md']",
  read_file: 'renew the domain, file the expense report',
  write_file: 'wrote 26 characters to the file',
  delete_file: 'deleted the file',
  find_contact: "{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': 'design'}",
  list_contacts: "[{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': 'design'}]",
  list_events:
    "[{'id': 'evt-2', 'title': 'Sprint planning', 'date': '2026-09-14', 'time': '10:00', 'attendees': ['milo.silva@corp.example']}]",
  create_event: 'created evt-4',
  cancel_event: 'cancelled evt-2',
  send_message: 'sent to the recipient',
  set_reminder: 'reminder set',
  convert_units: '12.4274',
  finish: 'Session ended.',
};

function successFor(tool: string, kwargs: Map<string, PyValue>, positional: readonly PyValue[]): string {
  // Python's `s(...) or default`: an empty string falls back to the default too.
  const s = (...names: string[]): string | null => firstStr(kwargs, positional, ...names) || null;
  switch (tool) {
    case 'find_contact': {
      const name = s('name', 'contact_name') ?? 'Ingrid Moreau';
      const slug = name.toLowerCase().replaceAll(' ', '.');
      return `{'name': ${pyRepr(name)}, 'email': '${slug}@corp.example', 'team': 'design'}`;
    }
    case 'list_contacts': {
      const team = s('team', 'team_name') ?? 'design';
      return `[{'name': 'Ingrid Moreau', 'email': 'ingrid.moreau@corp.example', 'team': ${pyRepr(team)}}]`;
    }
    case 'read_file':
      return 'renew the domain, file the expense report';
    case 'write_file': {
      const path = s('path', 'file_path') ?? 'the file';
      const content = [kwargs.get('content'), kwargs.get('text')].find((v) => v !== undefined && pyTruthy(v)) ?? '';
      const n = typeof content === 'string' ? pyLen(content) : 26;
      return `wrote ${n} characters to ${path}`;
    }
    case 'delete_file':
      return `deleted ${s('path', 'file_path') ?? 'the file'}`;
    case 'list_files': {
      const folder = s('folder', 'directory') ?? 'notes';
      return `['${folder}/agenda.md', '${folder}/todo.md']`;
    }
    case 'list_events': {
      const date = s('date', 'day') ?? '2026-09-14';
      return `[{'id': 'evt-2', 'title': 'Sprint planning', 'date': ${pyRepr(date)}, 'time': '10:00', 'attendees': ['milo.silva@corp.example']}]`;
    }
    case 'cancel_event':
      return `cancelled ${s('event_id', 'id') ?? 'evt-2'}`;
    case 'send_message':
      return `sent to ${s('to', 'recipient') ?? 'the recipient'}`;
    case 'set_reminder':
      return `reminder set for ${s('date', 'day') ?? '2026-09-14'}`;
    case 'create_event':
      return 'created evt-4';
    case 'convert_units':
      return '12.4274';
    default:
      return Object.prototype.hasOwnProperty.call(SUCCESS_SHAPES, tool) ? SUCCESS_SHAPES[tool] : 'OK';
  }
}

/** The success counterfactual for `action` (`OK` when it does not parse or names no tool). */
export function successObservation(action: string): string {
  let parsed;
  try {
    parsed = parseAction(action);
  } catch (e) {
    if (e instanceof ToolError) return 'OK';
    throw e;
  }
  return successFor(parsed.name, parsed.kwargs, parsed.positional);
}

const NEUTRAL_OBSERVATION = 'Call recorded.';

/** `trace=` unit i: lowercase hex of BLAKE2b(digest_size=4) of "{action}:{i}". */
export function traceUnit(action: string, i: number): string {
  return blake2bHex(`${action}:${i}`, { digestSize: 4 });
}

/** Options of `neutralObservation`: filler units and the echo clause (both off in the probe). */
export interface NeutralOptions {
  /** Number of `trace=<hex>` filler units (0 = plain). */
  fillerUnits?: number;
  /** Append the echo clause (never in the probe). */
  echoAction?: boolean;
}

/** The valence-free observation, optionally padded with filler units. */
export function neutralObservation(action: string, options: NeutralOptions = {}): string {
  let base = NEUTRAL_OBSERVATION;
  const units = options.fillerUnits ?? 0;
  if (units > 0) {
    const segs = Array.from({ length: units }, (_, i) => `trace=${traceUnit(action, i)}`).join(' ');
    base = `${base} ${segs}`;
  }
  return options.echoAction ? `${base}\n  while calling: ${pyStrip(action)}` : base;
}

/**
 * The length-matched neutral (`neut_pad`): among the plain neutral and 1..23 filler units, the
 * candidate whose token count (this model's tokenizer, no special tokens) is closest to that of
 * `obs_fail`; ties keep the earlier, shorter one; the search stops at the first candidate that is
 * at least as long as the target.
 */
export function lengthMatchedNeutral(
  item: { failed_action: string; obs_fail: string; obs_neutral: string },
  countTokens: (text: string) => number,
  maxUnits = 23,
): string {
  const target = countTokens(item.obs_fail);
  let best = item.obs_neutral;
  let bestGap = Math.abs(countTokens(item.obs_neutral) - target);
  for (let units = 1; units <= maxUnits; units++) {
    const cand = neutralObservation(item.failed_action, { fillerUnits: units });
    const n = countTokens(cand);
    const gap = Math.abs(n - target);
    if (gap < bestGap) {
      best = cand;
      bestGap = gap;
    }
    if (n >= target) break;
  }
  return best;
}
