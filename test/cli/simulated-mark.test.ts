// Issue 14, first-hour friction: a simulated controller is marked once — "sim:steady [SIMULATED]" or
// a SIMULATED badge/prefix next to "sim:steady", never "sim:steady [simulated] SIMULATED" — in every
// terminal output and in the report; a probe- or agent-only report opens with the SIMULATED banner
// and shows only that study's sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../tmp.ts';
import { revloop } from './cli.ts';

const dir = tempDir('revloop-simmark-');
const cases = join(dir, 'own.jsonl');
const all = join(dir, 'all.db');
const probeOnly = join(dir, 'probe.db');
const agentOnly = join(dir, 'agent.db');

/** Lines that carry both marks. */
const doubled = (text: string) => text.split('\n').filter((l) => /\[simulated\]/.test(l) && /SIMULATED/.test(l));

function visibleText(html: string): string {
  const body = html.slice(html.indexOf('<body'));
  return body
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

test('terminal: run, probe, agent, runs, analyze, model sims / try / verify say SIMULATED once per name', async () => {
  await writeCaseSet(cases, exactLengthDemoCases());
  const outputs = [
    revloop(['run', '--cases', cases, '--model', 'sim:steady', '--store', all, '--limit', '3']),
    revloop(['probe', '--build', '2', '--model', 'sim:steady', '--store', all]),
    revloop(['agent', '--model', 'sim:steady', '--harness', 'verbatim', '--tasks', '2', '--store', all]),
    revloop(['runs', '--store', all]),
    revloop(['analyze', '--store', all, '--bootstrap', '0', '--no-progress']),
    revloop(['model', 'sims']),
    revloop(['model', 'try', 'sim:steady', '--prompt', 'hi']),
    revloop(['probe', 'verify', '--model', 'sim:steady', '--build', '2']),
  ];
  for (const r of outputs) {
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(doubled(r.out + '\n' + r.err), []);
  }
  const analyze = outputs[4].out;
  assert.match(analyze, /^SIMULATED: sim:steady is a simulated controller/m);
  assert.match(outputs[1].err, /^\[SIMULATED\] probe sim:steady: /m);
});

test('report: one mark per name; probe- and agent-only reports open with the banner and only their study', () => {
  const r = revloop(['report', '--store', all, '-o', join(dir, 'all.html'), '--bootstrap', '0', '--no-progress']);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, /\[simulated\]/);
  assert.doesNotMatch(visibleText(readFileSync(join(dir, 'all.html'), 'utf8')), /\[simulated\]\s*(\(|SIMULATED)/);

  assert.equal(revloop(['probe', '--build', '2', '--model', 'sim:steady', '--store', probeOnly, '--no-progress']).code, 0);
  const args = ['agent', '--model', 'sim:steady', '--harness', 'verbatim', '--tasks', '2', '--store', agentOnly, '--no-progress'];
  assert.equal(revloop(args).code, 0);
  for (const [db, title] of [
    [probeOnly, 'Corrective-gain probes'],
    [agentOnly, 'Agent rollouts by harness'],
  ]) {
    const out = join(dir, 'only.html');
    assert.equal(revloop(['report', '--store', db, '-o', out, '--no-progress']).code, 0);
    const html = readFileSync(out, 'utf8');
    const text = visibleText(html);
    const banner = html.indexOf('Every controller in this report is simulated');
    assert.ok(banner >= 0 && banner < html.indexOf('<section'), `${title}: the SIMULATED banner comes before the first section`);
    assert.match(text, new RegExp(title));
    assert.doesNotMatch(html, /id="(endpoint|curves|failures|budget|drilldown)"/, `${title}: no empty revision sections`);
    assert.doesNotMatch(text, /\[simulated\]\s*(\(|SIMULATED)/);
  }
});
