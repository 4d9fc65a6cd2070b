// The reference's corruption checks (constraint_protocol.corruption_checks and
// structured_data.corruption_checks): each perturbs the witness so that the verifier must report a
// violation. Stored per row in the paper's case files; every value must be true.
import { pyInt, pyStr, type JsonValue } from '../../py/values.ts';
import { normalizedLiteral, sentences, words } from './units.ts';
import { C05_POSITIONS, verifyC05, verifyC07, verifyC09, verifyC10, verifyC12 } from './verifiers.ts';

/** The paper's structured (COLLIE-derived) families. */
export type StructureCode = 'c05' | 'c07' | 'c09' | 'c10' | 'c12';

function at<T>(list: T[], index: number, what: string): T {
  const i = index < 0 ? list.length + index : index;
  if (i < 0 || i >= list.length) throw new RangeError(`${what}: the witness has too few units for this corruption check`);
  return list[i];
}

/**
 * The reference's corruption checks of a case: whether its witness text satisfies the structure's targets, by check name
 * (docs/protocol.md §1). Throws when the targets do not have the structure's shape.
 */
export function corruptionChecks(structure: StructureCode, witness: string, targets: unknown): Record<string, boolean> {
  const t = targets as unknown[];
  switch (structure) {
    case 'c05': {
      const positionCorrupt = [...words(witness)];
      at(positionCorrupt, C05_POSITIONS[0], 'c05 position corruption');
      positionCorrupt[C05_POSITIONS[0]] = 'mismatchtoken';
      return {
        position_corruption_detected: verifyC05(positionCorrupt.join(' '), targets).position_mismatch_count > 0,
        count_corruption_detected: verifyC05(witness + ' extra', targets).count_residual !== 0,
      };
    }
    case 'c10': {
      const units = sentences(witness);
      // One retained sentence must violate every c10 sentence-count target.
      const removed = verifyC10(at(units, 0, 'c10 sentence corruption'), targets);
      const upper = pyInt(t[2]);
      const inflated = [...units];
      inflated[0] = inflated[0] + ' extra'.repeat(Math.max(0, upper + 1));
      const bound = verifyC10(inflated.join('. ') + '.', targets);
      return {
        sentence_count_corruption_detected: removed.sentence_count_residual !== 0,
        bound_corruption_detected: bound.upper_excesses.some((v) => v !== 0),
      };
    }
    case 'c07': {
      const target = normalizedLiteral(t[0]);
      const corrupted = words(witness).map((token) => (normalizedLiteral(token) === target ? 'mismatchtoken' : token));
      return { required_word_corruption_detected: !verifyC07(corrupted.join(' '), targets).joint_success };
    }
    case 'c09': {
      const units = sentences(witness);
      return {
        sentence_count_corruption_detected: verifyC09(at(units, 0, 'c09 sentence corruption'), targets).sentence_count_residual !== 0,
        forbidden_word_corruption_detected:
          verifyC09(witness + ' ' + pyStr(t[1] as JsonValue, { numbers: 'json' }), targets).forbidden_word_counts[0] > 0,
      };
    }
    case 'c12': {
      const units = sentences(witness);
      const firstTokens = [...words(at(units, 0, 'c12 last-word corruption'))];
      at(firstTokens, -1, 'c12 last-word corruption');
      firstTokens[firstTokens.length - 1] = 'mismatchtoken';
      const corruptedUnits = [firstTokens.join(' '), ...units.slice(1)];
      return {
        sentence_count_corruption_detected: verifyC12(units.slice(0, -1).join('. ') + '.', targets).sentence_count_residual !== 0,
        last_word_corruption_detected: !verifyC12(corruptedUnits.join('. ') + '.', targets).last_word_matches[0],
      };
    }
  }
}
