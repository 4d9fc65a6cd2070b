// Case sets: the file formats revloop reads, and the manifest every run plan embeds.
import type { ConstraintCase } from '../verify/types.ts';

/**
 * - `paper-exact`: the paper's exact-length schema (generation_combined480.jsonl).
 * - `paper-structured`: the paper's lexical/compositional schema (*_constraints_combined480.jsonl).
 * - `collie`: rows of COLLIE's data as in collie_all.jsonl (all 13 structures).
 * - `native`: revloop's own JSON Lines format, for any family including registered ones.
 * - `ifeval`: IFEval's input_data.jsonl rows ({key, prompt, instruction_id_list, kwargs}).
 */
export type CaseFormat = 'paper-exact' | 'paper-structured' | 'collie' | 'native' | 'ifeval';
/** The case-file formats revloop reads, in the order auto-detection tries them. */
export const CASE_FORMATS: readonly CaseFormat[] = ['paper-exact', 'paper-structured', 'collie', 'native', 'ifeval'];

/** One problem in one row: rendered `file:line: field: problem`. */
export interface CaseProblem {
  line: number | null;
  field: string | null;
  problem: string;
}

/** A row the file holds but revloop cannot run (a COLLIE structure without a family). */
export interface UnsupportedRow {
  line: number;
  id: string;
  structure: string;
  sha256: string;
}

export const CASE_SET_MANIFEST_SCHEMA = 'revloop.case-set-manifest/1';

/**
 * The frozen description of a case set, embedded in every run plan. Everything in it is a function
 * of the file's bytes (no paths, no times), so equal files give equal manifests and hashes.
 */
export interface CaseSetManifest {
  schema: typeof CASE_SET_MANIFEST_SCHEMA;
  format: CaseFormat;
  /** SHA-256 of the file's bytes, exactly as read. */
  file_sha256: string;
  file_bytes: number;
  /** Runnable cases (= cases.length). */
  case_count: number;
  /** Counts of the runnable cases. by_structure is the row's own structure label (COLLIE/paper) or the family. */
  counts: {
    by_family: Record<string, number>;
    by_structure: Record<string, number>;
    by_source: Record<string, number>;
  };
  /** Rows skipped because no family runs them (COLLIE structures other than the five); never silent. */
  unsupported: { count: number; by_structure: Record<string, number>; rows: Array<{ id: string; structure: string; sha256: string }> };
  /** One entry per runnable case, in file order: SHA-256 of the row's canonical JSON (sorted keys). */
  rows: Array<{ id: string; family: string; sha256: string }>;
  /** SHA-256 of the canonical JSON of this manifest without this field. */
  manifest_sha256: string;
}

/** A loaded case set: the runnable cases in file order, their manifest (hashes and counts), the format, and the rows no family runs. */
export interface LoadedCaseSet {
  cases: ConstraintCase[];
  manifest: CaseSetManifest;
  format: CaseFormat;
  unsupported: UnsupportedRow[];
}
