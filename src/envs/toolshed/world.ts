// ToolShed world state and its seeded generation (docs/harness.md §1.2). The draw order (names, teams,
// file stems, base day, then host/title/hour per event) is CPython's, so the same (seed, index)
// gives the same office as the reference.
import { rngFor } from './seeding.ts';

/** A file of a world: its content and whether it is read-only. */
export interface FileEntry {
  content: string;
  readonly: boolean;
}

/** A contact of a world. */
export interface Contact {
  name: string;
  email: string;
  team: string;
}

/** A calendar event of a world. */
export interface CalendarEvent {
  id: string;
  title: string;
  date: string;
  time: string;
  attendees: string[];
  cancelled: boolean;
}

/** A reminder set in a world. */
export interface Reminder {
  text: string;
  date: string;
}

/** A message sent in a world. */
export interface SentMessage {
  to: string;
  subject: string;
  body: string;
}

/**
 * A ToolShed world: files, contacts, events, reminders and sent messages, changed in place by `step`. Build one with `buildWorld` or
 * `taskWorld`; copy with `cloneWorld`.
 */
export interface World {
  /** path → file; insertion order matters (task templates choose among non-readonly files in it). */
  files: Map<string, FileEntry>;
  contacts: Contact[];
  events: CalendarEvent[];
  reminders: Reminder[];
  sent: SentMessage[];
  /** Canonical names successfully looked up with find_contact (goal check of lookup tasks). */
  resolved: string[];
}

export const FIRST_NAMES = [
  'Dana',
  'Milo',
  'Priya',
  'Ravi',
  'Elena',
  'Tomas',
  'Aisha',
  'Noor',
  'Hugo',
  'Ingrid',
  'Karim',
  'Lena',
  'Owen',
  'Sofia',
  'Yara',
  'Bruno',
];
export const LAST_NAMES = [
  'Whitfield',
  'Arganda',
  'Vasquez',
  'Lindqvist',
  'Okafor',
  'Petrova',
  'Hassan',
  'Bergmann',
  'Moreau',
  'Kaneko',
  'Silva',
  'Duarte',
];
export const TEAMS = ['design', 'platform', 'research', 'support'];
export const FOLDERS = ['notes', 'reports', 'drafts'];
export const FILE_STEMS = ['todo', 'summary', 'handover', 'budget', 'agenda', 'checklist'];
export const EVENT_TITLES = ['Design review', 'Sprint planning', 'Budget sync', 'Retro'];
export const EVENT_HOURS = [9, 10, 11, 14, 15];

/** Fixed content per file stem (no random draw). */
export const FILE_CONTENT: Readonly<Record<string, string>> = {
  todo: 'renew the domain, file the expense report',
  summary: 'throughput improved, latency unchanged',
  handover: 'on-call rotates to the platform team',
  budget: 'hardware 4200, travel 1750',
  agenda: 'roadmap, hiring, incident review',
  checklist: 'backups verified, keys rotated',
};

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `build_world(seed, index)` on the `toolshed-world-{index}` stream. */
export function buildWorld(seed: number, index: number): World {
  const rng = rngFor(seed, `toolshed-world-${index}`);
  const people: Contact[] = [];
  const used = new Set<string>();
  for (let p = 0; p < 8; p++) {
    let first: string;
    let last: string;
    let full: string;
    for (;;) {
      first = rng.choice(FIRST_NAMES);
      last = rng.choice(LAST_NAMES);
      full = `${first} ${last}`;
      if (!used.has(full)) {
        used.add(full);
        break;
      }
    }
    people.push({ name: full, email: `${first.toLowerCase()}.${last.toLowerCase()}@corp.example`, team: rng.choice(TEAMS) });
  }
  // Every team is non-empty, so list_contacts tasks are solvable.
  TEAMS.forEach((team, i) => {
    people[i].team = team;
  });

  const files = new Map<string, FileEntry>();
  for (const folder of FOLDERS) {
    for (const stem of rng.sample(FILE_STEMS, 2)) {
      files.set(`${folder}/${stem}.md`, { content: FILE_CONTENT[stem] ?? 'notes pending', readonly: false });
    }
  }
  files.set('system/config.ini', { content: 'mode=standard', readonly: true });

  const baseDay = rng.randint(9, 20);
  const events: CalendarEvent[] = [];
  for (let i = 0; i < 3; i++) {
    const host = rng.choice(people);
    const title = rng.choice(EVENT_TITLES);
    const hour = rng.choice(EVENT_HOURS);
    events.push({
      id: `evt-${i + 1}`,
      title,
      date: `2026-09-${pad2(baseDay + i)}`,
      time: `${pad2(hour)}:00`,
      attendees: [host.email],
      cancelled: false,
    });
  }
  return { files, contacts: people, events, reminders: [], sent: [], resolved: [] };
}

/** A deep copy (worlds are reset per task and never shared between runs). */
export function cloneWorld(world: World): World {
  return structuredClone(world);
}
