// Verifier states as the reference writes them: Python json.dumps bytes (", "/": " separators,
// insertion order, floats in violation vectors printed as floats, e.g. 0.0 and 0.39999999999999997).
import { pyJsonDumps, pyJsonDumpsWith } from '../py/format.ts';
import type { VerifierState } from './types.ts';

/** A state serialised as Python's `json.dumps` would (byte-identical to the reference's records). */
export function stateJson(state: VerifierState): string {
  return pyJsonDumps(state);
}

/** A batch output record: `{"id": …, <state fields in the reference's order>}`. */
export function verifyRecord(id: unknown, state: VerifierState): Record<string, unknown> {
  return { id: id ?? null, ...state };
}

/** `pyJsonDumps(verifyRecord(id, state))`, without building the record (batch output). */
export function verifyRecordJson(id: unknown, state: VerifierState): string {
  return pyJsonDumpsWith('id', id ?? null, state);
}
