// Running the revloop command as a user does, for CLI tests: a real process through bin/revloop.mjs,
// its exit code, stdout and stderr; or a shell pipeline around it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { delimiter, join, resolve } from 'node:path';
import { tempDir } from '../tmp.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin', 'revloop.mjs');

/**
 * A folder holding a `revloop` that runs this checkout, as `npm link` gives a user: CLI children
 * get it on $PATH, so the commands they print start with `revloop` (cli/invocation.ts). Made when
 * a test file loads this module, so it lasts until the file's last test.
 */
export const REVLOOP_ON_PATH = (() => {
  const dir = tempDir('revloop-path-');
  writeFileSync(join(dir, 'revloop'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(dir, 'revloop'), 0o755);
  return dir;
})();

/**
 * The environment a CLI child runs in: this process's, as a user's shell has it (with revloop on
 * $PATH, in a 1000-column terminal), plus `extra`. The CLI's hints name the command as it was launched, and npx sets
 * npm_command=exec (`npx revloop …`): without this, a suite started with `npx tsx --test` would see
 * other hints than one started by `npm test`.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_command: undefined,
    PATH: `${REVLOOP_ON_PATH}${delimiter}${process.env.PATH ?? ''}`,
    // A wide terminal: lines naming the tests' long temporary paths stay whole for the assertions
    // that match them. What fits 80 and 120 columns (and 80 by default) is test/cli/width.test.ts's.
    COLUMNS: '1000',
    ...extra,
  };
}

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

export function revloop(args: string[], o: { input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: o.cwd ?? ROOT,
    input: o.input,
    encoding: 'utf8',
    env: userEnv(o.env),
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `bash -c SCRIPT` where `$REVLOOP` runs this checkout's revloop; for pipelines such as `| head -1`. */
export function shell(script: string, env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync('bash', ['-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: userEnv({ REVLOOP: `${process.execPath} ${BIN}`, ...env }),
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Whether a text holds a JavaScript stack frame (a user error never shows one). */
export const hasStack = (s: string): boolean => /^\s+at .+:\d+:\d+\)?$/m.test(s);

/** revloop without blocking this process (for servers the test itself runs, such as serve-sim). */
export function revloopAsync(args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: o.cwd ?? ROOT, env: userEnv(o.env) });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** Every (sub)command of a commander program, by its path ("experiment history"). */
export function allCommands(c: Command, path: string[] = []): Array<{ path: string; cmd: Command }> {
  return c.commands.flatMap((sub) => [{ path: [...path, sub.name()].join(' '), cmd: sub }, ...allCommands(sub, [...path, sub.name()])]);
}
