// The case-set manifest: counts, the file hash, per-row hashes and a hash over all of it.
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import type { ConstraintCase } from '../verify/types.ts';
import { CASE_SET_MANIFEST_SCHEMA, type CaseFormat, type CaseSetManifest, type UnsupportedRow } from './types.ts';

interface ManifestInput {
  format: CaseFormat;
  fileSha256: string;
  fileBytes: number;
  cases: ConstraintCase[];
  /** The structure label of each case's row (same order as cases); defaults to the family. */
  structures?: string[];
  unsupported?: UnsupportedRow[];
}

function countBy<T>(items: T[], key: (x: T) => string): Record<string, number> {
  const counts = new Map<string, number>();
  for (const x of items) counts.set(key(x), (counts.get(key(x)) ?? 0) + 1);
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** SHA-256 of a row's canonical JSON (sorted keys, no whitespace): the case's content identity. */
export function rowSha256(row: unknown): string {
  return sha256Hex(canonicalJson(row));
}

function manifestHash(m: Omit<CaseSetManifest, 'manifest_sha256'> | CaseSetManifest): string {
  const { manifest_sha256: _omit, ...rest } = m as CaseSetManifest;
  return sha256Hex(canonicalJson(rest));
}

export function computeManifest(input: ManifestInput): CaseSetManifest {
  const { cases } = input;
  const structures = input.structures ?? cases.map((c) => c.family);
  const unsupported = input.unsupported ?? [];
  const body: Omit<CaseSetManifest, 'manifest_sha256'> = {
    schema: CASE_SET_MANIFEST_SCHEMA,
    format: input.format,
    file_sha256: input.fileSha256,
    file_bytes: input.fileBytes,
    case_count: cases.length,
    counts: {
      by_family: countBy(cases, (c) => c.family),
      by_structure: countBy(structures, (s) => s),
      by_source: countBy(cases, (c) => c.source),
    },
    unsupported: {
      count: unsupported.length,
      by_structure: countBy(unsupported, (u) => u.structure),
      rows: unsupported.map((u) => ({ id: u.id, structure: u.structure, sha256: u.sha256 })),
    },
    rows: cases.map((c) => ({ id: c.id, family: c.family, sha256: rowSha256(c.row ?? c) })),
  };
  return { ...body, manifest_sha256: manifestHash(body) };
}

/** Whether a manifest's own hash is consistent with its content. */
export function manifestIsIntact(m: CaseSetManifest): boolean {
  return manifestHash(m) === m.manifest_sha256;
}
