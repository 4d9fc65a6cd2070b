// Average ranks (scipy.stats.rankdata(method='average')): ties share the mean of the 1-based ranks
// they span. Spearman's ρ and the AUROC both rank this way.

/** 1-based average ranks of `values`; every rank is a multiple of 0.5. */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b] || a - b);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && values[order[j]] === values[order[i]]) j++;
    const rank = (i + 1 + j) / 2; // mean of the ranks i+1 … j
    for (let t = i; t < j; t++) ranks[order[t]] = rank;
    i = j;
  }
  return ranks;
}
