// Issue 14 #7: the docs' flags against the CLI itself (commander's program from buildProgram()).
// - The model flags docs/models.md documents are exactly the ones addModelOptions adds, and every
//   command that takes a model (`--model`, or a `<spec>` argument) accepts every one of them.
// - Every `revloop …` command line in the docs and the README (code blocks and inline code) names a
//   real command, and each flag on it is one that command accepts.
// - Every flag in an options table under a "`revloop X`" heading is accepted by X.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.ts';
import { addModelOptions } from '../../src/cli/flags.ts';
import { allCommands } from '../cli/cli.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'README.md',
];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
const program = await buildProgram();
const FLAG = /(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g;

/** The command a `revloop a b c …` line names: the longest run of words that are (sub)commands. */
function resolve(words: string[]): { cmd: Command; used: number } {
  let cmd = program;
  let used = 0;
  for (const w of words) {
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!sub) break;
    cmd = sub;
    used++;
  }
  return { cmd, used };
}

function accepts(cmd: Command): Set<string> {
  const out = new Set(['--help', '-h']);
  for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) for (const f of [o.long, o.short]) if (f) out.add(f);
  // A negatable option `--no-x` is documented as either form.
  for (const o of cmd.options) if (o.negate && o.long) out.add(o.long.replace(/^--no-/, '--'));
  return out;
}

/** The old spellings a command still accepts for one release (hidden options). */
function hiddenAliases(cmd: Command): Set<string> {
  return new Set(cmd.options.filter((o) => o.hidden && o.long).map((o) => o.long!));
}

/** Every `revloop …` command line of a page: code-block lines (with their continuation lines) and inline code. */
function commandLines(text: string): string[] {
  const lines: string[] = [];
  for (const block of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
    const rows = block[1].split('\n');
    for (let i = 0; i < rows.length; i++) {
      // (`revloop worker: …` is what a command printed, not a command.)
      if (!/^(\$ )?revloop [a-z]/.test(rows[i]) || /^revloop [a-z-]+: /.test(rows[i])) continue;
      let line = rows[i].replace(/\s#\s.*$/, '');
      // Continued with a backslash, or a synopsis wrapped onto indented lines of [options].
      while (i + 1 < rows.length && (/\\\s*$/.test(rows[i]) || /^\s{4,}[[-]/.test(rows[i + 1]))) line += ' ' + rows[++i];
      lines.push(line.replace(/^\$ /, ''));
    }
  }
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const m of prose.matchAll(/`(revloop [a-z][^`]*)`/g)) lines.push(m[1]);
  // `revloop a … && revloop b …`, `… | head`: each revloop command on its own, flags to its own command.
  return lines.flatMap((l) =>
    l
      .split(/\s(?:&&|\|\||;|\|)\s/)
      .map((part) => part.trim())
      .filter((part) => /^revloop [a-z]/.test(part)),
  );
}

test('docs/models.md documents exactly the model flags addModelOptions adds', () => {
  const table = read('docs/models.md').split('\n## Options\n')[1].trim().split('\n\n')[0];
  const documented = new Set(
    table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...(row.split('|')[2] ?? '').matchAll(FLAG)].map((m) => m[1])),
  );
  const added = new Set(addModelOptions(new Command('x')).options.map((o) => o.long!));
  assert.ok(documented.has('--model-concurrency'), 'the table was found');
  assert.deepEqual([...documented].sort(), [...added].sort());
});

test('every command that takes a model accepts every documented model flag', () => {
  const modelFlags = addModelOptions(new Command('x')).options.map((o) => o.long!);
  const takingModel = allCommands(program).filter(
    ({ cmd }) => cmd.options.some((o) => o.long === '--model') || cmd.registeredArguments.some((a) => a.name() === 'spec'),
  );
  assert.deepEqual(takingModel.map((c) => c.path).sort(), [
    'agent',
    'compare-policies',
    'experiment crossover',
    'experiment history',
    'experiment persist',
    'experiment sysid',
    'model info',
    'model try',
    'probe',
    'probe verify',
    'run',
  ]);
  for (const { path, cmd } of takingModel) {
    const ok = accepts(cmd);
    const missing = modelFlags.filter((f) => !ok.has(f));
    assert.deepEqual(missing, [], `revloop ${path} lacks documented model flags`);
  }
});

test("every revloop command line in the docs names a real command and only that command's flags", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const line of commandLines(read(page))) {
      const words = line.slice('revloop '.length).split(/\s+/);
      const { cmd, used } = resolve(words);
      if (used === 0) {
        problems.push(`${page}: unknown command in \`${line}\``);
        continue;
      }
      checked++;
      const ok = accepts(cmd);
      // Flags inside quotes are values (an --extra-body JSON, a model's own flags), not revloop's.
      const bare = line.replace(/'[^']*'|"[^"]*"/g, '');
      const old = hiddenAliases(cmd);
      for (const [, flag] of bare.matchAll(FLAG)) {
        if (!ok.has(flag)) problems.push(`${page}: revloop ${cmd.name()} has no ${flag}: \`${line}\``);
        // Old spellings work for one release but are not taught (docs/running.md, "One vocabulary").
        else if (old.has(flag)) problems.push(`${page}: revloop ${cmd.name()} ${flag} is an old spelling: \`${line}\``);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} command lines found`);
  assert.deepEqual(problems, []);
});

test('every flag in an options table under a `revloop X` heading is accepted by X', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    let cmd: Command | null = null;
    for (const line of read(page).split('\n')) {
      if (/^#{2,4} /.test(line)) {
        const h = /`revloop ([a-z][a-z -]*?)`/.exec(line);
        cmd = h ? resolve(h[1].split(' ')).cmd : null;
      }
      if (!cmd || !line.startsWith('|')) continue;
      for (const [, flag] of (line.split('|')[1] ?? '').matchAll(FLAG)) {
        checked++;
        if (!accepts(cmd).has(flag)) problems.push(`${page}: revloop ${cmd.name()} has no ${flag} (table row ${line.slice(0, 60)}…)`);
        else if (hiddenAliases(cmd).has(flag)) problems.push(`${page}: revloop ${cmd.name()} ${flag} is an old spelling (table row ${line.slice(0, 60)}…)`);
      }
    }
  }
  assert.ok(checked > 10, `only ${checked} table flags found`);
  assert.deepEqual(problems, []);
});

test('docs/running.md’s flag table (“One vocabulary”): each flag is taken by exactly the commands it lists', () => {
  const section = read('docs/running.md').split('\n## One vocabulary\n')[1];
  const rows = section.split('\n').filter((l) => l.startsWith('| `-'));
  assert.ok(rows.length >= 10, 'the table was found');
  const problems: string[] = [];
  const commands = allCommands(program);
  for (const row of rows) {
    const [flagCell, , listCell] = row
      .replace(/^\| | \|$/g, '')
      .split(' | ');
    const flag = [...flagCell.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])[0];
    // Values in parentheses (`jsonl`, `paper`) are not commands; `experiment …` is every experiment.
    const listed = [...listCell.replace(/\([^)]*\)/g, '').matchAll(/`([a-z][a-z -]*?)( …)?`/g)].map((m) => ({ name: m[1], group: !!m[2] }));
    if (/^every command/.test(listCell) && !listed.length) continue;
    const takes = (path: string) => commands.find((c) => c.path === path)?.cmd.options.some((o) => o.long === flag && !o.hidden) ?? false;
    const covered = new Set<string>();
    let parent = '';
    for (const { name, group } of listed) {
      // A bare subcommand after `experiment history` is another experiment (`crossover`, `persist`).
      const path = commands.some((c) => c.path === name) ? name : `${parent} ${name}`.trim();
      if (!commands.some((c) => c.path === path)) {
        problems.push(`${flag}: lists \`${name}\`, which is no command`);
        continue;
      }
      parent = path.includes(' ') ? path.split(' ')[0] : parent;
      const members = group ? commands.filter((c) => c.path === path || c.path.startsWith(`${path} `)).map((c) => c.path) : [path];
      const taking = members.filter(takes);
      if (!taking.length) problems.push(`${flag}: lists \`${name}\`, which does not take it`);
      for (const m of members) covered.add(m);
    }
    if (/^every command/.test(listCell)) continue;
    for (const { path } of commands) if (takes(path) && !covered.has(path)) problems.push(`${flag}: \`revloop ${path}\` takes it, the table does not say so`);
  }
  assert.deepEqual(problems, []);
});
