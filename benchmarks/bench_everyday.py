"""Whole audits of everyday tables under a total time limit, as the CLI runs them.

For each dataset and each ``--limits`` value, ``run_audit`` (what
``sklearn-multiplicity audit --total-time-limit`` runs: fit, the values at
eps, groups, path, sampling) is timed, and the certified bands it reports are
printed: minimum error, ambiguity and discrepancy at eps, and the share of
people whose ambiguity is decided.

Datasets: COMPAS (the paper's binarisation), German credit binarised and raw
(``../shared/data/german-credit.csv``, target ``credit``, groups ``sex``),
breast cancer with 6 and 30 standardised features (logistic baseline), and
a synthetic table of 30,000 people (8 numeric and 5 categorical columns,
binarised as ``--binarize`` does: 29,940 distinct patterns) for time and
memory at scale.

Usage: python benchmarks/bench_everyday.py [--limits 60 300] [--only NAME ...]
"""

import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _common import DEFAULT_DATA, machine, peak_memory_mb, table
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._run import run_audit
from sklearn_multiplicity.datasets import load_compas

GERMAN = DEFAULT_DATA.parent / "german-credit.csv"


def datasets():
    compas = load_compas(DEFAULT_DATA)
    X = pd.DataFrame(compas.data, columns=compas.feature_names)
    yield "compas", X, compas.target, compas.groups["race"], None
    for binarize in (True, False):
        X, y, groups, _ = load_audit_data(GERMAN, "credit", "sex", binarize=binarize)
        name = "german-binarised" if binarize else "german-raw"
        yield name, X, y, groups, None
    cancer = load_breast_cancer(as_frame=True)
    for d in (6, 30):
        X = cancer.data.iloc[:, :d]
        logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        yield f"breast-cancer-{d}", X, cancer.target.to_numpy(), None, logistic
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.csv"
        synthetic_table().to_csv(path, index=False)
        X, y, groups, _ = load_audit_data(path, "target", "group", binarize=True)
    yield "synthetic-30000", X, y, groups, None


def synthetic_table(n=30_000, seed=0):
    """People with correlated numeric and categorical columns and a noisy
    logistic target (``target``), with a ``group`` column."""
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 8)) @ rng.normal(size=(8, 8)) * 0.5
    frame = pd.DataFrame(numeric, columns=[f"x{j}" for j in range(8)])
    for j in range(5):
        frame[f"cat{j}"] = rng.choice(list("abcde")[: 3 + j % 3], size=n)
    frame["group"] = rng.choice(["f", "m"], size=n)
    score = (
        numeric @ rng.normal(size=8)
        + (frame["cat0"] == "a")
        - 0.5 * (frame["cat1"] == "b")
        + rng.logistic(size=n)
    )
    frame["target"] = np.where(score > 0, "yes", "no")
    return frame


def band(lower, upper):
    return f"[{lower:.2%}, {upper:.2%}]"


def main():
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--limits", type=float, nargs="+", default=[60.0])
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--n-jobs", type=int, default=1)
    args = p.parse_args()
    print(machine())
    rows = []
    for name, X, y, groups, estimator in datasets():
        if args.only and name not in args.only:
            continue
        for limit in args.limits:
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                report = run_audit(
                    X,
                    y,
                    estimator=estimator,
                    epsilon=args.epsilon,
                    groups=groups,
                    total_time_limit=limit,
                    n_jobs=args.n_jobs,
                    n_models=20,
                )
            wall = time.perf_counter() - start
            auditor = report.auditor
            lo, hi = auditor.min_error_bounds_
            n = float(len(y))
            amb, disc = report.bounds["ambiguity"], report.bounds["discrepancy"]
            rows.append(
                {
                    "dataset": name,
                    "limit_s": limit,
                    "wall_s": wall,
                    "patterns": auditor.n_patterns_,
                    "min_error": band(lo / n, hi / n),
                    "ambiguity": band(*amb),
                    "discrepancy": band(*disc),
                    "decided": 1 - report.evidence["undecided"].mean(),
                    "peak_mb": peak_memory_mb(),
                }
            )
            print(rows[-1], flush=True)
    columns = ["dataset", "limit_s", "wall_s", "patterns", "min_error"]
    table(rows, [*columns, "ambiguity", "discrepancy", "decided", "peak_mb"])


if __name__ == "__main__":
    main()
