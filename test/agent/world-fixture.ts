// A small hand-made office for tests (not a generated world), so expected texts are easy to read.
import type { World } from '../../src/envs/toolshed/world.ts';

export function officeWorld(): World {
  return {
    files: new Map([
      ['notes/todo.md', { content: 'renew the domain, file the expense report', readonly: false }],
      ['reports/q3.md', { content: 'throughput improved', readonly: false }],
      ['system/config.ini', { content: 'mode=standard', readonly: true }],
    ]),
    contacts: [
      { name: 'Ada Lovelace', email: 'ada.lovelace@corp.example', team: 'design' },
      { name: 'Alan Turing', email: 'alan.turing@corp.example', team: 'research' },
      { name: 'Grace Hopper', email: 'grace.hopper@corp.example', team: 'platform' },
    ],
    events: [
      { id: 'evt-1', title: 'Standup', date: '2026-09-14', time: '10:00', attendees: ['ada.lovelace@corp.example'], cancelled: false },
      { id: 'evt-2', title: 'Retro', date: '2026-09-15', time: '15:00', attendees: ['alan.turing@corp.example'], cancelled: true },
    ],
    reminders: [],
    sent: [],
    resolved: [],
  };
}
