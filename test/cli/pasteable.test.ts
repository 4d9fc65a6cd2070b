// Issue 37 #11 and issue 40: every command revloop prints for the user to run can be pasted into a
// shell as it is: one command to a line (long ones continued with ` \`), what it is for on its own
// line above it (never a bash syntax error after it), quoted words; `revloop …` only when revloop
// is on PATH, otherwise the way it was started. The demo's report and export point into its folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, revloop, userEnv } from './cli.ts';
import { tempDir } from '../tmp.ts';
import { requirePunkt } from '../helpers.ts';

/** The commands under a `next…:` heading: lines indented by two (and their ` \` continuations); other lines say what they are for. */
function printedCommands(out: string): string[] {
  const lines = out
    .slice(out.search(/^next.*:$/m))
    .split('\n')
    .slice(1);
  const commands: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^ {2}\S/.test(lines[i])) continue;
    let command = lines[i];
    while (/ \\$/.test(lines[i]) && i + 1 < lines.length) command += '\n' + lines[++i];
    commands.push(command);
  }
  return commands;
}

const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv = userEnv()) =>
  spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8', timeout: 120_000 });

test(
  'the demo’s next commands paste and run as printed, at 80 columns; report and export write into its folder',
  { skip: requirePunkt().skip },
  () => {
    const cwd = tempDir('revloop-paste-');
    const demo = revloop(['demo', '--out-dir', 'd'], { cwd, env: { COLUMNS: '80' } });
    assert.equal(demo.code, 0, demo.err);
    const commands = printedCommands(demo.out);
    assert.equal(commands.length, 7, demo.out);
    assert.ok(
      commands.some((c) => c.includes(' \\\n')),
      'a long command is continued on the next line',
    );
    assert.ok(
      commands.some((c) => / -o d\/my-report\.html$/.test(c.replace(/ \\\n +/g, ' '))),
      'report writes into the demo folder',
    );
    assert.ok(
      commands.some((c) => / -o d\/demo-steady\.jsonl$/.test(c.replace(/ \\\n +/g, ' '))),
      'export writes into the demo folder',
    );
    for (const command of commands) {
      assert.match(command, /^ {2}revloop /, 'revloop is on PATH: printed as revloop');
      assert.equal(bash(`set -n\n${command}`, cwd).status, 0, `not valid shell: ${command}`);
      // The placeholders are the user's to fill in; the analyses run with fewer resamples.
      const runnable = command
        .replace("'<your model spec>'", 'sim:instant')
        .replace(/^( {2}revloop (analyze|report) .*)$/s, '$1 --bootstrap 50');
      const r = bash(runnable, cwd);
      assert.equal(r.status, 0, `${command}\n${r.stdout}${r.stderr}`);
    }
    assert.ok(existsSync(join(cwd, 'd', 'my-report.html')) && existsSync(join(cwd, 'd', 'demo-steady.jsonl')));
  },
);

test(
  'run’s next commands, one to a line, each pastes; without revloop on PATH they start the way revloop was started',
  { skip: requirePunkt().skip },
  () => {
    const cwd = tempDir('revloop-paste-');
    assert.equal(revloop(['demo', '--out-dir', 'd'], { cwd }).code, 0);
    const run = revloop(['run', '--cases', 'd/demo-cases.jsonl', '--model', 'sim:instant', '--store', 'r.db', '--limit', '2'], {
      cwd,
      env: { COLUMNS: '80' },
    });
    assert.equal(run.code, 0, run.err);
    const commands = printedCommands(run.out);
    assert.deepEqual(
      commands.map((c) => c.trim().split(' ')[1]),
      ['audit', 'export', 'analyze'],
    );
    for (const command of commands) assert.equal(bash(command, cwd).status, 0, command);

    const { PATH: _, ...rest } = userEnv();
    const off = { ...rest, PATH: '/usr/bin:/bin' };
    const r = spawnSync(
      process.execPath,
      [BIN, 'run', '--cases', 'd/demo-cases.jsonl', '--model', 'sim:instant', '--store', 'r.db', '--limit', '2'],
      {
        cwd,
        env: off,
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const launched = printedCommands(r.stdout);
    assert.ok(launched.length === 3, r.stdout);
    for (const command of launched) {
      assert.ok(command.trim().startsWith(`node ${BIN} `), command);
      assert.equal(bash(command, cwd, { ...off, PATH: `${process.execPath.replace(/\/node$/, '')}:/usr/bin:/bin` }).status, 0, command);
    }
  },
);
