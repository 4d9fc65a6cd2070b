// Executing one action against a world (docs/harness.md §1.5): parse → finish → tool lookup → bind
// positionals → unexpected keywords → missing/type checks in declaration order → the tool itself.
// Every check precedes mutation, so a failed call never changes the world.
import { pyRound } from '../../core/py/numbers.ts';
import { pyLen, pySorted, pyStripChars } from '../../core/py/strings.ts';
import { PyDict, pyReprValue, PyTuple, type PyValue } from '../../core/py/values.ts';
import {
  arityDuplicateError,
  arityTooManyError,
  dateFormatError,
  emailFormatError,
  missingArgumentError,
  notFoundError,
  permissionError,
  renderError,
  stateError,
  timeFormatError,
  ToolError,
  typeErrorFor,
  unexpectedArgumentError,
  unknownToolError,
  unsupportedConversionError,
  type RenderOptions,
} from './errors.ts';
import { parseAction, type ParsedAction } from './parse.ts';
import { TOOLS_BY_NAME, UNIT_TABLE, unitFactor, type ArgSpec, type ToolSpec } from './tools.ts';
import type { CalendarEvent, Contact, World } from './world.ts';

/** The outcome of one `step`: ok or the error family, the observation text, and whether it echoes the action. */
export interface Outcome {
  ok: boolean;
  observation: string;
  /** Error family (null when ok). */
  errorType: string | null;
  /** Whether the observation quotes the action (echo rendering). */
  echoesAction: boolean;
  /** `finish: true` for finish(). */
  info: { finish?: boolean };
  /** The failure with all three renderings (absent when ok). */
  error?: ToolError;
}

/** Arguments after binding and type checks: strings, floats, lists of strings. */
type BoundArgs = Map<string, PyValue>;

// Python's `\d` is any Unicode decimal digit and `$` also matches before a final newline.
const DATE_RE = /^\p{Nd}{4}-\p{Nd}{2}-\p{Nd}{2}\n?$/u;
const TIME_RE = /^\p{Nd}{2}:\p{Nd}{2}\n?$/u;

function contactValue(c: Contact): PyValue {
  return new PyDict([
    ['name', c.name],
    ['email', c.email],
    ['team', c.team],
  ]);
}

function eventValue(e: CalendarEvent): PyValue {
  return new PyDict([
    ['id', e.id],
    ['title', e.title],
    ['date', e.date],
    ['time', e.time],
    ['attendees', [...e.attendees]],
  ]);
}

function requireDate(value: string, tool: string): string {
  if (!DATE_RE.test(value)) throw dateFormatError(value, 'date', tool);
  return value;
}

const str = (kw: BoundArgs, name: string): string => kw.get(name) as string;

type ToolImpl = (world: World, kw: BoundArgs) => PyValue;

const DISPATCH: Record<string, ToolImpl> = {
  list_files(world, kw) {
    const folder = pyStripChars(str(kw, 'folder'), '/');
    const paths = [...world.files.keys()];
    const hits = pySorted(paths.filter((p) => p.split('/')[0] === folder));
    if (!hits.length) throw notFoundError('folder', folder, pySorted(new Set(paths.map((p) => p.split('/')[0]))));
    return hits;
  },
  read_file(world, kw) {
    const path = str(kw, 'path');
    const f = world.files.get(path);
    if (!f) throw notFoundError('file', path, pySorted(world.files.keys()));
    return f.content;
  },
  write_file(world, kw) {
    const path = str(kw, 'path');
    const content = str(kw, 'content');
    if (world.files.get(path)?.readonly) throw permissionError(path, 'written');
    world.files.set(path, { content, readonly: false });
    return `wrote ${pyLen(content)} characters to ${path}`;
  },
  delete_file(world, kw) {
    const path = str(kw, 'path');
    const f = world.files.get(path);
    if (!f) throw notFoundError('file', path, pySorted(world.files.keys()));
    if (f.readonly) throw permissionError(path, 'deleted');
    world.files.delete(path);
    return `deleted ${path}`;
  },
  find_contact(world, kw) {
    const name = str(kw, 'name');
    for (const c of world.contacts) {
      if (c.name.toLowerCase() === name.toLowerCase()) {
        world.resolved.push(c.name);
        return contactValue(c);
      }
    }
    throw notFoundError(
      'contact',
      name,
      world.contacts.map((c) => c.name),
    );
  },
  list_contacts(world, kw) {
    const team = str(kw, 'team').toLowerCase();
    const hits = world.contacts.filter((c) => c.team === team).map(contactValue);
    if (!hits.length) throw notFoundError('team', str(kw, 'team'), pySorted(new Set(world.contacts.map((c) => c.team))));
    return hits;
  },
  list_events(world, kw) {
    const date = requireDate(str(kw, 'date'), 'list_events');
    return world.events.filter((e) => e.date === date && !e.cancelled).map(eventValue);
  },
  create_event(world, kw) {
    const date = requireDate(str(kw, 'date'), 'create_event');
    const time = str(kw, 'time');
    if (!TIME_RE.test(time)) throw timeFormatError(time);
    const attendees = kw.get('attendees') as string[];
    const known = new Set(world.contacts.map((c) => c.email));
    for (const a of attendees) if (!known.has(a)) throw notFoundError('attendee', a, pySorted(known));
    const id = `evt-${world.events.length + 1}`;
    world.events.push({ id, title: str(kw, 'title'), date, time, attendees: [...attendees], cancelled: false });
    return `created ${id}`;
  },
  cancel_event(world, kw) {
    const eid = str(kw, 'event_id');
    for (const e of world.events) {
      if (e.id === eid) {
        if (e.cancelled) throw stateError(eid);
        e.cancelled = true;
        return `cancelled ${eid}`;
      }
    }
    throw notFoundError(
      'event',
      eid,
      world.events.map((e) => e.id),
    );
  },
  send_message(world, kw) {
    const to = str(kw, 'to');
    const known = new Set(world.contacts.map((c) => c.email));
    if (!to.includes('@')) throw emailFormatError(to);
    if (!known.has(to)) throw notFoundError('recipient', to, pySorted(known));
    world.sent.push({ to, subject: str(kw, 'subject'), body: str(kw, 'body') });
    return `sent to ${to}`;
  },
  set_reminder(world, kw) {
    const date = requireDate(str(kw, 'date'), 'set_reminder');
    world.reminders.push({ text: str(kw, 'text'), date });
    return `reminder set for ${date}`;
  },
  convert_units(_world, kw) {
    const src = str(kw, 'from_unit').toLowerCase();
    const dst = str(kw, 'to_unit').toLowerCase();
    const factor = unitFactor(src, dst);
    if (factor === undefined) {
      const pairs = UNIT_TABLE.slice(0, 5)
        .map(([a, b]) => `${a}->${b}`)
        .join(', ');
      throw unsupportedConversionError(src, dst, pairs);
    }
    const value = kw.get('value') as number;
    if (src === 'c' && dst === 'f') return (value * 9) / 5 + 32;
    return pyRound(value * factor, 4);
  },
};

/** `_check_type`: returns the value converted the way the tool receives it (numbers → float). */
function checkType(spec: ToolSpec, a: ArgSpec, value: PyValue): PyValue {
  if (a.type === 'str') {
    if (typeof value !== 'string') throw typeErrorFor(spec, a, value, 'string');
    return value;
  }
  if (a.type === 'int' || a.type === 'float') {
    if (typeof value !== 'bigint' && typeof value !== 'number') throw typeErrorFor(spec, a, value, 'number');
    return Number(value);
  }
  // list[str]: a bare str, or anything but a list/tuple of str, is rejected; tuples become lists.
  if (typeof value === 'string') throw typeErrorFor(spec, a, value, 'list of strings');
  const items = Array.isArray(value) ? value : value instanceof PyTuple ? value.items : null;
  if (!items || !items.every((v) => typeof v === 'string')) throw typeErrorFor(spec, a, value, 'list of strings');
  return [...items];
}

/** Bind positionals, reject unknown keywords, then check presence and type in declaration order. */
export function bindArguments(spec: ToolSpec, parsed: ParsedAction): BoundArgs {
  const kwargs = new Map(parsed.kwargs);
  if (parsed.positional.length) {
    const names = spec.args.map((a) => a.name);
    if (parsed.positional.length > names.length) throw arityTooManyError(spec, parsed.positional.length);
    parsed.positional.forEach((value, i) => {
      if (kwargs.has(names[i])) throw arityDuplicateError(spec, names[i]);
      kwargs.set(names[i], value);
    });
  }
  const declared = new Set(spec.args.map((a) => a.name));
  for (const key of kwargs.keys()) if (!declared.has(key)) throw unexpectedArgumentError(spec, key);
  for (const a of spec.args) {
    if (a.required && !kwargs.has(a.name)) throw missingArgumentError(spec, a);
    if (kwargs.has(a.name)) kwargs.set(a.name, checkType(spec, a, kwargs.get(a.name)!));
  }
  return kwargs;
}

/** A successful result as the model sees it: strings verbatim, everything else by repr. */
export function renderResult(result: PyValue): string {
  return typeof result === 'string' ? result : pyReprValue(result);
}

/** Execute `action` against `world` (mutating it on success) and render the observation. */
export function step(world: World, action: string, options: RenderOptions = {}): Outcome {
  let result: PyValue;
  try {
    const parsed = parseAction(action);
    if (parsed.name === 'finish') {
      return { ok: true, observation: 'Session ended.', errorType: null, echoesAction: false, info: { finish: true } };
    }
    const spec = TOOLS_BY_NAME.get(parsed.name);
    if (!spec) throw unknownToolError(parsed.name);
    const kwargs = bindArguments(spec, parsed);
    result = DISPATCH[spec.name](world, kwargs);
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    return {
      ok: false,
      observation: renderError(action, e, options),
      errorType: e.kind,
      echoesAction: !!options.echoAction,
      info: {},
      error: e,
    };
  }
  return { ok: true, observation: renderResult(result), errorType: null, echoesAction: false, info: {} };
}
