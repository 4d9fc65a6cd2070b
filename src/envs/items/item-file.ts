// Reading and writing probe item files (docs/harness.md §3.2): one JSON object per line, UTF-8. Every field
// is checked, and a bad line is reported as `file:line: field: problem`. The item builder
// (items.ts), `revloop probe --items` and the tests all read and write items through here.
import { readFileSync } from 'node:fs';
import { InputError, UserError, NotFoundError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/util/hash.ts';
import { pyJsonDumps } from '../../core/py/format.ts';
import type { ProbeItem } from './probe-item.ts';

/** Item fields in schema order (the order the JSONL is written in). */
const ITEM_FIELDS = [
  'item_id',
  'env',
  'task_id',
  'template',
  'step_index',
  'operator',
  'error_type',
  'system_prompt',
  'goal',
  'prefix_actions',
  'prefix_observations',
  'failed_action',
  'gold_action',
  'obs_fail',
  'obs_fail_terse',
  'obs_fail_verbose',
  'obs_fail_echo',
  'obs_success',
  'obs_neutral',
  'obs_fail_other',
  'distractors',
  'tool',
  'meta',
] as const;

/** Fields that are not required strings (checked one by one in validateItem). */
const OTHER_FIELDS = new Set<string>([
  'step_index',
  'prefix_actions',
  'prefix_observations',
  'obs_fail_other',
  'distractors',
  'tool',
  'meta',
]);

/** The required string fields, in schema order (the first missing one is the one reported). */
const STRING_FIELDS = ITEM_FIELDS.filter((f) => !OTHER_FIELDS.has(f));

/** Validates one parsed line into a ProbeItem with fields in schema order. */
function validateItem(value: unknown, file: string, line: number | null): ProbeItem {
  const bad = (field: string | null, problem: string) => new InputError(problem, { file, line, field });
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad(null, 'each line must be a JSON object (one probe item)');
  const v = value as Record<string, unknown>;
  for (const f of STRING_FIELDS) {
    if (typeof v[f] !== 'string')
      throw bad(
        f,
        v[f] === undefined ? 'missing (every probe item needs it; see docs/probe.md)' : `must be a string, got ${jsonType(v[f])}`,
      );
  }
  if ((v.item_id as string).trim() === '') throw bad('item_id', 'must not be empty');
  if (!Number.isInteger(v.step_index) || (v.step_index as number) < 0)
    throw bad('step_index', `must be a non-negative integer, got ${JSON.stringify(v.step_index)}`);
  for (const f of ['prefix_actions', 'prefix_observations', 'distractors'] as const) {
    const a = v[f];
    if (a === undefined && f === 'distractors') continue;
    if (!Array.isArray(a) || !a.every((x) => typeof x === 'string')) throw bad(f, `must be a list of strings, got ${jsonType(a)}`);
  }
  if ((v.prefix_actions as string[]).length !== (v.prefix_observations as string[]).length) {
    throw bad(
      'prefix_observations',
      `has ${(v.prefix_observations as string[]).length} entries but prefix_actions has ${(v.prefix_actions as string[]).length}; they pair up step by step`,
    );
  }
  if (v.obs_fail_other !== undefined && typeof v.obs_fail_other !== 'string')
    throw bad('obs_fail_other', `must be a string (may be ""), got ${jsonType(v.obs_fail_other)}`);
  if (v.tool !== undefined && v.tool !== null && typeof v.tool !== 'string')
    throw bad('tool', `must be a string or null, got ${jsonType(v.tool)}`);
  if (v.meta !== undefined && (v.meta === null || typeof v.meta !== 'object' || Array.isArray(v.meta)))
    throw bad('meta', `must be an object, got ${jsonType(v.meta)}`);
  const known = new Set<string>(ITEM_FIELDS);
  for (const k of Object.keys(v)) if (!known.has(k)) throw bad(k, `unknown field (probe items have: ${ITEM_FIELDS.join(', ')})`);
  return {
    item_id: v.item_id as string,
    env: v.env as ProbeItem['env'],
    task_id: v.task_id as string,
    template: v.template as string,
    step_index: v.step_index as number,
    operator: v.operator as string,
    error_type: v.error_type as string,
    system_prompt: v.system_prompt as string,
    goal: v.goal as string,
    prefix_actions: [...(v.prefix_actions as string[])],
    prefix_observations: [...(v.prefix_observations as string[])],
    failed_action: v.failed_action as string,
    gold_action: v.gold_action as string,
    obs_fail: v.obs_fail as string,
    obs_fail_terse: v.obs_fail_terse as string,
    obs_fail_verbose: v.obs_fail_verbose as string,
    obs_fail_echo: v.obs_fail_echo as string,
    obs_success: v.obs_success as string,
    obs_neutral: v.obs_neutral as string,
    obs_fail_other: (v.obs_fail_other as string | undefined) ?? '',
    distractors: [...((v.distractors as string[] | undefined) ?? [])],
    tool: (v.tool as string | null | undefined) ?? null,
    meta: { ...((v.meta as Record<string, unknown> | undefined) ?? {}) },
  };
}

function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  return typeof x === 'object' ? 'an object' : typeof x === 'undefined' ? 'nothing' : `a ${typeof x}`;
}

/** Parses JSONL text into items (blank lines skipped, CRLF tolerated, ids unique). */
export function parseItems(text: string, file: string): ProbeItem[] {
  const items: ProbeItem[] = [];
  const seen = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw0, i) => {
    const raw = raw0.endsWith('\r') ? raw0.slice(0, -1) : raw0;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new InputError(`invalid JSON (${(e as Error).message})`, { file, line: i + 1 });
    }
    const item = validateItem(value, file, i + 1);
    const first = seen.get(item.item_id);
    if (first !== undefined)
      throw new InputError(`"${item.item_id}" already appears on line ${first}; item ids must be unique`, {
        file,
        line: i + 1,
        field: 'item_id',
      });
    seen.set(item.item_id, i + 1);
    items.push(item);
  });
  if (!items.length) throw new InputError('no probe items (the file is empty)', { file });
  return items;
}

/**
 * Reads and validates a probe item file: the items and the file's SHA-256. Throws an InputError naming file, line and field for a bad
 * line, a NotFoundError for a missing file.
 */
export function readItemsFile(path: string): { items: ProbeItem[]; sha256: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const message = `${path}: cannot read the items file (${code === 'ENOENT' ? 'no such file' : (e as Error).message})`;
    throw code === 'ENOENT' ? new NotFoundError(message, { kind: 'file', target: path }) : new UserError(message);
  }
  return { items: parseItems(text, path), sha256: sha256Hex(text) };
}

/** One item as the reference writes it: `json.dumps(asdict(item), ensure_ascii=False)`. */
export function itemJsonLine(item: ProbeItem): string {
  const ordered: Record<string, unknown> = {};
  for (const f of ITEM_FIELDS) ordered[f] = item[f];
  return pyJsonDumps(ordered, { floatKeys: new Set() });
}

/** Probe items as JSON Lines text, one canonical line per item (the file format `readItemsFile` reads). */
export function itemsJsonl(items: readonly ProbeItem[]): string {
  return items.map((it) => itemJsonLine(it) + '\n').join('');
}
