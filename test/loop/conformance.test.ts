// Protocol conformance: the message list of every round, byte for byte, for each family, written
// by hand from the reference templates (docs/protocol.md §1.1–1.3). The cases and drafts are our own small texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runTrajectory, type AcceptedRound, type TrajectorySink } from '../../src/engine/loop.ts';
import { PAPER_PROTOCOL, type ProtocolConfig } from '../../src/engine/protocol.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import type { ChatMessage } from '../../src/models/types.ts';
import { auditRun } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import { openCrashingStore, SimulatedCrash } from '../../src/test/index.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { ConstraintCase, PromptVariant } from '../../src/core/verify/types.ts';
import { tempDir } from '../store/toy-run.ts';
import { scriptedModel } from './fakes.ts';
import { requirePunkt } from '../helpers.ts';

const punkt = requirePunkt();

const STRUCTURED_PREAMBLE =
  'The constraints are checked by a deterministic verifier. Return only the requested text, with no preface, analysis, count, or commentary.';
const STRUCTURED_SUFFIX =
  'Revise the complete previous response so every reported constraint is satisfied. Return only the revised text, with no analysis, count, or commentary.';
const EXACT_FEEDBACK_TAIL =
  'Revise the complete response to satisfy the exact target and retain every required content item. Return only the revised response with no analysis, count, or commentary.';

const sink = (): TrajectorySink & { rounds: AcceptedRound[] } => {
  const rounds: AcceptedRound[] = [];
  return { rounds, attemptStarted: () => {}, attemptFinished: () => {}, draftAccepted: (r) => rounds.push(r), incomplete: () => {} };
};

const U = (content: string): ChatMessage => ({ role: 'user', content });
const A = (content: string): ChatMessage => ({ role: 'assistant', content });

async function conversation(c: ConstraintCase, outputs: string[], p: Partial<ProtocolConfig> = {}) {
  const model = scriptedModel(outputs);
  const s = sink();
  const out = await runTrajectory({ caseIndex: 0, case: c, family: getFamily(c.family), prior: [] }, model, s, {
    protocol: { ...PAPER_PROTOCOL, ...p },
  });
  return { seen: model.seen, options: model.options, out, rounds: s.rounds };
}

/** Every round's expected messages from the initial prompt, the stripped drafts and the reports. */
function expectedFull(initial: string, drafts: string[], reports: string[]): ChatMessage[][] {
  return drafts.map((_, r) => [U(initial), ...drafts.slice(0, r).flatMap((d, i) => [A(d), U(reports[i])])]);
}

const lake: ConstraintCase = {
  id: 'own-lake',
  family: 'exact-length',
  source: 'own',
  instruction: 'Describe a quiet morning by the lake.',
  target: 12,
  anchors: ['lake', 'morning mist'],
};

test('exact-length (baseline): prompt, stripped drafts, reports incl. "remove exactly 0 words", stop at success', async () => {
  const outputs = [
    '  The lake was calm.  \n',
    'The lake was calm and the morning mist rose over the still water.',
    '\nThe lake was calm and the fog rose over the still water.',
    'The lake was calm and morning mist rose over the still water.',
    'never requested',
  ];
  const { seen, options, out } = await conversation(lake, outputs);
  const initial =
    'Describe a quiet morning by the lake.\n\nLength constraint: write exactly 12 words under the deterministic word counter. ' +
    'The response must explicitly retain these required content items: lake; morning mist. Return only the requested response. ' +
    'Do not include a preface, word-count note, analysis, or commentary.';
  const drafts = [
    'The lake was calm.',
    'The lake was calm and the morning mist rose over the still water.',
    'The lake was calm and the fog rose over the still water.',
    'The lake was calm and morning mist rose over the still water.',
  ];
  const reports = [
    `DETERMINISTIC VERIFIER: previous response = 4 words; target = 12; required action = add exactly 8 words. Missing required content items: morning mist. ${EXACT_FEEDBACK_TAIL}`,
    `DETERMINISTIC VERIFIER: previous response = 13 words; target = 12; required action = remove exactly 1 words. Missing required content items: none. ${EXACT_FEEDBACK_TAIL}`,
    `DETERMINISTIC VERIFIER: previous response = 12 words; target = 12; required action = remove exactly 0 words. Missing required content items: morning mist. ${EXACT_FEEDBACK_TAIL}`,
  ];
  assert.deepEqual(seen, expectedFull(initial, drafts, reports));
  assert.equal(out.status === 'complete' && out.stop, 'success');
  assert.equal(options[0].maxTokens, 128, 'max(128, 3 × 12)');
  assert.equal(options[0].temperature, 0);
  assert.ok(seen.every((m) => m.every((x) => x.role !== 'system')));
});

test('exact-length structured and concise variants (templates.json)', async () => {
  const s = await conversation(lake, ['The lake was calm.', 'The lake was calm and morning mist rose over the still water.'], {
    variant: 'structured',
  });
  assert.deepEqual(s.seen[1], [
    U(
      'TASK\nDescribe a quiet morning by the lake.\n\nCONSTRAINTS\nTARGET_WORDS: 12\nREQUIRED_CONTENT: lake; morning mist\nCOUNTING: deterministic word counter\nOUTPUT: only the requested response; no preface, word-count note, analysis, or commentary.',
    ),
    A('The lake was calm.'),
    U(
      'DETERMINISTIC_VERIFIER\nCURRENT_WORDS: 4\nTARGET_WORDS: 12\nREQUIRED_ACTION: add exactly 8 words\nMISSING_REQUIRED_CONTENT: morning mist\nINSTRUCTION: Revise the complete response to hit TARGET_WORDS exactly and retain every required content item. Return only the revised response; no analysis, count, or commentary.',
    ),
  ]);
  const c = await conversation(lake, ['The lake was calm.', 'The lake was calm and morning mist rose over the still water.'], {
    variant: 'concise',
  });
  assert.deepEqual(c.seen[1], [
    U(
      'Describe a quiet morning by the lake.\n\nWrite exactly 12 words, as measured by the deterministic word counter. Include each of these required content items explicitly: lake; morning mist. Output the response only, without a preface, count, analysis, or commentary.',
    ),
    A('The lake was calm.'),
    U(
      'Verifier result: the response has 4 words; the target is 12. Add exactly 8 words. Missing required content: morning mist. Revise the whole response to exactly 12 words while keeping every required item. Output only the revision, without analysis, a count, or commentary.',
    ),
  ]);
});

interface StructuredCase {
  c: ConstraintCase;
  drafts: string[];
  reports: string[];
  maxTokens: number;
}

const structured: StructuredCase[] = [
  {
    c: {
      id: 'own-c05',
      family: 'c05',
      source: 'own',
      task: "Please generate a sentence:\n1) with exactly 11 words;\n2) with the 4th, 8th, 11th words to be 'the', 'river', 'night' respectively.",
      targets: [11, ['the', 'river', 'night']],
    },
    drafts: ['We walked along the bank.', 'We walked along the bank of the river at deep night.'],
    reports: [
      "DETERMINISTIC VERIFIER REPORT\n- total words: observed=5, target=11, residual(observed-target)=-6\n- word 4: target='the', observed='the', correct=true\n- word 8: target='river', observed=<missing>, correct=false\n- word 11: target='night', observed=<missing>, correct=false",
    ],
    maxTokens: 128,
  },
  {
    c: {
      id: 'own-c07',
      family: 'c07',
      source: 'own',
      task: "Please generate a sentence containing the word 'lantern', 'harbor', 'Tuesday'.",
      targets: ['lantern', 'harbor', 'Tuesday'],
      witness: 'On Tuesday a lantern glowed by the harbor.',
    },
    drafts: ['A lantern glowed by the harbor.', 'On Tuesday a lantern glowed by the harbor.'],
    reports: [
      "DETERMINISTIC VERIFIER REPORT\n- required word 'lantern': present=true\n- required word 'harbor': present=true\n- required word 'Tuesday': present=false",
    ],
    maxTokens: 128,
  },
  {
    c: {
      id: 'own-c09',
      family: 'c09',
      source: 'own',
      task: "Please generate a paragraph:\n1) with exactly 2 sentences;\n2) not containing the word 'rain';\n3) not containing the word 'cold';\n4) not containing the word 'is'.",
      targets: [2, 'rain', 'cold', 'is'],
      witness: 'The sky was grey. We stayed inside.',
    },
    drafts: ['The rain is cold. It is late. We stay inside.', 'The sky was grey. We stayed inside.'],
    reports: [
      "DETERMINISTIC VERIFIER REPORT\n- sentences: observed=3, target=2, residual(observed-target)=1\n- forbidden word 'rain': observed-count=1\n- forbidden word 'cold': observed-count=1\n- forbidden word 'is': observed-count=2",
    ],
    maxTokens: 128,
  },
  {
    c: {
      id: 'own-c10',
      family: 'c10',
      source: 'own',
      task: 'Please generate a paragraph:\n1) with exactly 2 sentences;\n2) with all sentences having at least 4 words;\n3) with all sentences having at most 6 words.',
      targets: [2, 4, 6],
    },
    drafts: ['Birds sing. The old mill turns slowly in the warm wind.', 'Small birds sing at dawn. The old mill turns slowly.'],
    reports: [
      'DETERMINISTIC VERIFIER REPORT\n- sentences: observed=2, target=2, residual(observed-target)=0\n- allowed words per sentence: 4 to 6 inclusive\n- sentence 1: words=2, below-minimum-by=2, above-maximum-by=0\n- sentence 2: words=9, below-minimum-by=0, above-maximum-by=3',
    ],
    maxTokens: 128,
  },
  {
    c: {
      id: 'own-c12',
      family: 'c12',
      source: 'own',
      task: "Please generate a paragraph:\n1) with exactly 2 sentences;\n2) with sentences having the last word to be 'bread', 'door', respectively.",
      targets: [2, ['bread', 'door']],
      witness: 'She baked fresh bread. Then she opened the door.',
    },
    drafts: [
      "She baked the baker's bread",
      'She baked fresh bread. Then she sat down.',
      'She baked fresh bread. Then she opened the door.',
    ],
    reports: [
      "DETERMINISTIC VERIFIER REPORT\n- sentences: observed=1, target=2, residual(observed-target)=-1\n- sentence 1 final word: target='bread', observed='bread', correct=true\n- sentence 2 final word: target='door', observed=<missing>, correct=false",
      "DETERMINISTIC VERIFIER REPORT\n- sentences: observed=2, target=2, residual(observed-target)=0\n- sentence 1 final word: target='bread', observed='bread', correct=true\n- sentence 2 final word: target='door', observed='down', correct=false",
    ],
    maxTokens: 128,
  },
];

for (const s of structured) {
  test(`${s.c.family}: every round's messages are the reference's, byte for byte`, { skip: punkt.skip }, async () => {
    const { seen, options, out } = await conversation(s.c, [...s.drafts.map((d) => `\n${d}  `), 'never requested']);
    const initial = `${s.c.task}\n\n${STRUCTURED_PREAMBLE}`;
    assert.deepEqual(
      seen,
      expectedFull(
        initial,
        s.drafts,
        s.reports.map((r) => `${r}\n${STRUCTURED_SUFFIX}`),
      ),
    );
    assert.equal(out.status === 'complete' && out.stop, 'success');
    assert.equal(options[0].maxTokens, s.maxTokens);
  });
}

test('structured prompt variants change only the preamble and the suffix', { skip: punkt.skip }, async () => {
  const s = structured[1];
  const variants: Record<Exclude<PromptVariant, 'baseline'>, [string, string]> = {
    structured: [
      `TASK\n${s.c.task}\n\nCONSTRAINTS\nCHECKING: deterministic verifier\nOUTPUT: only the requested text; no preface, analysis, count, or commentary.`,
      'INSTRUCTION: Revise the complete previous response so every reported constraint is satisfied. Return only the revised text; no analysis, count, or commentary.',
    ],
    concise: [
      `${s.c.task}\n\nA deterministic verifier checks every constraint. Output only the requested text, without a preface, analysis, count, or commentary.`,
      'Revise the whole response to satisfy every reported constraint. Output only the revision, without analysis, a count, or commentary.',
    ],
  };
  for (const [variant, [initial, suffix]] of Object.entries(variants)) {
    const { seen } = await conversation(s.c, s.drafts, { variant: variant as PromptVariant });
    assert.deepEqual(seen[1], [U(initial), A(s.drafts[0]), U(`${s.reports[0]}\n${suffix}`)], variant);
  }
});

test('a trajectory resumed after a crash sends the same messages as an uninterrupted one (real family, store)', async () => {
  const dir = tempDir();
  const outputs = [
    'The lake was calm.',
    'The lake was calm and the morning mist rose over the still water.',
    'The lake was calm and the fog rose over the still water.',
    'The lake was calm and morning mist rose over the still water.',
  ];
  const run = async (path: string, model: ReturnType<typeof scriptedModel>, crashAfterAppends?: number) => {
    const store = crashAfterAppends === undefined ? await openStore(path) : await openCrashingStore(path, crashAfterAppends);
    try {
      return await executeRun({
        store,
        runId: 'r',
        cases: [lake],
        caseSet: { format: 'native', total: 1, limit: null, fileSha256: null, manifest: null, path: null },
        model,
        protocol: PAPER_PROTOCOL,
        resolveFamily: getFamily,
        abandonAfterMs: 10,
      });
    } finally {
      await store.close();
    }
  };
  const ref = scriptedModel(outputs);
  await run(join(dir, 'ref.db'), ref);
  // Appends: plan, session, the first attempt's start, then one per round.
  const first = scriptedModel(outputs);
  await assert.rejects(run(join(dir, 'crash.db'), first, 3 + 2), SimulatedCrash);
  assert.equal(first.seen.length, 2);
  const second = scriptedModel(outputs.slice(2));
  await run(join(dir, 'crash.db'), second);
  assert.deepEqual(second.seen, ref.seen.slice(2));
  const store = await openStore(join(dir, 'crash.db'), { readonly: true });
  assert.deepEqual(
    await store.loadTrajectories(['r']),
    await (await openStore(join(dir, 'ref.db'), { readonly: true })).loadTrajectories(['r']),
  );
  assert.ok((await auditRun(store, 'r', getFamily)).passed);
});
