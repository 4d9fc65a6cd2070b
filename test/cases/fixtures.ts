// Small case files of our own (our own sentences) in each format, written to a temporary folder.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/core/util/hash.ts';
import { tempDir } from '../tmp.ts';

export function tmpDir(): string {
  return tempDir('revloop-cases-');
}

export function writeLines(dir: string, name: string, rows: unknown[], eol = '\n'): string {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join(eol) + eol);
  return path;
}

const REF1 = 'Lena keeps bees behind the old mill, and every spring the hives hum loudly.';
const REF2 = 'Our quiet period begins Monday; the IPO prices later.';

export function paperExactRows(): Record<string, unknown>[] {
  return [
    {
      anchor_eligible: true,
      anchors: ['bees', 'old mill'],
      id: 'mine__0001',
      instruction: 'Tell me about Lena.',
      length_band: '10-50',
      reference: REF1,
      reference_sha256: sha256Hex(REF1),
      source: 'mine_notes',
      source_id: '1',
      target: 14,
    },
    {
      anchor_eligible: true,
      anchors: ['quiet period', 'IPO'],
      id: 'mine__0002',
      instruction: 'When does the quiet period start?',
      length_band: '10-50',
      reference: REF2,
      reference_sha256: sha256Hex(REF2),
      source: 'mine_faq',
      source_id: '2',
      target: 9,
    },
  ];
}

const C07_WITNESS = 'A heron is waiting by the pond, Lena said.';
const C10_WITNESS = 'The cat sat on the mat. It was happy there today. Then it slept.';

export function paperStructuredRows(): Record<string, unknown>[] {
  return [
    {
      id: 'lexical_constraints__c07__mine__0001',
      family: 'lexical_constraints_c07',
      structure: 'c07',
      split: 'full480_extension',
      source: 'mine',
      upstream_key: 'mine_c07',
      upstream_index: 1,
      task: "Please generate a sentence containing the word 'Lena', 'is', 'heron'.",
      targets: ['Lena', 'is', 'heron'],
      witness: C07_WITNESS,
      witness_sha256: sha256Hex(C07_WITNESS),
      initial_verifier_state: {
        joint_success: true,
        target_words: ['Lena', 'is', 'heron'],
        target_present: [true, true, true],
        missing_count: 0,
        violation_vector: [0.0, 0.0, 0.0],
      },
      corruption_checks: { required_word_corruption_detected: true },
      domain: 'lexical_constraints',
      benchmark_partition: 'full480_extension',
    },
    {
      id: 'compositional_structure_c10__mine__0002',
      family: 'compositional_structure_c10',
      structure: 'c10',
      split: 'discovery',
      source: 'mine',
      upstream_key: 'mine_c10',
      upstream_index: 2,
      task: 'Please generate a paragraph:\n1) with exactly 3 sentences;\n2) with all sentences having at least 3 words;\n3) with all sentences having at most 6 words.',
      targets: [3, 3, 6],
      witness: C10_WITNESS,
      witness_sha256: sha256Hex(C10_WITNESS),
      initial_verifier_state: {
        joint_success: true,
        observed_sentence_count: 3,
        target_sentence_count: 3,
        sentence_count_residual: 0,
        sentence_word_counts: [6, 5, 3],
        lower_bound: 3,
        upper_bound: 6,
        lower_deficits: [0, 0, 0],
        upper_excesses: [0, 0, 0],
        violation_vector: [0, 0, 0, 0, 0, 0, 0],
      },
      corruption_checks: { sentence_count_corruption_detected: true, bound_corruption_detected: true },
      domain: 'compositional_constraints',
      benchmark_partition: 'preserved_c05_c10_240',
    },
  ];
}

export function collieRows(): Record<string, unknown>[] {
  return [
    {
      id: 'collie__mine_c07__0000',
      key: 'mine_c07',
      source: 'mine',
      structure: 'c07',
      index: 0,
      prompt: "Please generate a sentence containing the word 'Lena', 'is', 'heron'.",
      witness: C07_WITNESS,
      witness_sha256: sha256Hex(C07_WITNESS),
      targets: ['Lena', 'is', 'heron'],
      metadata: '{}',
      constraint: 'Constraint(...)',
      official_check: true,
    },
    {
      // A structure COLLIE's data does not have (all 13 that it has are runnable): reported, not dropped.
      id: 'collie__mine_c13__0000',
      key: 'mine_c13',
      source: 'mine',
      structure: 'c13',
      index: 0,
      prompt: 'Please generate a passage.',
      witness: 'A first paragraph. It ends.',
      witness_sha256: sha256Hex('A first paragraph. It ends.'),
      targets: [['It ends'], 2],
      metadata: '{}',
      constraint: 'All(...)',
      official_check: true,
    },
    {
      id: 'collie__mine_c10__0001',
      key: 'mine_c10',
      source: 'mine',
      structure: 'c10',
      index: 1,
      prompt: 'Please generate a paragraph.',
      witness: C10_WITNESS,
      witness_sha256: sha256Hex(C10_WITNESS),
      targets: [3, 3, 6],
      metadata: '{}',
      constraint: 'All(...)',
      official_check: true,
    },
  ];
}

export function nativeRows(): Record<string, unknown>[] {
  return [
    { id: 'n1', family: 'exact-length', source: 'mine', instruction: 'Tell me about Lena.', target: 14, anchors: ['bees'], witness: REF1 },
    { id: 'n2', family: 'c07', source: 'mine', task: "Write a sentence with 'heron'.", targets: ['heron'], witness: C07_WITNESS },
    { id: 'n3', family: 'c10', task: 'Write three short sentences.', targets: [3, 3, 6], meta: { author: 'me' } },
  ];
}
