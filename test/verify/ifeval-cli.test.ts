// IFEval and the new COLLIE families through the real CLI: `verify --jsonl` with IFEval rows (strict
// and --ifeval-mode loose), `verify --family c14`, and `run` → `audit` → `analyze` over IFEval's
// input_data.jsonl with a simulated controller (SIMULATED in the output), plus the analysis library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { requirePunkt, requireShared } from '../helpers.ts';
import { analyzeIfeval, renderIfeval } from '../../src/studies/revision/analysis/ifeval.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';
import { tempDir } from '../tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'revloop.mjs');
const punkt = requirePunkt();
const ifeval = requireShared('ifeval', 'input_data.jsonl');

function revloop(args: string[], input = '', cwd = ROOT) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function withTmp(fn: (dir: string) => void): void {
  const dir = tempDir('revloop-ifeval-');
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ROW = {
  id: 'r1',
  family: 'ifeval',
  prompt: 'Write a short note.',
  instruction_id_list: ['punctuation:no_comma', 'detectable_format:title'],
  kwargs: [{}, {}],
  text: 'Sure, here it is:\n<<Note>>\nAll good.',
};

test('verify --jsonl takes IFEval rows and writes both follow lists and joint_success', { skip: punkt.skip }, () => {
  const input = JSON.stringify(ROW) + '\n' + JSON.stringify({ ...ROW, id: 'r2', kwargs: [{}] }) + '\n';
  const strict = revloop(['verify', '--jsonl', '-'], input);
  assert.equal(strict.code, 1, 'the malformed second row fails the batch');
  const [ok, bad] = strict.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(ok.follow_instruction_list_strict, [false, true]);
  assert.deepEqual(ok.follow_instruction_list_loose, [true, true]);
  assert.equal(ok.joint_success, false);
  assert.equal(ok.ifeval_mode, 'strict');
  assert.match(bad.error, /one object per instruction/);
  const loose = revloop(['verify', '--jsonl', '-', '--ifeval-mode', 'loose'], JSON.stringify(ROW) + '\n');
  assert.equal(loose.code, 0, loose.stderr);
  assert.equal(JSON.parse(loose.stdout).joint_success, true);
  const wrong = revloop(['verify', '--jsonl', '-', '--ifeval-mode', 'lax'], JSON.stringify(ROW) + '\n');
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /--ifeval-mode must be strict or loose/);
});

test('verify --family c14 prints the state and the feedback', { skip: punkt.skip }, () => {
  const r = revloop(['verify', '--family', 'c14', '--targets', '[["It ends here"], 2]', '--feedback'], 'One line. It ends here.');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^c14: PASS \(violation energy 0\.0\)/);
  assert.match(r.stdout, /- paragraph 1 final sentence: target='It ends here', observed='It ends here', correct=true/);
});

test('run → audit → analyze over IFEval with a simulated controller', { skip: punkt.skip || ifeval.skip }, () => {
  withTmp((dir) => {
    const store = join(dir, 'runs.db');
    const run = revloop(['run', '--cases', ifeval.path!, '--model', 'sim:steady', '--store', store, '--budget', '2', '--limit', '40']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /SIMULATED/);
    const id = /run '([^']+)'/.exec(run.stdout)![1];
    const audit = revloop(['audit', '--store', store, '--run', id]);
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
    const text = revloop(['analyze', '--store', store, '--bootstrap', '0', '--no-progress']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /IFEval: accuracy at the first draft → at the end of the budget/);
    assert.match(text.stdout, /sim:steady \[simulated\] — 40 prompts/);
    const json = JSON.parse(revloop(['analyze', '--store', store, '--bootstrap', '0', '--json', '--no-progress']).stdout);
    const c = json.ifeval.controllers[0];
    assert.equal(c.prompts, 40);
    assert.equal(c.simulated, true);
    assert.ok(c.end_of_budget.prompt_strict >= c.first_draft.prompt_strict);
    // A loose run is a different plan (the mode is in every case) and gets its own default run id.
    const loose = revloop([
      'run',
      '--cases',
      ifeval.path!,
      '--model',
      'sim:steady',
      '--store',
      store,
      '--budget',
      '2',
      '--limit',
      '5',
      '--ifeval-mode',
      'loose',
    ]);
    assert.equal(loose.code, 0, loose.stderr);
    assert.match(loose.stdout, /__ifeval-loose/);
  });
});

function trajectory(controller: string, rounds: Array<[boolean[], boolean[]]>, ids: string[]): TrajectoryRecord {
  return {
    runId: 'r',
    caseIndex: 0,
    caseId: 'c',
    controller,
    simulated: false,
    family: 'ifeval',
    source: 'ifeval',
    case: { id: 'c', family: 'ifeval', source: 'ifeval' },
    status: 'complete',
    budget: 8,
    rounds: rounds.map(([strict, loose], revision) => ({
      revision,
      text: 'x',
      energy: 0,
      joint: strict.every(Boolean),
      state: {
        joint_success: strict.every(Boolean),
        violation_vector: [],
        ifeval_mode: 'strict',
        instruction_id_list: ids,
        follow_instruction_list_strict: strict,
        follow_instruction_list_loose: loose,
      },
    })),
  };
}

test('analyzeIfeval: the four accuracies at the first draft and at the end of the budget, per instruction', () => {
  const a = analyzeIfeval([
    trajectory(
      'm',
      [
        [
          [false, true],
          [true, true],
        ],
        [
          [true, true],
          [true, true],
        ],
      ],
      ['punctuation:no_comma', 'detectable_format:title'],
    ),
    trajectory('m', [[[false], [false]]], ['punctuation:no_comma']),
    { ...trajectory('m', [[[true], [true]]], ['punctuation:no_comma']), status: 'incomplete' },
  ]);
  assert.equal(a.excluded_incomplete, 1);
  const c = a.controllers[0];
  assert.deepEqual(c.first_draft, { prompt_strict: 0, prompt_loose: 0.5, instruction_strict: 1 / 3, instruction_loose: 2 / 3 });
  assert.deepEqual(c.end_of_budget, { prompt_strict: 0.5, prompt_loose: 0.5, instruction_strict: 2 / 3, instruction_loose: 2 / 3 });
  assert.deepEqual(
    c.by_instruction.map((r) => [r.instruction_id, r.n, r.first_draft.strict, r.end_of_budget.strict]),
    [
      ['detectable_format:title', 1, 1, 1],
      ['punctuation:no_comma', 2, 0, 0.5],
    ],
  );
  assert.deepEqual(
    c.by_group.map((r) => r.instruction_id),
    ['detectable_format', 'punctuation'],
  );
  assert.match(renderIfeval(a), /prompt-level strict\s+0\.0%\s+50\.0%/);
  assert.equal(renderIfeval(analyzeIfeval([])), '');
});

test(
  'cases validate accepts IFEval input_data.jsonl (format detected) and reports bad kwargs with file:line',
  { skip: ifeval.skip },
  () => {
    const r = revloop(['cases', 'validate', ifeval.path!]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /541 cases \(format ifeval\)/);
    withTmp((dir) => {
      const bad = join(dir, 'bad.jsonl');
      writeFileSync(
        bad,
        JSON.stringify({
          key: 1,
          prompt: 'p',
          instruction_id_list: ['length_constraints:number_words'],
          kwargs: [{ relation: 'at least' }],
        }) + '\n',
      );
      const v = revloop(['cases', 'validate', bad]);
      assert.equal(v.code, 1);
      assert.match(v.stdout + v.stderr, /bad\.jsonl:1: kwargs: kwargs\[0\] \(length_constraints:number_words\): num_words: required/);
    });
  },
);

test('sim: an IFEval report makes the controller fix the listed instructions of its last draft', { skip: punkt.skip }, async () => {
  const { reviseIfeval, parseIfevalReport } = await import('../../src/models/sim/ifeval-controller.ts');
  const { stream } = await import('../../src/models/sim/rng.ts');
  const { SIM_PROFILES } = await import('../../src/models/sim/profiles.ts');
  const { getFamily } = await import('../../src/core/verify/index.ts');
  const family = getFamily('ifeval');
  const c = {
    id: 'x',
    family: 'ifeval',
    source: 'mine',
    task: 'p',
    targets: {
      instruction_id_list: ['punctuation:no_comma', 'detectable_format:title', 'startend:end_checker', 'detectable_content:postscript'],
      kwargs: [{}, {}, { end_phrase: 'Any other questions?' }, { postscript_marker: 'P.P.S' }],
    },
  };
  const draft = 'Well, this is a draft, with commas.';
  const report = family.feedback(family.verify(draft, c), c);
  assert.deepEqual(
    parseIfevalReport(report)!.map((x) => x.id),
    c.targets.instruction_id_list,
  );
  const revised = reviseIfeval(draft, report, { ...SIM_PROFILES.ideal.params, fix: 1 }, stream('k', 'decisions'))!;
  assert.equal(revised.fixed.length, 4);
  const state = family.verify(revised.text, c);
  assert.deepEqual(state.follow_instruction_list_strict, [true, true, true, true]);
  assert.equal(reviseIfeval(draft, 'DETERMINISTIC VERIFIER REPORT\n- total words: …', SIM_PROFILES.ideal.params, stream('k', 'd')), null);
});
