// One loop for lab and app (issue 35): for every named policy, on the same exact-length and COLLIE
// cases and a deterministic fake OpenAI-compatible server (vLLM flavour, so bans travel as
// `bad_words`), `revloop run --harness NAME` and `revise({ verify: { family, case }, policy: NAME })`
// send byte-identical request sequences. The server answers with the simulated controller's reply
// to the request (a pure function of the messages, the token limit and the ban list: SIMULATED),
// so both sides see the same answers exactly when they send the same requests. Each policy runs as
// named and with `--ban failed-drafts` (bad_words); the complete-repeats ban, which no HTTP backend
// can express, is compared at the model interface on the in-process simulator (the second test).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { revise } from '../../src/revise/index.ts';
import { POLICY_PRESETS, policyName, REVLOOP_DEFAULT_POLICY } from '@revloop/revise';
import { runTrajectory, type TrajectorySink } from '../../src/engine/loop.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { createModel } from '../../src/models/index.ts';
import type { Model } from '../../src/models/types.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { loadCaseSet, writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { simReply } from '../../src/models/sim/model.ts';
import { resolveSim } from '../../src/models/sim/profiles.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { chatOk, startFaultServer, type FaultServer } from '../../src/test/fault-server.ts';
import { collieRows, writeLines } from '../cases/fixtures.ts';
import { requirePunkt } from '../helpers.ts';
import { tempDir } from '../tmp.ts';

const punkt = requirePunkt();
const root = join(import.meta.dirname, '../..');
const POLICIES = ['verbatim', 'verbatim-full', 'abstract', 'drop', 'reset-on-recurrence', 'revloop-default'];
/** Policies run again with the sequence ban (`run --ban failed-drafts`; a policy object in revise()). */
const BANNED = [
  ['verbatim', 'failed-drafts'],
  ['revloop-default', 'failed-drafts'],
] as const;

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
          for (const [name, ban] of [...POLICIES.map((n) => [n, null] as const), ...BANNED]) {
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
              `${profile}-${name}${ban ? `-${ban}` : ''}`,
              '--harness',
              name,
              ...(ban ? ['--ban', ban] : []),
              '--concurrency',
              '1',
            ]);
            assert.equal(run.code, 0, run.err);
            const lab = chats(s, from);
            const mark = s.requests.length;
            for (const c of cases) {
              // A named policy with another ban: the preset as an object, with the paper's identity as the name has it.
              const policy = ban ? { ...POLICY_PRESETS[policyName(name)], ban, identity: 'exact' as const } : name;
              const r = await revise({ model, verify: { family: c.family, case: c }, policy, temperature: 0 });
              assert.notEqual(r.status, 'provider_error', r.reason);
            }
            const app = chats(s, mark);
            assert.equal(app.length, lab.length, `${profile} ${name}: as many requests`);
            app.forEach((q, i) => assert.equal(q.raw, lab[i].raw, `${profile} ${name} ${ban ?? ''}: request ${i} differs`));
            // revloop-default bans nothing (docs/revise.md §5), and on vLLM 'auto' would not ban either.
            if (name === 'revloop-default' && !ban) assert.ok(lab.every((q) => q.body.bad_words === undefined));
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
      assert.ok(seen.bans > 0, '--ban failed-drafts banned failed drafts (bad_words)');
      assert.ok(seen.resets > 0, 'reset-on-recurrence restarted a window');
      assert.ok(seen.abstractResets > 0, "revloop-default's cycle reset abstracted a draft");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** A model that keeps every call as it reaches the model interface (the request, as JSON). */
function recording(model: Model): { model: Model; calls: string[] } {
  const calls: string[] = [];
  const wrapped: Model = Object.assign(Object.create(model) as Model, {
    generate: (messages: Parameters<Model['generate']>[0], o: Parameters<Model['generate']>[1]) => {
      const { maxTokens, temperature, seed, bannedSequences, bannedAnswers } = o;
      calls.push(JSON.stringify({ messages, maxTokens, temperature, seed, bannedSequences, bannedAnswers }));
      return model.generate(messages, o);
    },
  });
  return { model: wrapped, calls };
}

const nullSink: TrajectorySink = { attemptStarted() {}, attemptFinished() {}, draftAccepted() {}, incomplete() {} };

test(
  "ban 'complete-repeats' (sim): the lab's loop (run --harness NAME --ban complete-repeats) and revise() make the same model calls (SIMULATED)",
  { skip: punkt.skip },
  async () => {
    const dir = tempDir('revloop-one-loop-');
    try {
      writeLines(dir, 'collie.jsonl', collieRows());
      const cases: ConstraintCase[] = [...exactLengthDemoCases().slice(0, 6), ...(await loadCaseSet(join(dir, 'collie.jsonl'))).cases];
      let answersBanned = 0;
      for (const profile of ['stubborn', 'steady']) {
        const sim = await createModel(`sim:${profile}`);
        for (const name of POLICIES) {
          const lab = recording(sim);
          const protocol = { ...PAPER_PROTOCOL, messagePolicy: policyName(name), banProvider: 'complete-repeats' };
          for (const [i, c] of cases.entries())
            await runTrajectory({ caseIndex: i, case: c, family: getFamily(c.family), prior: [] }, lab.model, nullSink, { protocol });
          const app = recording(sim);
          const policy = { ...POLICY_PRESETS[policyName(name)], ban: 'complete-repeats' as const, identity: 'exact' as const };
          for (const c of cases) await revise({ model: app.model, verify: { family: c.family, case: c }, policy, temperature: 0 });
          assert.equal(app.calls.length, lab.calls.length, `${profile} ${name}: as many calls`);
          app.calls.forEach((q, i) => assert.equal(q, lab.calls[i], `${profile} ${name}: call ${i} differs`));
          answersBanned += lab.calls.filter((q) => (JSON.parse(q) as { bannedAnswers?: string[] }).bannedAnswers?.length).length;
          assert.ok(lab.calls.every((q) => (JSON.parse(q) as { bannedSequences?: string[] }).bannedSequences === undefined));
        }
      }
      assert.ok(answersBanned > 0, 'complete answers were banned');
      // The one definition of the default, the same for the lab's harness and revise().
      assert.deepEqual(POLICY_PRESETS['revloop-default'], REVLOOP_DEFAULT_POLICY);
      assert.equal(REVLOOP_DEFAULT_POLICY.ban, 'none');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
