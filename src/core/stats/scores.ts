// Scores of probabilistic predictions of a binary outcome, as scikit-learn 1.2 defines them:
// brier_score_loss, log_loss (probabilities clipped to [ε, 1 − ε], ε = float64 machine epsilon, its
// eps='auto') and roc_auc_score (equal to the Mann–Whitney U / (n₁·n₀) with average ranks for ties).
import { averageRanks } from './ranks.ts';

const EPS = 2.220446049250313e-16;

function check(y: ArrayLike<number>, p: ArrayLike<number>): void {
  if (y.length !== p.length) throw new RangeError(`scores: ${y.length} outcomes but ${p.length} predictions`);
  if (!y.length) throw new RangeError('scores: no predictions');
}

/** Mean squared difference between the predicted probability and the 0/1 outcome. */
export function brierScore(y: ArrayLike<number>, p: ArrayLike<number>): number {
  check(y, p);
  let s = 0;
  for (let i = 0; i < y.length; i++) s += (y[i] - p[i]) ** 2;
  return s / y.length;
}

/** Mean negative log-likelihood of the outcomes. */
export function logLoss(y: ArrayLike<number>, p: ArrayLike<number>): number {
  check(y, p);
  let s = 0;
  for (let i = 0; i < y.length; i++) {
    const q = Math.min(Math.max(p[i], EPS), 1 - EPS);
    s -= y[i] ? Math.log(q) : Math.log(1 - q);
  }
  return s / y.length;
}

/** Why the AUROC is undefined, or null when it is defined. */
export function aurocUndefinedReason(y: ArrayLike<number>): string | null {
  let positives = 0;
  for (let i = 0; i < y.length; i++) positives += y[i] ? 1 : 0;
  if (positives === 0 || positives === y.length) return `AUROC needs both outcomes (all ${y.length} rows are ${positives ? 1 : 0})`;
  return null;
}

/** Area under the ROC curve; throws when only one outcome class is present. */
export function auroc(y: ArrayLike<number>, p: ArrayLike<number>): number {
  check(y, p);
  const reason = aurocUndefinedReason(y);
  if (reason) throw new RangeError(`scores: ${reason}`);
  const ranks = averageRanks(p);
  let positives = 0;
  let rankSum = 0;
  for (let i = 0; i < y.length; i++) {
    if (y[i]) {
      positives++;
      rankSum += ranks[i];
    }
  }
  const negatives = y.length - positives;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}
