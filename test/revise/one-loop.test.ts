// One loop for lab and app (issue 35): for every named policy, on the same exact-length and COLLIE
// cases and a deterministic fake OpenAI-compatible server (vLLM flavour, so bans travel as
// `bad_words`), `revloop run --harness NAME` and `revise({ verify: { family, case }, policy: NAME })`
// send byte-identical request sequences. The server answers with the simulated controller's reply
// to the request (a pure function of the messages, the token limit and the ban list: SIMULATED),
// so both sides see the same answers exactly when they send the same requests.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { revise } from '../../src/revise/index.ts';
import { loadCaseSet, writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { simReply } from '../../src/models/sim/model.ts';
import { resolveSim } from '../../src/models/sim/profiles.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { chatOk, startFaultServer, type FaultServer } from '../models/helpers/fault-server.ts';
import { collieRows, writeLines } from '../cases/fixtures.ts';
import { requirePunkt } from '../helpers.ts';
import { tempDir } from '../tmp.ts';

const punkt = requirePunkt();
const root = join(import.meta.dirname, '../..');
const POLICIES = ['verbatim', 'verbatim-full', 'abstract', 'drop', 'reset-on-recurrence', 'revloop-default'];

/** The simulated controller `profile` behind HTTP: every answer is a function of the request. */
function simServer(profile: string): Promise<FaultServer> {
  const { params } = resolveSim(`sim:${profile}`, profile, {});
  return startFaultServer([], (body) => {
    const r = simReply(body.messages, params, body.max_tokens ?? -1, body.bad_words ?? []);
    return {
      json: chatOk(r.text, {
        usage: { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens },
      }),
    };
  });
}

function cli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin/revloop.mjs'), ...args], { cwd: root });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.stdout.resume();
    child.on('close', (code) => resolve({ code, err }));
  });
}

const chats = (s: FaultServer, from: number) => s.requests.slice(from).filter((q) => q.path.endsWith('/chat/completions'));

test(
  'for every named policy, revloop run --harness NAME and revise({ policy: NAME }) send byte-identical requests (SIMULATED answers)',
  { skip: punkt.skip },
  async () => {
    const dir = tempDir('revloop-one-loop-');
    try {
      const collie = join(dir, 'collie.jsonl');
      writeLines(dir, 'collie.jsonl', collieRows());
      const cases: ConstraintCase[] = [...exactLengthDemoCases().slice(0, 6), ...(await loadCaseSet(collie)).cases];
      assert.ok(cases.some((c) => c.family === 'exact-length') && cases.some((c) => c.family === 'c07' || c.family === 'c10'));
      const file = join(dir, 'cases.jsonl');
      await writeCaseSet(file, cases);
      const seen = { bans: 0, abstractResets: 0, longest: 0, resets: 0 };
      for (const profile of ['stubborn', 'steady']) {
        const s = await simServer(profile);
        try {
          const model = `vllm:${s.url}#sim:${profile}`;
          for (const name of POLICIES) {
            const from = s.requests.length;
            const run = await cli([
              'run',
              '--cases',
              file,
              '--model',
              model,
              '--store',
              join(dir, 'runs.db'),
              '--run-id',
              `${profile}-${name}`,
              '--harness',
              name,
              '--concurrency',
              '1',
            ]);
            assert.equal(run.code, 0, run.err);
            const lab = chats(s, from);
            const mark = s.requests.length;
            for (const c of cases) {
              const r = await revise({ model, verify: { family: c.family, case: c }, policy: name, temperature: 0 });
              assert.notEqual(r.status, 'provider_error', r.reason);
            }
            const app = chats(s, mark);
            assert.equal(app.length, lab.length, `${profile} ${name}: as many requests`);
            app.forEach((q, i) => assert.equal(q.raw, lab[i].raw, `${profile} ${name}: request ${i} differs`));
            for (const q of lab) {
              if (q.body.bad_words?.length) seen.bans++;
              const messages = q.body.messages as Array<{ role: string; content: string }>;
              if (
                messages.some(
                  (m, i) => i > 0 && m.role === 'user' && /^\[attempt \d+ failed; that draft is not repeatable\]/.test(m.content),
                )
              )
                if (name !== 'abstract') seen.abstractResets++;
              seen.longest = Math.max(seen.longest, messages.length);
              if (name === 'reset-on-recurrence' && messages.length === 3 && q !== lab[0]) seen.resets++;
            }
          }
        } finally {
          await s.close();
        }
      }
      // The sequences compared are not trivial: whole histories, bans, restarts and abstracted resets occur.
      assert.ok(seen.longest >= 9, `a request carried ${seen.longest} messages at most`);
      assert.ok(seen.bans > 0, 'revloop-default banned failed drafts (bad_words)');
      assert.ok(seen.resets > 0, 'reset-on-recurrence restarted a window');
      assert.ok(seen.abstractResets > 0, "revloop-default's cycle reset abstracted a draft");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
