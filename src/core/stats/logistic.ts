// Unpenalised logistic regression by maximum likelihood with a case-clustered sandwich covariance
// (docs/protocol.md §3.9): bread = pinv(X′WX), meat = Σ_clusters outer(Σ x(y − p)), no small-sample
// correction. The reference reaches the MLE with L-BFGS-B; we use Newton–Raphson with step halving,
// which converges to the same optimum (to far tighter tolerance) in a handful of iterations.
import { pseudoInverse } from 'ml-matrix';
import { twoSidedNormalP } from './normal.ts';

/** Input of `fitClusteredLogit`: a row-major design matrix, the binary outcomes and each row's cluster. */
export interface LogisticInput {
  /** Row-major design matrix, rows × cols. */
  x: Float64Array;
  rows: number;
  cols: number;
  /** Outcomes 0/1. */
  y: ArrayLike<number>;
  /** Cluster label of each row. */
  clusters: readonly string[];
}

/**
 * A fitted clustered logistic regression: coefficients, cluster-robust covariance, standard errors, z and p values, and convergence
 * warnings.
 */
export interface LogisticFit {
  coefficients: number[];
  /** Clustered covariance, cols × cols, row-major. */
  covariance: number[][];
  standardErrors: number[];
  logLikelihood: number;
  iterations: number;
  converged: boolean;
  clusters: number;
  /** Largest |X′(y − p)| at the solution. */
  gradientNorm: number;
  warnings: string[];
}

const MAX_ITERATIONS = 200;

/**
 * Logistic regression by Newton's method with cluster-robust (sandwich) standard errors, as statsmodels'
 * `Logit(...).fit(cov_type='cluster')` without the small-sample correction (docs/protocol.md §3.9). Throws when the design matrix does
 * not have rows × cols entries.
 */
export function fitClusteredLogit(input: LogisticInput): LogisticFit {
  const { x, rows: n, cols: k, y } = input;
  if (x.length !== n * k) throw new Error(`design matrix has ${x.length} entries, expected ${n}×${k}`);
  const warnings: string[] = [];
  let beta: Float64Array = new Float64Array(k);
  let eta: Float64Array = new Float64Array(n);
  let ll = logLikelihood(eta, y);
  let converged = false;
  let iterations = 0;
  for (; iterations < MAX_ITERATIONS; iterations++) {
    const p = eta.map(expit);
    const gradient = xtv(
      x,
      n,
      k,
      Float64Array.from(p, (pi, i) => y[i] - pi),
    );
    const hessian = xtwx(
      x,
      n,
      k,
      Float64Array.from(p, (pi) => pi * (1 - pi)),
    );
    const step = matVec(pinvSymmetric(hessian, k), gradient);
    let scale = 1;
    let candidate: Float64Array = beta;
    let candidateEta: Float64Array = eta;
    let candidateLl = -Infinity;
    for (let halvings = 0; halvings < 60; halvings++) {
      candidate = beta.map((b, j) => b + scale * step[j]);
      candidateEta = matVecRows(x, n, k, candidate);
      candidateLl = logLikelihood(candidateEta, y);
      if (candidateLl >= ll - 1e-12 * Math.abs(ll)) break;
      scale /= 2;
    }
    const maxStep = Math.max(0, ...step.map((s) => Math.abs(s * scale)));
    const llChange = candidateLl - ll;
    beta = candidate;
    eta = candidateEta;
    ll = candidateLl;
    if (maxStep < 1e-10 || (Math.abs(llChange) <= 1e-15 * Math.max(1, Math.abs(ll)) && maxStep < 1e-6)) {
      converged = true;
      iterations++;
      break;
    }
  }
  if (!converged) warnings.push(`Newton–Raphson did not converge in ${MAX_ITERATIONS} iterations (possible separation)`);

  const p = eta.map(expit);
  const weights = Float64Array.from(p, (pi) => pi * (1 - pi));
  const bread = pinvSymmetric(xtwx(x, n, k, weights), k);
  const scores = new Map<string, Float64Array>();
  for (let i = 0; i < n; i++) {
    const key = input.clusters[i];
    let s = scores.get(key);
    if (!s) scores.set(key, (s = new Float64Array(k)));
    const r = y[i] - p[i];
    for (let j = 0; j < k; j++) s[j] += x[i * k + j] * r;
  }
  const meat = new Float64Array(k * k);
  for (const s of scores.values()) {
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) meat[a * k + b] += s[a] * s[b];
  }
  const cov = matMul(matMul(bread, meat, k), bread, k);
  const covariance: number[][] = [];
  for (let a = 0; a < k; a++) covariance.push(Array.from(cov.subarray(a * k, a * k + k)));
  const gradient = xtv(
    x,
    n,
    k,
    Float64Array.from(p, (pi, i) => y[i] - pi),
  );
  const fitted = p.reduce((m, pi) => Math.max(m, Math.min(pi, 1 - pi) < 1e-10 ? 1 : 0), 0);
  if (fitted) warnings.push('some fitted probabilities are within 1e-10 of 0 or 1 (quasi-separation)');
  return {
    coefficients: Array.from(beta),
    covariance,
    standardErrors: covariance.map((row, j) => Math.sqrt(Math.max(row[j], 0))),
    logLikelihood: ll,
    iterations,
    converged,
    clusters: scores.size,
    gradientNorm: Math.max(0, ...gradient.map(Math.abs)),
    warnings,
  };
}

export function expit(t: number): number {
  if (t >= 0) return 1 / (1 + Math.exp(-t));
  const e = Math.exp(t);
  return e / (1 + e);
}

/** Σ y·η − log(1 + e^η), computed stably. */
function logLikelihood(eta: Float64Array, y: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < eta.length; i++) {
    const t = eta[i];
    const softplus = t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
    s += y[i] * t - softplus;
  }
  return s;
}

function xtv(x: Float64Array, n: number, k: number, v: Float64Array): Float64Array {
  const out = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const vi = v[i];
    if (vi === 0) continue;
    const base = i * k;
    for (let j = 0; j < k; j++) out[j] += x[base + j] * vi;
  }
  return out;
}

/** X′WX. Only each row's nonzero entries are visited: designs with many dummies are mostly zeros. */
function xtwx(x: Float64Array, n: number, k: number, w: Float64Array): Float64Array {
  const out = new Float64Array(k * k);
  const nonzero = new Int32Array(k);
  for (let i = 0; i < n; i++) {
    const wi = w[i];
    if (wi === 0) continue;
    const base = i * k;
    let m = 0;
    for (let j = 0; j < k; j++) if (x[base + j] !== 0) nonzero[m++] = j;
    for (let s = 0; s < m; s++) {
      const a = nonzero[s];
      const xa = x[base + a] * wi;
      if (xa === 0) continue;
      for (let t = s; t < m; t++) out[a * k + nonzero[t]] += xa * x[base + nonzero[t]];
    }
  }
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) out[a * k + b] = out[b * k + a];
  return out;
}

function matVecRows(x: Float64Array, n: number, k: number, beta: Float64Array): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const base = i * k;
    for (let j = 0; j < k; j++) s += x[base + j] * beta[j];
    out[i] = s;
  }
  return out;
}

function matVec(m: Float64Array, v: Float64Array): Float64Array {
  const k = v.length;
  const out = new Float64Array(k);
  for (let a = 0; a < k; a++) {
    let s = 0;
    for (let b = 0; b < k; b++) s += m[a * k + b] * v[b];
    out[a] = s;
  }
  return out;
}

function matMul(a: Float64Array, b: Float64Array, k: number): Float64Array {
  const out = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let l = 0; l < k; l++) {
      const ail = a[i * k + l];
      if (ail === 0) continue;
      for (let j = 0; j < k; j++) out[i * k + j] += ail * b[l * k + j];
    }
  }
  return out;
}

/** Moore–Penrose pseudo-inverse with NumPy's default cutoff (1e-15 × the largest singular value). */
function pinvSymmetric(m: Float64Array, k: number): Float64Array {
  const rows: number[][] = [];
  for (let a = 0; a < k; a++) rows.push(Array.from(m.subarray(a * k, a * k + k)));
  // ml-matrix's cutoff is threshold · max(rows, cols) · s_max; NumPy's is rcond · s_max.
  const inv = pseudoInverse(rows, 1e-15 / k).to2DArray();
  const out = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) out[a * k + b] = inv[a][b];
  return out;
}

interface WaldOddsRatio {
  z: number | null;
  p: number | null;
  odds_ratio: number | null;
  ci95: { low: number | null; high: number | null };
  /** Why a field is null (empty when none is). */
  reasons: Record<string, string>;
}

/** OR = exp(β), CI = exp(β ± 1.96 SE), two-sided normal p (docs/protocol.md §3.9); nulls carry their reason. */
export function waldOddsRatio(coefficient: number, se: number): WaldOddsRatio {
  const out: WaldOddsRatio = { z: null, p: null, odds_ratio: null, ci95: { low: null, high: null }, reasons: {} };
  if (!(se > 0 && Number.isFinite(se))) {
    for (const f of ['z', 'p', 'odds_ratio', 'ci95']) out.reasons[f] = 'clustered standard error is zero';
    return out;
  }
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  out.z = coefficient / se;
  out.p = twoSidedNormalP(out.z);
  out.odds_ratio = finite(Math.exp(coefficient));
  out.ci95 = { low: finite(Math.exp(coefficient - 1.96 * se)), high: finite(Math.exp(coefficient + 1.96 * se)) };
  if (out.odds_ratio === null) out.reasons.odds_ratio = 'exp(coefficient) overflows';
  return out;
}
