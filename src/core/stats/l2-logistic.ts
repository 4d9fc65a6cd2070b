// L2-penalised logistic regression with an unpenalised intercept: the optimum that scikit-learn's
// LogisticRegression(penalty='l2', C, solver='lbfgs') approaches, i.e. the minimiser of
//   Σ_i [log(1 + e^{η_i}) − y_i η_i] + ‖w‖² / (2C),   η_i = b + x_i·w
// (scikit-learn 1.2 sums the loss over rows; the intercept b is not penalised). The objective is
// strictly convex, so we take damped Newton steps (exact Hessian, Cholesky solve, Armijo
// backtracking) from zeros to the optimum itself, where L-BFGS stops at its gradient tolerance.
import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { expit } from './logistic.ts';

interface L2LogisticInput {
  /** Row-major features, rows × cols, without an intercept column. */
  x: Float64Array;
  rows: number;
  cols: number;
  /** Outcomes 0/1. */
  y: ArrayLike<number>;
  /** Inverse penalty strength (scikit-learn's C). */
  C: number;
  /**
   * Starting point (default: zeros, as scikit-learn starts). The objective is strictly convex, so the
   * optimum does not depend on it; a nearby start (the previous fold's fit) only saves iterations.
   */
  start?: { intercept: number; coefficients: ArrayLike<number> };
}

export interface L2LogisticFit {
  intercept: number;
  coefficients: Float64Array;
  /** Penalised objective at the solution. */
  objective: number;
  iterations: number;
  converged: boolean;
  /** Largest |gradient| component at the solution. */
  gradientNorm: number;
}

const MAX_ITERATIONS = 100;

export function fitL2Logistic(input: L2LogisticInput): L2LogisticFit {
  const { x, rows: n, cols: k, y, C } = input;
  if (x.length !== n * k) throw new Error(`feature matrix has ${x.length} entries, expected ${n}×${k}`);
  if (!(C > 0)) throw new RangeError(`C must be positive (got ${C})`);
  const lambda = 1 / C;
  const d = k + 1; // θ = [b, w]
  let theta: Float64Array = new Float64Array(d);
  if (input.start) {
    if (input.start.coefficients.length !== k)
      throw new RangeError(`start has ${input.start.coefficients.length} coefficients, expected ${k}`);
    theta[0] = input.start.intercept;
    theta.set(input.start.coefficients, 1);
  }
  let eta: Float64Array = linear(x, n, k, theta);
  let f = objective(eta, y, theta, lambda);
  let converged = false;
  let iterations = 0;
  let gradient = gradientAt(x, n, k, y, eta, theta, lambda);
  for (; iterations < MAX_ITERATIONS;) {
    const step = newtonStep(x, n, k, eta, lambda, gradient);
    const slope = step.reduce((s, v, j) => s + v * gradient[j], 0);
    // Near the optimum the objective's change drops below its rounding (~1e-16·|f|) while the
    // coefficients still move by ~1e-8: there a full Newton step is taken on the gradient's word.
    const rounding = 1e-13 * Math.max(1, Math.abs(f));
    let t = 1;
    let candidate = theta;
    let candidateEta = eta;
    let candidateF = f;
    let accepted = false;
    for (let halvings = 0; halvings < 60; halvings++) {
      candidate = theta.map((v, j) => v + t * step[j]);
      candidateEta = linear(x, n, k, candidate);
      candidateF = objective(candidateEta, y, candidate, lambda);
      if (candidateF <= f + 1e-4 * t * slope || (t === 1 && -slope <= rounding && candidateF - f <= rounding)) {
        accepted = true;
        break;
      }
      t /= 2;
    }
    iterations++;
    if (!accepted) break; // no descent left in double precision
    const moved = Math.max(...step.map((s) => Math.abs(t * s)));
    theta = candidate;
    eta = candidateEta;
    f = candidateF;
    gradient = gradientAt(x, n, k, y, eta, theta, lambda);
    if (moved <= 1e-12 * (1 + Math.max(...theta.map(Math.abs)))) {
      converged = true;
      break;
    }
  }
  return {
    intercept: theta[0],
    coefficients: theta.slice(1),
    objective: f,
    iterations,
    converged,
    gradientNorm: Math.max(...gradient.map(Math.abs)),
  };
}

/** Fitted probabilities expit(b + x·w) for new rows. */
export function predictL2Logistic(fit: L2LogisticFit, x: Float64Array, rows: number): Float64Array {
  const k = fit.coefficients.length;
  const theta = new Float64Array(k + 1);
  theta[0] = fit.intercept;
  theta.set(fit.coefficients, 1);
  return linear(x, rows, k, theta).map(expit);
}

function linear(x: Float64Array, n: number, k: number, theta: Float64Array): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = theta[0];
    const base = i * k;
    for (let j = 0; j < k; j++) s += x[base + j] * theta[j + 1];
    out[i] = s;
  }
  return out;
}

function objective(eta: Float64Array, y: ArrayLike<number>, theta: Float64Array, lambda: number): number {
  let s = 0;
  for (let i = 0; i < eta.length; i++) {
    const t = eta[i];
    const softplus = t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
    s += softplus - y[i] * t;
  }
  let penalty = 0;
  for (let j = 1; j < theta.length; j++) penalty += theta[j] * theta[j];
  return s + 0.5 * lambda * penalty;
}

function gradientAt(
  x: Float64Array,
  n: number,
  k: number,
  y: ArrayLike<number>,
  eta: Float64Array,
  theta: Float64Array,
  lambda: number,
): Float64Array {
  const g = new Float64Array(k + 1);
  for (let i = 0; i < n; i++) {
    const r = expit(eta[i]) - y[i];
    g[0] += r;
    const base = i * k;
    for (let j = 0; j < k; j++) g[j + 1] += x[base + j] * r;
  }
  for (let j = 1; j <= k; j++) g[j] += lambda * theta[j];
  return g;
}

/** −H⁻¹g with H = [1 x]ᵀ diag(p(1 − p)) [1 x] + λ·diag(0, 1, …, 1), which is positive definite. */
function newtonStep(x: Float64Array, n: number, k: number, eta: Float64Array, lambda: number, g: Float64Array): Float64Array {
  const d = k + 1;
  const h = new Float64Array(d * d);
  // Only each row's nonzero entries are visited (one-hot columns are mostly zeros).
  const index = new Int32Array(d);
  const value = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const p = expit(eta[i]);
    const w = p * (1 - p);
    if (w === 0) continue;
    index[0] = 0;
    value[0] = 1;
    let m = 1;
    for (let j = 0; j < k; j++) {
      const v = x[i * k + j];
      if (v !== 0) {
        index[m] = j + 1;
        value[m++] = v;
      }
    }
    for (let s = 0; s < m; s++) {
      const wa = w * value[s];
      const rowBase = index[s] * d;
      for (let t = s; t < m; t++) h[rowBase + index[t]] += wa * value[t];
    }
  }
  for (let j = 1; j < d; j++) h[j * d + j] += lambda;
  const rows: number[][] = [];
  for (let a = 0; a < d; a++) {
    const r: number[] = [];
    for (let b = 0; b < d; b++) r.push(a <= b ? h[a * d + b] : h[b * d + a]);
    rows.push(r);
  }
  const cholesky = new CholeskyDecomposition(rows);
  if (!cholesky.isPositiveDefinite()) throw new Error('L2 logistic: the Hessian is not positive definite (check the features for NaN)');
  const solution = cholesky.solve(Matrix.columnVector(Array.from(g, (v) => -v)));
  return Float64Array.from(solution.getColumn(0));
}
