// Temporary files are removed when SIGINT or SIGTERM ends the process (issue 36: `report` killed by
// SIGTERM left a 0-byte hidden temp file), and a command that handles the signal itself keeps its
// own say while the exit still removes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../tmp.ts';

const MODULE = new URL('../../src/core/util/atomic-file.ts', import.meta.url).href;

/** A child that starts writing a temp file through the module, says "ready", then waits (or handles the signal itself). */
function child(dir: string, ownHandler: boolean) {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { tempPathFor, trackTempFile } from ${JSON.stringify(MODULE)};
    const tmp = tempPathFor(${JSON.stringify(join(dir, 'report.html'))});
    writeFileSync(tmp, '');
    trackTempFile(tmp);
    ${ownHandler ? "process.on('SIGINT', () => { console.log('handled'); setTimeout(() => process.exit(130), 50); });" : ''}
    console.log('ready');
    setInterval(() => {}, 1000);
  `;
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>((resolve) =>
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready')) resolve();
    }),
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    p.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { p, ready, exited, out: () => out };
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} during a write removes the temporary file, and still ends the process by the signal`, async () => {
    const dir = tempDir('revloop-signal-');
    const c = child(dir, false);
    await c.ready;
    assert.equal(readdirSync(dir).length, 1, 'the temp file exists while writing');
    c.p.kill(signal);
    const { signal: got } = await c.exited;
    assert.equal(got, signal);
    assert.deepEqual(readdirSync(dir), []);
  });
}

test('a command that handles SIGINT itself decides; the temp file still goes when it exits', async () => {
  const dir = tempDir('revloop-signal-');
  const c = child(dir, true);
  await c.ready;
  c.p.kill('SIGINT');
  const { code } = await c.exited;
  assert.equal(code, 130);
  assert.match(c.out(), /handled/);
  assert.ok(existsSync(dir));
  assert.deepEqual(readdirSync(dir), []);
});
