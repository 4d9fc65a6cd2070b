// Export in the paper's per-case schema (docs/protocol.md §1.6, §1.8): one JSON line per case, in input order,
// written with Python's json.dumps bytes. Exact-length rows have the keys of the reference's serial
// runner, structured rows those of its vLLM runner (docs/protocol.md §0.5). A protocol-incomplete
// trajectory keeps the same keys with null final flags and adds `protocol_complete: false` and its
// reason; complete rows carry exactly the reference's keys.
import { PyFloat, pyJsonDumps } from '../../core/py/format.ts';
import type { ConstraintCase, VerifierState } from '../../core/verify/types.ts';
import type { RoundRecord, TrajectoryRecord } from '../../store/types.ts';

/** A case field from the original row, or from a native row's `meta`. */
function caseField(c: ConstraintCase, key: string): unknown {
  const row = c.row;
  if (row && key in row) return row[key];
  const meta = row?.meta as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && key in meta) return meta[key];
  return undefined;
}

function orNull(v: unknown): unknown {
  return v === undefined ? null : v;
}

function exactRound(r: RoundRecord): Record<string, unknown> {
  const s = r.state as VerifierState & { word_count: number; error: number; exact_length: boolean; missing: string[] };
  return {
    revision: r.revision,
    text: r.text,
    word_count: s.word_count,
    error: s.error,
    exact_length: s.exact_length,
    missing: s.missing,
    joint_success: s.joint_success,
  };
}

function exactRow(t: TrajectoryRecord, complete: boolean): Record<string, unknown> {
  const c = t.case;
  const rounds = t.rounds.map(exactRound);
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  return {
    id: c.id,
    source: c.source,
    source_id: orNull(caseField(c, 'source_id')),
    length_band: orNull(caseField(c, 'length_band')),
    target: c.target,
    required: c.anchors ?? [],
    rounds,
    one_shot_exact: first ? first.exact_length : null,
    one_shot_joint: first ? first.joint_success : null,
    final_exact: complete && last ? last.exact_length : null,
    final_joint: complete && last ? last.joint_success : null,
    ever_exact: rounds.some((r) => r.exact_length === true),
    revisions_used: Math.max(0, rounds.length - 1),
  };
}

function structuredRow(t: TrajectoryRecord, complete: boolean): Record<string, unknown> {
  const c = t.case;
  const rounds = t.rounds.map((r) => ({
    revision: r.revision,
    text: r.text,
    joint_success: r.joint,
    violation_energy: new PyFloat(r.energy),
    verifier: r.state,
  }));
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  const row: Record<string, unknown> = {
    id: c.id,
    family: caseField(c, 'family') ?? c.family,
    structure: caseField(c, 'structure') ?? c.family,
    split: orNull(caseField(c, 'split')),
    source: c.source,
    upstream_key: orNull(caseField(c, 'upstream_key') ?? caseField(c, 'key')),
    upstream_index: orNull(caseField(c, 'upstream_index') ?? caseField(c, 'index')),
    targets: orNull(c.targets),
    rounds,
    one_shot_joint: first ? first.joint_success : null,
    final_joint: complete && last ? last.joint_success : null,
    ever_joint: rounds.some((r) => r.joint_success),
    revisions_used: Math.max(0, rounds.length - 1),
  };
  for (const k of ['domain', 'benchmark_partition']) {
    const v = caseField(c, k);
    if (v !== undefined) row[k] = v;
  }
  return row;
}

/** The paper's row for one trajectory (complete or protocol-incomplete). */
export function paperRow(t: TrajectoryRecord): Record<string, unknown> {
  const complete = t.status === 'complete';
  const row = t.family === 'exact-length' ? exactRow(t, complete) : structuredRow(t, complete);
  if (!complete) {
    row.protocol_complete = false;
    row.incomplete_reason = t.incompleteReason ?? (t.status === 'pending' ? 'not finished (run interrupted)' : null);
  }
  return row;
}

/** The export file's text: one line per trajectory, in case order. */
export function paperJsonl(trajectories: readonly TrajectoryRecord[]): string {
  return trajectories.map((t) => pyJsonDumps(paperRow(t)) + '\n').join('');
}
