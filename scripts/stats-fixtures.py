#!/usr/bin/env python3
"""Reference numbers for revloop's statistics, computed independently with Debian's python3-scipy,
python3-numpy and python3-statsmodels. Run by hand (never at test time):

    /usr/bin/python3 scripts/stats-fixtures.py

It writes test/fixtures/stats/*.json; the TypeScript tests compare against those committed numbers.
Everything here is seeded, so rerunning reproduces the same files on the same library versions.
"""
from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit
from statsmodels.stats.multitest import multipletests

OUT = Path(__file__).resolve().parents[1] / "test" / "fixtures" / "stats"
VERSIONS = {
    "python": sys.version.split()[0],
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "statsmodels": statsmodels.__version__,
}


def write(name: str, payload: dict, compact: bool = False) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": "scripts/stats-fixtures.py", "versions": VERSIONS, **payload}
    text = json.dumps(payload, indent=None if compact else 1, allow_nan=False)
    (OUT / name).write_text(text + "\n", encoding="utf-8")


def mcnemar() -> None:
    pairs = [(0, 0), (0, 1), (1, 0), (1, 1), (5, 5), (3, 10), (10, 3), (0, 25), (7, 19), (19, 7),
             (40, 60), (100, 140), (12, 300), (0, 480), (1, 1000), (63, 176), (200, 201), (0, 1100),
             (2, 1500)]
    cases = []
    for b, c in pairs:
        n = b + c
        if n == 0:
            scipy_p = 1.0
            exact = 1.0
        else:
            scipy_p = float(stats.binomtest(b, n, 0.5).pvalue)
            k = min(b, c)
            tail = Fraction(sum(math.comb(n, j) for j in range(k + 1)), 2 ** n)
            exact = float(min(Fraction(1), 2 * tail))
        cases.append({"b": b, "c": c, "scipy_binomtest": scipy_p, "exact_fraction": exact})
    write("mcnemar.json", {"description": "exact McNemar = two-sided binomtest(b, b+c, 0.5); exact value via fractions", "cases": cases})


def holm() -> None:
    rng = np.random.default_rng(20260801)
    vectors = [
        [0.01, 0.04, 0.03, 0.005],
        [0.5, 0.5, 0.5],
        [0.001, 0.001, 0.02, 0.9, 0.04, 0.04],
        [0.3, 0.2, 0.6, 0.01, 0.0],
        [1.0],
        rng.uniform(0, 0.2, size=21).tolist(),
        (rng.uniform(0, 1, size=66) ** 3).tolist(),
    ]
    cases = [{"p": v, "holm": multipletests(v, method="holm")[1].tolist()} for v in vectors]
    write("holm.json", {"description": "statsmodels multipletests(method='holm')", "cases": cases})


def quantile() -> None:
    rng = np.random.default_rng(20260802)
    samples = [
        [3.0],
        [1.0, 2.0],
        [5.0, 1.0, 4.0, 2.0, 3.0],
        rng.integers(0, 7, size=40).astype(float).tolist(),
        (rng.integers(0, 480, size=1000) / 480).tolist(),
        rng.normal(size=5000).tolist(),
        (rng.binomial(480, 0.3, size=5000) / 480 - rng.binomial(480, 0.25, size=5000) / 480).tolist(),
    ]
    qs = [0.0, 0.025, 0.1, 0.25, 0.5, 0.75, 0.975, 1.0, 1 / 3]
    cases = []
    for x in samples:
        arr = np.asarray(x, dtype=float)
        cases.append({
            "values": x,
            "q": qs,
            "numpy_quantile": [float(np.quantile(arr, q)) for q in qs],
            "numpy_percentile_2_5_97_5": [float(v) for v in np.percentile(arr, [2.5, 97.5])],
        })
    write("quantile.json", {"description": "numpy.quantile / numpy.percentile, method='linear' (default)", "cases": cases}, compact=True)


def normal() -> None:
    zs = [0.0, 1e-8, 0.1, 0.5, 0.7, 1.0, 1.3, 1.4142135623730951, 1.96, 2.5, 3.0, 3.8, 4.5, 6.0, 7.5,
          9.0, 12.0, 20.0, 30.0, 37.0, -0.5, -1.96, -4.0]
    write("normal.json", {"description": "scipy.stats.norm.sf(z)",
                          "cases": [{"z": z, "sf": float(stats.norm.sf(z))} for z in zs]})


def rescue_dataset(seed: int, n_cases: int, models: list[str]) -> list[dict]:
    """Landmark-like rows: several controllers per case, clustered by case."""
    rng = np.random.default_rng(seed)
    sources = ["dolly", "no_robots", "oasst1", "writingprompts"]
    bands = ["10-50", "51-100", "101-200", "201-500"]
    rows = []
    for case in range(n_cases):
        case_id = f"case-{case:04d}"
        source = sources[case % 4]
        band = bands[rng.integers(0, 4)]
        target = int(rng.integers(10, 500))
        case_effect = rng.normal(scale=0.8)
        for model_index, model in enumerate(models):
            if rng.uniform() < 0.25:
                continue
            recurrences = int(rng.integers(0, 5))
            repeat_fraction = recurrences / 4
            current_error = int(rng.integers(-40, 41))
            missing = int(rng.integers(0, 3))
            errors = [int(v) for v in rng.integers(-60, 61, size=4)] + [current_error]
            covariates = {
                "current_error": current_error,
                "current_abs_error": abs(current_error),
                "log_current_abs_error": math.log1p(abs(current_error)),
                "target": target,
                "current_missing_count": missing,
                "min_abs_error": min(abs(e) for e in errors),
                "initial_to_current_abs_improvement": abs(errors[0]) - abs(current_error),
                "contraction_count": sum(abs(r) < abs(l) for l, r in zip(errors, errors[1:])),
                "sign_flip_count": int(rng.integers(0, 4)),
                "length_noop_count": int(rng.integers(0, 3)),
                "largest_abs_action": max(abs(r - l) for l, r in zip(errors, errors[1:])),
                "escape_by_landmark": int(rng.uniform() < 0.1),
            }
            linear = (-0.3 - 1.6 * repeat_fraction - 0.03 * abs(current_error) - 0.4 * missing
                      + 0.25 * model_index + 0.2 * (source == "oasst1") + case_effect)
            y = int(rng.uniform() < expit(linear))
            rows.append({"caseId": case_id, "model": model, "source_family": source, "length_band": band,
                         "late_rescue": y, "repeat_fraction": repeat_fraction, "covariates": covariates})
    return rows


COVARIATES = ["current_error", "current_abs_error", "log_current_abs_error", "target", "current_missing_count",
              "min_abs_error", "initial_to_current_abs_improvement", "contraction_count", "sign_flip_count",
              "length_noop_count", "largest_abs_action", "escape_by_landmark"]


def design(rows: list[dict]) -> tuple[np.ndarray, list[str]]:
    """docs/protocol.md §3.9: intercept, repeat_fraction raw, z-scored covariates (population SD), dummies."""
    values = np.asarray([[float(r["covariates"][c]) for c in COVARIATES] for r in rows])
    mean = values.mean(axis=0)
    std = values.std(axis=0)
    std[std < 1e-12] = 1.0
    blocks = [np.ones((len(rows), 1)), np.asarray([[float(r["repeat_fraction"])] for r in rows]), (values - mean) / std]
    names = ["intercept", "repeat_fraction", *[f"z({c})" for c in COVARIATES]]
    for factor in ("model", "source_family", "length_band"):
        levels = sorted({str(r[factor]) for r in rows})
        for level in levels[1:]:
            blocks.append(np.asarray([[float(str(r[factor]) == level)] for r in rows]))
            names.append(f"{factor}={level}")
    return np.column_stack(blocks), names


def manual_sandwich(x: np.ndarray, y: np.ndarray, beta: np.ndarray, clusters: list[str]) -> np.ndarray:
    p = expit(x @ beta)
    bread = np.linalg.pinv(x.T @ ((p * (1 - p))[:, None] * x))
    scores: dict[str, np.ndarray] = {}
    for row, c in zip(x * (y - p)[:, None], clusters):
        scores[c] = scores.get(c, np.zeros(x.shape[1])) + row
    meat = sum(np.outer(s, s) for s in scores.values())
    return bread @ meat @ bread


def logistic() -> None:
    datasets = []
    for name, seed, n_cases, models in [
        ("three-controllers", 20260803, 220, ["model-a", "model-b", "model-c"]),
        ("one-controller", 20260804, 400, ["solo"]),
    ]:
        rows = rescue_dataset(seed, n_cases, models)
        x, names = design(rows)
        y = np.asarray([r["late_rescue"] for r in rows], dtype=float)
        clusters = [r["caseId"] for r in rows]
        codes = np.unique(clusters, return_inverse=True)[1]
        fit = sm.Logit(y, x).fit(method="newton", tol=1e-14, maxiter=200, disp=0,
                                 cov_type="cluster", cov_kwds={"groups": codes, "use_correction": False})
        beta = np.asarray(fit.params)
        manual = manual_sandwich(x, y, beta, clusters)
        sm_se = np.asarray(fit.bse)
        manual_se = np.sqrt(np.diag(manual))
        if not np.allclose(sm_se, manual_se, rtol=1e-9, atol=0):
            raise SystemExit(f"{name}: statsmodels cluster SE (use_correction=False) differs from the §3.9 formula")
        # The reference's optimiser (L-BFGS-B from zeros, ftol 1e-12), for comparison only.
        def objective(b):
            linear = x @ b
            return float(np.sum(np.logaddexp(0.0, linear) - y * linear)), x.T @ (expit(linear) - y)
        lbfgs = minimize(lambda b: objective(b)[0], np.zeros(x.shape[1]), jac=lambda b: objective(b)[1],
                         method="L-BFGS-B", options={"maxiter": 5000, "ftol": 1e-12})
        coefficient = float(beta[1])
        se = float(sm_se[1])
        datasets.append({
            "name": name,
            "rows": rows,
            "columns": names,
            "statsmodels": {
                "params": beta.tolist(),
                "bse_cluster_no_correction": sm_se.tolist(),
                "cov_cluster_no_correction": np.asarray(fit.cov_params()).tolist(),
                "llf": float(fit.llf),
                "pvalue_repeat_fraction": float(fit.pvalues[1]),
            },
            "repeat_fraction": {
                "coefficient": coefficient,
                "se": se,
                "odds_ratio": math.exp(coefficient),
                "ci95": [math.exp(coefficient - 1.96 * se), math.exp(coefficient + 1.96 * se)],
                "p": float(2 * stats.norm.sf(abs(coefficient / se))),
            },
            "clusters": int(len(set(clusters))),
            "reference_lbfgsb_params": lbfgs.x.tolist(),
        })
    write("logistic.json", {
        "description": "Logit MLE (statsmodels Newton, tol 1e-14) with cluster covariance use_correction=False; "
                       "checked against bread = pinv(X'WX), meat = sum of outer(cluster score sums)",
        "datasets": datasets,
    }, compact=True)


if __name__ == "__main__":
    mcnemar()
    holm()
    quantile()
    normal()
    logistic()
    print(f"wrote {sorted(p.name for p in OUT.glob('*.json'))}")
