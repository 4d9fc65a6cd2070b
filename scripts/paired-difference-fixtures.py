#!/usr/bin/env python3
"""Reference values for revloop's paired-difference interval (src/core/stats/paired-difference.ts),
computed independently of it: Wilson intervals from statsmodels' proportion_confint(method="wilson"),
the normal quantile from scipy.stats.norm.ppf, and Newcombe's (1998) method 10 combination written
out below from the paper. Run by hand (never at test time):

    python3 scripts/paired-difference-fixtures.py

It writes test/fixtures/stats/paired_difference.json. Needs scipy and statsmodels (any recent
version; the versions used are recorded in the file). The test also checks Newcombe's own published
examples, which need no Python.
"""
from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

OUT = Path(__file__).resolve().parents[1] / "test" / "fixtures" / "stats" / "paired_difference.json"


def newcombe10(both: int, first_only: int, second_only: int, neither: int, confidence: float) -> dict:
    """Difference p2 - p1 (p1 = (both + first_only)/n, p2 = (both + second_only)/n) and its interval."""
    a, b, c, d = both, first_only, second_only, neither
    n = a + b + c + d
    alpha = 1 - confidence
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=alpha, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=alpha, method="wilson")
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    num = a * d - b * c
    if num > 0:
        num = max(num - n / 2, 0)
    phi = 0.0 if margins == 0 else num / math.sqrt(margins)
    theta = p2 - p1
    down = math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    up = math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return {"estimate": theta, "lower": max(-1.0, theta - down), "upper": min(1.0, theta + up)}


def main() -> None:
    rng = np.random.default_rng(20260835)
    tables = [(36, 12, 2, 0), (18, 12, 2, 18), (53, 0, 0, 1), (0, 30, 0, 0), (285, 0, 15, 0),
              (240, 4, 18, 38), (0, 0, 0, 1), (1, 0, 0, 0), (0, 0, 0, 300), (300, 0, 0, 0),
              (10, 0, 0, 10), (5, 5, 0, 0), (0, 0, 7, 3), (100, 1, 0, 199), (3, 2, 2, 3)]
    tables += list(itertools.product([0, 1, 4], [0, 2], [0, 3], [0, 5]))[1:]
    for _ in range(40):
        n = int(rng.integers(1, 500))
        p = rng.dirichlet([1, 0.3, 0.3, 1])
        tables.append(tuple(int(x) for x in rng.multinomial(n, p)))
    cases = []
    for t in tables:
        if sum(t) == 0:
            continue
        for conf in (0.95, 0.9, 0.99):
            cases.append({"table": list(t), "confidence": conf, **newcombe10(*t, conf)})
    payload = {
        "generated_by": "scripts/paired-difference-fixtures.py",
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                     "statsmodels": statsmodels.__version__},
        "description": "Newcombe (1998) method 10 for p2 - p1 of a paired table [both, first_only, second_only, neither]; "
                       "Wilson intervals from statsmodels proportion_confint(method='wilson'); "
                       f"z(0.975) from scipy = {float(stats.norm.ppf(0.975))!r}",
        "cases": cases,
    }
    OUT.write_text(json.dumps(payload, indent=None, allow_nan=False) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
