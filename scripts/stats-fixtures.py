#!/usr/bin/env python3
"""Reference numbers for revloop's statistics, computed independently with Debian's python3-scipy,
python3-numpy, python3-sklearn and python3-statsmodels. Run by hand (never at test time):

    /usr/bin/python3 scripts/stats-fixtures.py [NAME ...]

NAME is one of mcnemar, holm, quantile, normal, logistic, spearman, capture, mantel_haenszel,
three_domain, response_curves (default: all). It writes test/fixtures/stats/<name>.json; the TypeScript tests compare
against those committed numbers. Everything here is seeded, so rerunning reproduces the same files on
the same library versions (up to the last bits of BLAS-threaded sums).
"""
from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import itertools
import warnings

import numpy as np
import scipy
import sklearn
import statsmodels
import statsmodels.api as sm
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from statsmodels.stats.contingency_tables import StratifiedTable
from statsmodels.stats.multitest import multipletests

OUT = Path(__file__).resolve().parents[1] / "test" / "fixtures" / "stats"
VERSIONS = {
    "python": sys.version.split()[0],
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "statsmodels": statsmodels.__version__,
    "sklearn": sklearn.__version__,
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


# ---- §3.8: Spearman association, exact enumeration and permutation -------------------------------

def exact_spearman_p(x: list[float], y: list[float]) -> tuple[float, int, int]:
    """Two-sided p over all n! pairings: share with |rho| >= observed |rho| (1e-12 guards rounding)."""
    rx = stats.rankdata(x)
    ry = stats.rankdata(y)
    observed = abs(stats.spearmanr(x, y).correlation)
    perms = np.asarray(list(itertools.permutations(ry)), dtype=float)
    rxc = rx - rx.mean()
    pc = perms - perms.mean(axis=1, keepdims=True)
    rho = (pc @ rxc) / np.sqrt((pc ** 2).sum(axis=1) * (rxc ** 2).sum())
    extreme = int(np.sum(np.abs(rho) >= observed - 1e-12))
    return extreme / len(perms), extreme, len(perms)


def monte_carlo_spearman_p(x: list[float], y: list[float], draws: int, seed: int) -> float:
    """A precise Monte-Carlo reference for n too large to enumerate (plain share, numpy permutations)."""
    rng = np.random.default_rng(seed)
    rx = stats.rankdata(x)
    ry = stats.rankdata(y)
    rxc = rx - rx.mean()
    ryc = ry - ry.mean()
    denom = np.sqrt((rxc ** 2).sum() * (ryc ** 2).sum())
    observed = abs(rxc @ ryc / denom)
    extreme = 0
    for _ in range(draws // 100_000):
        perms = rng.permuted(np.tile(ryc, (100_000, 1)), axis=1)
        extreme += int(np.sum(np.abs(perms @ rxc / denom) >= observed - 1e-12))
    return extreme / draws


def spearman() -> None:
    rng = np.random.default_rng(20260806)
    vectors = [
        ([0.1, 0.5, 0.3], [0.2, 0.9, 0.4]),
        ([1, 2, 3, 4], [4, 3, 2, 1]),
        ([0.02, 0.04, 0.04, 0.1, 0.2], [0.3, 0.1, 0.5, 0.6, 0.55]),
        ([3.0, 1.0, 2.0, 5.0, 4.0, 6.0], [0.3, 0.1, 0.2, 0.2, 0.6, 0.4]),
        # Table 9's API panel: early capture / recurrence (as fractions) and final success.
        ([0.423, 0.429, 0.274, 0.114, 0.114, 0.227, 0.066], [0.996, 0.990, 0.962, 0.685, 0.702, 0.881, 0.429]),
        ([0.009, 0.016, 0.002, 0.249, 0.086, 0.041, 0.082], [0.996, 0.990, 0.962, 0.685, 0.702, 0.881, 0.429]),
        (rng.integers(0, 4, size=7).tolist(), rng.normal(size=7).tolist()),
        (rng.normal(size=8).tolist(), rng.normal(size=8).tolist()),
        (rng.integers(0, 5, size=9).astype(float).tolist(), rng.normal(size=9).tolist()),
    ]
    cases = []
    for x, y in vectors:
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        p, extreme, total = exact_spearman_p(x, y)
        case = {"x": x, "y": y, "scipy_rho": float(stats.spearmanr(x, y).correlation),
                "exact_p": p, "exact_extreme": extreme, "pairings": total}
        if len(x) <= 7:
            res = stats.permutation_test((x,), lambda a: stats.spearmanr(a, y).correlation,
                                         permutation_type="pairings", n_resamples=np.inf, alternative="two-sided")
            case["scipy_permutation_test_p"] = float(res.pvalue)
            # Without ties the null distribution is symmetric, so scipy's 2*min(one-sided) equals |rho| counting.
            if len(set(x)) == len(x) and len(set(y)) == len(y) and not math.isclose(res.pvalue, p, rel_tol=1e-12):
                raise SystemExit(f"spearman: scipy exact p {res.pvalue} differs from enumeration {p} without ties")
        cases.append(case)
    # Table 9's local panel (n = 12): the capture/recurrence ratio against final success.
    capture = [16.7, 4.2, 4.3, 2.1, 3.1, 1.4, 1.4, 0.8, 1.3, 1.8, 1.0, 0.3]
    recurrence = [2.4, 43.6, 17.2, 8.1, 67.1, 65.7, 66.8, 15.5, 59.5, 6.8, 49.1, 70.9]
    final = [79.4, 30.0, 29.6, 20.4, 15.6, 15.4, 9.6, 10.4, 7.1, 12.3, 5.8, 1.5]
    large = [(capture, final), (recurrence, final), ([c / (r + 1e-9) for c, r in zip(capture, recurrence)], final),
             (rng.normal(size=12).tolist(), rng.normal(size=12).tolist())]
    for x, y in large:
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        cases.append({"x": x, "y": y, "scipy_rho": float(stats.spearmanr(x, y).correlation),
                      "monte_carlo_p": monte_carlo_spearman_p(x, y, 2_000_000, 20260807), "monte_carlo_draws": 2_000_000})
    write("spearman.json", {
        "description": "scipy.stats.spearmanr rho; two-sided p by enumerating all n! pairings (|rho| >= observed), "
                       "scipy permutation_test (pairings, exact) for n <= 7; numpy Monte-Carlo reference (2e6 draws) for n = 12",
        "cases": cases,
    })


# ---- §3.9: leave-one-family-out capture prediction ------------------------------------------------

RECURRENCE = ["repeat_fraction", "recurrence_count", "any_recurrence", "unique_output_ratio",
              "longest_identical_run", "period2_return"]
FEATURE_SETS = {"B0": COVARIATES[:5], "B1": COVARIATES, "B2": COVARIATES + RECURRENCE}
CONTROLLERS = {"llama-3.1-8b": "Llama", "gemma-2-9b": "Gemma", "glm-4-9b": "GLM", "ministral-8b": "Mistral",
               "qwen3-4b": "Qwen", "qwen3-8b": "Qwen", "granite-3.3-8b": "Granite", "falcon-h1-7b": "Falcon-H1"}


def capture_rows(seed: int, n_cases: int) -> list[dict]:
    """Risk-set rows shaped like revloop's RescueRow, several controllers per case."""
    rng = np.random.default_rng(seed)
    sources = ["dolly", "no_robots", "oasst1", "writingprompts"]
    bands = ["10-50", "51-100", "101-200", "201-500"]
    rows = []
    for case in range(n_cases):
        case_id = f"case-{case:04d}"
        source = sources[case % 4]
        band = bands[rng.integers(0, 4)]
        target = int(rng.integers(10, 500))
        case_effect = rng.normal(scale=0.7)
        for model_index, controller in enumerate(CONTROLLERS):
            if rng.uniform() < 0.35:
                continue
            # Falcon-H1 alone sees the band "501-1000": unknown to the model trained without it.
            row_band = "501-1000" if controller == "falcon-h1-7b" and rng.uniform() < 0.3 else band
            states = [int(v) for v in rng.integers(0, 4, size=5)]
            recurrences = sum(1 for i in range(1, 5) if states[i] in states[:i])
            run = longest = 1
            period2 = 0
            for i in range(1, 5):
                run = run + 1 if states[i] == states[i - 1] else 1
                longest = max(longest, run)
                if i >= 2 and states[i] == states[i - 2] and states[i] != states[i - 1]:
                    period2 = 1
            errors = [int(v) for v in rng.integers(-60, 61, size=5)]
            current = errors[-1]
            covariates = {
                "current_error": current, "current_abs_error": abs(current),
                "log_current_abs_error": math.log1p(abs(current)), "target": target,
                "current_missing_count": int(rng.integers(0, 3)),
                "min_abs_error": min(abs(e) for e in errors),
                "initial_to_current_abs_improvement": abs(errors[0]) - abs(current),
                "contraction_count": sum(abs(r) < abs(l) for l, r in zip(errors, errors[1:])),
                "sign_flip_count": int(rng.integers(0, 4)), "length_noop_count": int(rng.integers(0, 3)),
                "largest_abs_action": max(abs(r - l) for l, r in zip(errors, errors[1:])),
                "escape_by_landmark": int(rng.uniform() < 0.1),
            }
            linear = (0.4 - 0.5 * recurrences - 0.02 * abs(current) - 0.4 * covariates["current_missing_count"]
                      + 0.15 * model_index - 0.3 * (source == "oasst1") + case_effect)
            rows.append({
                "controller": controller, "caseId": case_id, "model": controller, "source_family": source,
                "length_band": row_band, "late_rescue": int(rng.uniform() < expit(linear)),
                "repeat_fraction": recurrences / 4, "any_recurrence": int(recurrences > 0),
                "recurrence_count": recurrences, "unique_output_ratio": len(set(states)) / 5,
                "longest_identical_run": longest, "period2_return": period2, "covariates": covariates,
            })
    return rows


def feature(row: dict, name: str) -> float:
    return float(row["covariates"][name] if name in row["covariates"] else row[name])


def capture_pipeline(numeric: list[str], solver: str, tol: float) -> Pipeline:
    pre = ColumnTransformer([
        ("num", Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]), numeric),
        ("cat", OneHotEncoder(handle_unknown="ignore"), ["source_family", "length_band"]),
    ], sparse_threshold=0)
    model = LogisticRegression(C=1.0, penalty="l2", solver=solver, max_iter=3000 if solver == "lbfgs" else 1000, tol=tol)
    return Pipeline([("pre", pre), ("model", model)])


def lofo(rows: list[dict], numeric: list[str], missing: set[tuple[int, str]], solver: str, tol: float) -> tuple[np.ndarray, list[dict]]:
    import pandas as pd  # ColumnTransformer selects columns by name from a DataFrame
    frame = pd.DataFrame([{**{f: (np.nan if (i, f) in missing else feature(r, f)) for f in numeric},
                           "source_family": r["source_family"], "length_band": r["length_band"]}
                          for i, r in enumerate(rows)])
    y = np.asarray([r["late_rescue"] for r in rows])
    family = np.asarray([CONTROLLERS[r["controller"]] for r in rows])
    out = np.full(len(rows), np.nan)
    folds = []
    for held in sorted(set(family)):
        train = family != held
        pipe = capture_pipeline(numeric, solver, tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipe.fit(frame[train], y[train])
        out[~train] = pipe.predict_proba(frame[~train])[:, 1]
        lr = pipe.named_steps["model"]
        xt = pipe.named_steps["pre"].transform(frame[train])
        grad = xt.T @ (expit(xt @ lr.coef_[0] + lr.intercept_[0]) - y[train]) + lr.coef_[0]
        folds.append({"family": held, "intercept": float(lr.intercept_[0]), "coef": lr.coef_[0].tolist(),
                      "columns": [str(c) for c in pipe.named_steps["pre"].get_feature_names_out()],
                      "n_iter": int(lr.n_iter_[0]), "max_abs_gradient": float(np.max(np.abs(grad)))})
    return out, folds


def capture() -> None:
    rows = capture_rows(20260809, 150)
    rng = np.random.default_rng(20260810)
    # Missing values for the imputation branch: ~4% of the numeric entries of B2.
    missing = sorted({(int(i), str(f)) for i, f in zip(rng.integers(0, len(rows), size=120),
                                                     rng.choice(FEATURE_SETS["B2"], size=120))})
    y = np.asarray([r["late_rescue"] for r in rows])
    family = [CONTROLLERS[r["controller"]] for r in rows]
    families = sorted(set(family))
    # The equal-family Brier bootstrap weights (docs/protocol.md §4: multinomial within source family, seed 20260801).
    case_ids = sorted({r["caseId"] for r in rows})
    case_source = {r["caseId"]: r["source_family"] for r in rows}
    wrng = np.random.default_rng(20260801)
    weights = []
    for _ in range(5):
        w = np.zeros(len(case_ids))
        for source in sorted(set(case_source.values())):
            idx = [j for j, c in enumerate(case_ids) if case_source[c] == source]
            w[idx] = wrng.multinomial(len(idx), [1 / len(idx)] * len(idx))
        weights.append(w)
    case_index = np.asarray([case_ids.index(r["caseId"]) for r in rows])

    def equal_family_brier(p: np.ndarray, w: np.ndarray | None) -> float:
        scores = []
        for f in families:
            m = np.asarray(family) == f
            rw = np.ones(m.sum()) if w is None else w[case_index[m]]
            scores.append(float(np.sum(rw * (p[m] - y[m]) ** 2) / np.sum(rw)))
        return float(np.mean(scores))

    variants = {}
    for label, miss in (("complete", set()), ("with_missing", set(missing))):
        sets = {}
        for name, numeric in FEATURE_SETS.items():
            tight, tight_folds = lofo(rows, numeric, miss, "newton-cholesky", 1e-12)
            default, default_folds = lofo(rows, numeric, miss, "lbfgs", 1e-4)
            if np.max(np.abs(tight - default)) > 1e-3:
                raise SystemExit(f"capture {label}/{name}: lbfgs (default tol) is far from the tight optimum")
            for fold in tight_folds:
                if fold["max_abs_gradient"] > 1e-8:
                    raise SystemExit(f"capture {label}/{name}: newton-cholesky gradient {fold['max_abs_gradient']} not at the optimum")
            sets[name] = {
                "numeric": numeric,
                "tight_p": tight.tolist(),
                "lbfgs_default_p": default.tolist(),
                "tight_folds": tight_folds,
                "lbfgs_default_folds": [{k: f[k] for k in ("family", "intercept", "coef", "n_iter", "max_abs_gradient")} for f in default_folds],
                "brier": float(brier_score_loss(y, tight)),
                "log_loss": float(log_loss(y, tight)),
                "auroc": float(roc_auc_score(y, tight)),
                "family_brier": {f: float(brier_score_loss(y[np.asarray(family) == f], tight[np.asarray(family) == f])) for f in families},
                "equal_family_brier": equal_family_brier(tight, None),
                "weighted_equal_family_brier": [equal_family_brier(tight, w) for w in weights],
                "lbfgs_default_metrics": {"brier": float(brier_score_loss(y, default)), "log_loss": float(log_loss(y, default)),
                                          "auroc": float(roc_auc_score(y, default))},
            }
        variants[label] = sets
    write("capture.json", {
        "description": "leave-one-family-out sklearn Pipeline(ColumnTransformer(median SimpleImputer + StandardScaler | "
                       "OneHotEncoder(handle_unknown='ignore')), LogisticRegression(C=1, l2)); tight = solver newton-cholesky "
                       "tol 1e-12 (the optimum, gradient checked), lbfgs_default = solver lbfgs tol 1e-4 max_iter 3000 (the "
                       "reference configuration); metrics from sklearn.metrics on the tight predictions; equal-family Brier "
                       "under numpy default_rng(20260801) multinomial case weights within source family",
        "families": CONTROLLERS,
        "rows": rows,
        "missing": [[i, f] for i, f in missing],
        "case_ids": case_ids,
        "weights": [w.tolist() for w in weights],
        "variants": variants,
    }, compact=True)


# ---- §3.9: three-domain landmark ------------------------------------------------------------------

ENERGY = ["current_energy", "log_current_energy", "min_energy", "initial_to_current_energy_improvement",
          "energy_contraction_count", "energy_noop_count", "largest_abs_energy_change"]


def mantel_haenszel() -> None:
    rng = np.random.default_rng(20260811)
    sets = [
        [[[3, 5], [2, 9]], [[4, 1], [6, 6]], [[10, 12], [3, 20]]],
        [[[0, 4], [3, 7]], [[5, 0], [2, 2]], [[1, 1], [1, 1]], [[7, 2], [0, 9]]],
        [[[1, 0], [0, 0]], [[2, 3], [4, 1]], [[6, 1], [2, 8]]],  # the first stratum has n = 1
        [rng.integers(0, 30, size=(2, 2)).tolist() for _ in range(40)],
        [rng.integers(0, 4, size=(2, 2)).tolist() for _ in range(25)],
    ]
    cases = []
    for tables in sets:
        used = [t for t in tables if sum(map(sum, t)) >= 2]  # strata with n < 2 carry no information
        st = StratifiedTable([np.asarray(t, dtype=float) for t in used])
        test = st.test_null_odds(correction=False)
        cases.append({
            "tables": [{"a": t[0][0], "b": t[0][1], "c": t[1][0], "d": t[1][1]} for t in tables],
            "strata_used": len(used),
            "oddsratio_pooled": float(st.oddsratio_pooled),
            "logodds_pooled_se": float(st.logodds_pooled_se),
            "ci95_1_96": [math.exp(math.log(st.oddsratio_pooled) - 1.96 * st.logodds_pooled_se),
                          math.exp(math.log(st.oddsratio_pooled) + 1.96 * st.logodds_pooled_se)],
            "statsmodels_confint": [float(v) for v in st.oddsratio_pooled_confint()],
            "chi2": float(test.statistic),
            "p_chi2_sf": float(stats.chi2.sf(test.statistic, 1)),
            "statsmodels_p": float(test.pvalue),
        })
    write("mantel_haenszel.json", {
        "description": "statsmodels StratifiedTable: oddsratio_pooled, logodds_pooled_se (Robins-Breslow-Greenland), "
                       "test_null_odds(correction=False); p = scipy chi2.sf(stat, 1); strata with n < 2 left out",
        "cases": cases,
    })


def three_domain_rows(seed: int, nested_sources: bool) -> list[dict]:
    rng = np.random.default_rng(seed)
    tasks = {"exact-length": "exact-length", "c05": "lexical", "c07": "lexical", "c09": "compositional"}
    if nested_sources:  # as in the paper: exact-length sources never occur in COLLIE tasks
        sources = {"exact-length": ["dolly", "oasst1"], "c05": ["ccnews", "wiki"], "c07": ["guten", "wiki"], "c09": ["ccnews", "guten"]}
    else:
        sources = {task: ["ccnews", "dolly", "wiki"] for task in tasks}
    rows = []
    for task, domain in tasks.items():
        for case in range(70):
            case_id = f"{task}-{case:03d}"
            source = sources[task][case % len(sources[task])]
            case_effect = rng.normal(scale=0.6)
            for m, controller in enumerate(["model-a", "model-b", "model-c"]):
                if rng.uniform() < 0.3:
                    continue
                energy = np.abs(rng.normal(1.5, 1.0, size=5)).tolist()
                if rng.uniform() < 0.2:
                    energy[3] = energy[2]
                exposed = int(rng.uniform() < 0.45)
                deltas = [b - a for a, b in zip(energy, energy[1:])]
                cov = {"current_energy": energy[-1], "log_current_energy": math.log1p(energy[-1]), "min_energy": min(energy),
                       "initial_to_current_energy_improvement": energy[0] - energy[-1],
                       "energy_contraction_count": sum(b < a for a, b in zip(energy, energy[1:])),
                       "energy_noop_count": sum(abs(d) < 1e-12 for d in deltas),
                       "largest_abs_energy_change": max(abs(d) for d in deltas)}
                linear = 0.2 - 0.9 * exposed - 0.5 * energy[-1] + 0.3 * m + case_effect
                y = int(rng.uniform() < expit(linear))
                if controller == "model-c" and task == "c09":
                    y = 1  # a stratum with one outcome: infinite fixed effect, left out of the adjusted fit
                rows.append({"controller": controller, "caseId": case_id, "task": task, "domain": domain, "source": source,
                             "recurrence_by_landmark": exposed, "later_rescue": y, "covariates": cov})
    return rows


def three_domain() -> None:
    datasets = []
    for name, seed, nested in (("shared-sources", 20260812, False), ("nested-sources", 20260813, True)):
        rows = three_domain_rows(seed, nested)
        strata = sorted({(r["controller"], r["task"]) for r in rows})
        tables = []
        for s in strata:
            t = np.zeros((2, 2))
            for r in rows:
                if (r["controller"], r["task"]) == s:
                    t[1 - r["recurrence_by_landmark"], 1 - r["later_rescue"]] += 1
            tables.append(t)
        st = StratifiedTable([t for t in tables if t.sum() >= 2])
        kept = [r for r in rows if len({q["later_rescue"] for q in rows if (q["controller"], q["task"]) == (r["controller"], r["task"])}) == 2]
        values = np.asarray([[r["covariates"][c] for c in ENERGY] for r in kept])
        mean = values.mean(axis=0)
        std = values.std(axis=0)
        std[std < 1e-12] = 1.0
        blocks = [np.ones((len(kept), 1)), np.asarray([[r["recurrence_by_landmark"]] for r in kept], dtype=float), (values - mean) / std]
        names = ["intercept", "recurrence_by_landmark", *[f"z({c})" for c in ENERGY]]
        for factor, key in (("controller_task", lambda r: f"{r['controller']}|{r['task']}"), ("source", lambda r: r["source"])):
            levels = sorted({key(r) for r in kept})
            for level in levels[1:]:
                blocks.append(np.asarray([[float(key(r) == level)] for r in kept]))
                names.append(f"{factor}={level}")
        x = np.column_stack(blocks)
        y = np.asarray([r["later_rescue"] for r in kept], dtype=float)
        clusters = [f"{r['domain']}|{r['caseId']}" for r in kept]
        codes = np.unique(clusters, return_inverse=True)[1]
        fit = sm.Logit(y, x).fit(method="newton", tol=1e-14, maxiter=200, disp=0,
                                 cov_type="cluster", cov_kwds={"groups": codes, "use_correction": False})
        beta = np.asarray(fit.params)
        manual_se = float(np.sqrt(manual_sandwich(x, y, beta, clusters)[1, 1]))
        rank = int(np.linalg.matrix_rank(x))
        if rank == x.shape[1] and not math.isclose(manual_se, float(fit.bse[1]), rel_tol=1e-9):
            raise SystemExit(f"three_domain {name}: statsmodels cluster SE differs from the §3.9 sandwich")
        # With sources nested in tasks the design is rank-deficient: beta_1 is still identified, and the
        # pinv sandwich of §3.9 is the reference (statsmodels inverts the singular Hessian as if it were not).
        se = manual_se
        b1 = float(beta[1])
        datasets.append({
            "name": name,
            "rows": rows,
            "design_rank": rank,
            "mantel_haenszel": {"odds_ratio": float(st.oddsratio_pooled), "log_se": float(st.logodds_pooled_se),
                                "chi2": float(st.test_null_odds(correction=False).statistic),
                                "p": float(stats.chi2.sf(st.test_null_odds(correction=False).statistic, 1)),
                                "strata": int(sum(t.sum() >= 2 for t in tables))},
            "adjusted": {"columns": names, "rows": len(kept), "dropped_rows": len(rows) - len(kept),
                         "coefficient": b1, "se": se, "statsmodels_bse": float(fit.bse[1]), "odds_ratio": math.exp(b1),
                         "ci95": [math.exp(b1 - 1.96 * se), math.exp(b1 + 1.96 * se)],
                         "p": float(2 * stats.norm.sf(abs(b1 / se)))},
        })
    write("three_domain.json", {
        "description": "three-domain landmark: MH over controller x task strata (statsmodels StratifiedTable); adjusted Logit "
                       "(statsmodels Newton) after dropping single-outcome strata, SE = pinv sandwich clustered by domain|case_id "
                       "(equal to statsmodels cluster use_correction=False on the full-rank design, checked)",
        "datasets": datasets,
    }, compact=True)


def response_curves() -> None:
    """docs/protocol.md §3.11: Theil-Sen slopes (scipy.stats.theilslopes), numpy.interp, the median of a
    weighted multiset (statistics.median of the expanded values), and the system identification's curve
    pipeline on synthetic rows: the median action per command, the monotone-pair fraction, the local
    slope (per case over |c| <= 10, then the median across cases) and the 8-step capture simulation."""
    import statistics
    rng = np.random.default_rng(20260731)
    theil = []
    for n in [2, 3, 4, 6, 9, 12]:
        for _ in range(4):
            x = sorted(rng.choice([-10, -5, -2, -1, 1, 2, 5, 10], size=n, replace=n > 8).tolist())
            y = [int(v) for v in rng.integers(-15, 16, size=n)]
            if len(set(x)) < 2:
                continue
            theil.append({"x": x, "y": y, "slope": float(stats.theilslopes(y, x)[0])})
    interp = []
    for _ in range(8):
        xp = sorted(set(rng.integers(-50, 51, size=int(rng.integers(2, 9))).tolist()) | {0})
        fp = [float(v) for v in rng.normal(0, 20, size=len(xp))]
        queries = [float(q) for q in rng.uniform(-70, 70, size=10)] + [float(xp[0]), float(xp[-1]), 0.0]
        interp.append({"xp": xp, "fp": fp, "x": queries, "y": [float(v) for v in np.interp(queries, xp, fp)]})
    weighted = []
    for _ in range(12):
        k = int(rng.integers(1, 8))
        values = [float(v) for v in rng.integers(-20, 21, size=k)]
        weights = [int(v) for v in rng.integers(0, 4, size=k)]
        expanded = [v for v, w in zip(values, weights) for _ in range(w)]
        weighted.append({"values": values, "weights": weights, "median": statistics.median(expanded) if expanded else None})
    commands = [-50, -20, -10, -5, -2, -1, 1, 2, 5, 10, 20, 50]
    rows = []
    for case in range(14):
        gain = float(rng.uniform(0.3, 1.3))
        for c in commands:
            if rng.random() < 0.1:
                continue
            rows.append({"case_id": f"case-{case}", "source": ["ccnews", "guten", "wiki"][case % 3], "command": c,
                         "realized": int(round(gain * c + rng.normal(0, 2)))})
    med = [statistics.median([r["realized"] for r in rows if r["command"] == c]) for c in commands]
    pairs = [(i, j) for i in range(len(med)) for j in range(i + 1, len(med))]
    monotone = sum(med[j] > med[i] for i, j in pairs) / len(pairs)
    slopes = {}
    for name, keep in {"all": lambda c: c != 0 and abs(c) <= 10, "add": lambda c: 0 < c <= 10, "remove": lambda c: -10 <= c < 0}.items():
        per_case = []
        for case in sorted({r["case_id"] for r in rows}, key=lambda s: [r["case_id"] for r in rows].index(s)):
            pts = [(r["command"], r["realized"]) for r in rows if r["case_id"] == case and keep(r["command"])]
            if len({p[0] for p in pts}) >= 2:
                per_case.append(float(stats.theilslopes([p[1] for p in pts], [p[0] for p in pts])[0]))
        slopes[name] = {"cases": len(per_case), "slope": statistics.median(per_case) if per_case else None}
    knots = sorted(set(commands) | {0})
    fvals = [0.0 if k == 0 else float(med[commands.index(k)]) for k in knots]
    captures = []
    for e0 in [-60, -35, -12, -3, -1, 1, 4, 9, 25, 48, 70]:
        e = float(e0)
        hit = False
        for _ in range(8):
            if abs(e) < 0.5:
                hit = True
                break
            e += float(np.interp(max(-50.0, min(50.0, -e)), knots, fvals))
        captures.append({"e0": e0, "captured": hit or abs(e) < 0.5})
    write("response_curves.json", {
        "description": "Theil-Sen (scipy.stats.theilslopes), numpy.interp, weighted median (statistics.median of the expanded "
                       "multiset), and the sysid curve pipeline of docs/protocol.md §3.11 on synthetic rows",
        "theil_sen": theil, "interp": interp, "weighted_median": weighted,
        "sysid": {"rows": rows, "commands": commands, "median_curve": med, "monotone_pair_fraction": monotone,
                  "slopes": slopes, "captures": captures},
    }, compact=True)


FIXTURES = {"mcnemar": mcnemar, "holm": holm, "quantile": quantile, "normal": normal, "logistic": logistic,
            "spearman": spearman, "capture": capture, "mantel_haenszel": mantel_haenszel, "three_domain": three_domain,
            "response_curves": response_curves}

if __name__ == "__main__":
    names = sys.argv[1:] or list(FIXTURES)
    unknown = [n for n in names if n not in FIXTURES]
    if unknown:
        raise SystemExit(f"unknown fixture(s) {unknown}; choose from {list(FIXTURES)}")
    for name in names:
        FIXTURES[name]()
    print(f"wrote {names} under {OUT}")
