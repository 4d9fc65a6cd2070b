// The README's path with an OpenAI-compatible endpoint, end to end as a user runs it: `revloop run`
// against serve-sim over HTTP, Ctrl-C, the printed resume command, audit and export. The simulator
// is a pure function of the messages, so the HTTP run must store exactly the drafts of the same
// profile run in process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { startSimServer } from '../../src/models/index.ts';
import { openStore } from '../../src/store/store.ts';
import { tempDir } from '../tmp.ts';
import { userEnv } from '../cli/cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');

interface Exit {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the CLI without blocking this process (the simulator server lives here). */
function revloop(args: string[], onStart?: (child: ReturnType<typeof spawn>) => void): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: userEnv() });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  onStart?.(child);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

async function roundsRead(db: string, runId: string): Promise<Array<Array<[string, unknown]>>> {
  const s = await openStore(db, { readonly: true });
  try {
    return (await s.loadTrajectories([runId])).map((t) => t.rounds.map((r) => [r.text, r.state] as [string, unknown]));
  } finally {
    await s.close();
  }
}

test('run over HTTP against serve-sim, Ctrl-C, resume with the printed command, audit, export', async () => {
  const server = await startSimServer({ port: 0, latencyMs: 40 });
  try {
    const dir = tempDir('revloop-http-run-');
    const cases = join(dir, 'own.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    const db = join(dir, 'runs.db');
    const args = [
      'run',
      '--cases',
      cases,
      '--model',
      `openai-compatible:${server.url}#sim:stubborn`,
      '--store',
      db,
      '--run',
      'http',
      '--concurrency',
      '2',
      '--limit',
      '6',
    ];

    const first = await revloop(args, (child) => {
      const poll = setInterval(async () => {
        if (!existsSync(db)) return;
        const s = await openStore(db, { readonly: true });
        const rounds = (await s.listRuns())[0]?.rounds ?? 0;
        await s.close();
        if (rounds >= 4) {
          clearInterval(poll);
          child.kill('SIGINT');
        }
      }, 25);
      child.on('close', () => clearInterval(poll));
    });
    assert.equal(first.code, 130, first.out + first.err);
    assert.match(first.out, /^interrupted: stopped by request; \d+ of 6 trajectories finished \[SIMULATED\]$/m);
    // A long command is continued on indented lines ending in ` \`: joined, it is the one command.
    const line = /resume with the same command:\n {2}revloop (run .*)$/m.exec(first.out.replace(/ \\\n +/g, ' '))?.[1];
    assert.ok(line, first.out);

    // The printed command, word for word (its only quoted word is the spec, with '#' in it).
    const words = line.match(/'[^']*'|\S+/g)!.map((w) => w.replace(/^'(.*)'$/, '$1'));
    const resumed = await revloop(words);
    assert.equal(resumed.code, 0, resumed.out + resumed.err);
    assert.match(resumed.out, /resuming \(\d+ of 6 trajectories already complete\)/);
    assert.match(resumed.out, /^finished \[SIMULATED\]: 6\/6 trajectories/m);

    const audit = await revloop(['audit', '--store', db, '--run', 'http']);
    assert.equal(audit.code, 0, audit.out);
    assert.match(audit.out, /^PASS: /m);
    const exported = join(dir, 'http.jsonl');
    const exp = await revloop(['export', '--store', db, '--run', 'http', '-o', exported]);
    assert.equal(exp.code, 0, exp.err);
    assert.equal(readFileSync(exported, 'utf8').trim().split('\n').length, 6);

    // The same profile in process, uninterrupted: the same drafts and verifier states.
    const ref = await revloop(['run', '--cases', cases, '--model', 'sim:stubborn', '--store', db, '--run', 'local', '--limit', '6']);
    assert.equal(ref.code, 0, ref.err);
    assert.deepEqual(await roundsRead(db, 'http'), await roundsRead(db, 'local'));
  } finally {
    await server.close();
  }
});
