"""Certified viable prediction ranges (``ProbabilisticAuditor``): time, memory,
certification and widths.

1. Breast cancer (569 x 30, standardised), eps = 0.01, every range certified
   within ``tol = 1e-4`` (``refine="all"``).
2. Synthetic tables of 100 features (60 one-hot columns of 12 categorical
   variables, 40 standard normal columns; labels drawn from a logistic model):
   3,000 / 10,000 / 30,000 / 100,000 / 300,000 rows, eps = 0.01, with the
   closed-form bounds alone (``refine="none"``), with the walk and the exact
   solver at the threshold (``refine="threshold"``, up to
   ``--threshold-up-to`` rows) and everywhere (``refine="all"``, up to
   ``--exact-up-to`` rows).
3. Side by side with rashomon-py 0.3.1 (when installed) on breast cancer with
   the same set: log-loss within 0.01 of the optimum of the same penalised
   objective (its ``tolerance=("absolute", 0.01)``; the baseline is fitted to
   machine precision so that "within eps of the baseline" is the same set):
   do our certified bounds contain every range it samples, and how long does
   each take?

Peak memory is the process's ``ru_maxrss`` after each step (it only grows).

Usage: python benchmarks/bench_probabilistic.py
       [--rows 3000 10000 30000 100000 300000] [--exact-up-to 30000]
       [--threshold-up-to 100000] [--n-jobs 2]
       [--skip-rashomon]
"""

import argparse
import time
import warnings

import numpy as np
from _common import machine, peak_memory_mb, table
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._probabilistic._solver import prob_gap

COLUMNS = [
    "data",
    "rows",
    "refine",
    "wall s",
    "certified",
    "max gap",
    "median width",
    "ambiguity",
    "peak MB",
]


def synthetic(n, n_cat=12, levels=5, n_num=40, seed=0):
    rng = np.random.RandomState(seed)
    cats = rng.randint(0, levels, size=(n, n_cat))
    onehot = np.zeros((n, n_cat * levels))
    onehot[np.arange(n)[:, None], np.arange(n_cat) * levels + cats] = 1.0
    X = np.hstack([onehot, rng.normal(size=(n, n_num))])
    beta = rng.normal(scale=0.3, size=X.shape[1])
    z = X @ beta + 0.2 * rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-z))).astype(int)
    return X, y


def run(name, X, y, refine, n_jobs, estimator=None):
    start = time.perf_counter()
    auditor = ProbabilisticAuditor(
        estimator or LogisticRegression(max_iter=1000),
        log_loss_epsilon=0.01,
        refine=refine,
        n_jobs=n_jobs,
    ).fit(X, y)
    ranges = auditor.viable_prediction_range()
    amb = auditor.ambiguity_bounds()
    seconds = time.perf_counter() - start
    gap = np.maximum(
        prob_gap(*_logit(ranges["lower_bound"], ranges["lower"])),
        prob_gap(*_logit(ranges["upper"], ranges["upper_bound"])),
    )
    row = {
        "data": name,
        "rows": len(y),
        "refine": refine,
        "wall s": f"{seconds:.1f}",
        "certified": f"{ranges['certified'].mean():.1%}",
        "max gap": f"{gap.max():.1e}",
        "median width": f"{ranges['width'].median():.4f}",
        "ambiguity": f"[{amb[0]:.2%}, {amb[1]:.2%}]",
        "peak MB": f"{peak_memory_mb():.0f}",
    }
    print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return row, auditor, ranges, seconds


def _logit(*probabilities):
    with np.errstate(divide="ignore"):
        return [np.log(p) - np.log1p(-p) for p in probabilities]


def rashomon_side_by_side(n_jobs):
    try:
        import rashomon
    except ImportError:
        print("rashomon-py is not installed: side-by-side skipped")
        return None
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = LogisticRegression(tol=1e-12, max_iter=10_000).fit(X, y)
    from sklearn.frozen import FrozenEstimator

    start = time.perf_counter()
    ours = ProbabilisticAuditor(
        FrozenEstimator(model), log_loss_epsilon=0.01, n_jobs=n_jobs
    )
    ranges = ours.fit(X, y).viable_prediction_range()
    our_seconds = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = rashomon.audit(
            model, X, y, tolerance=("absolute", 0.01), n_samples=1000, random_state=0
        )
    their_seconds = time.perf_counter() - start
    theirs = report.prediction_ranges
    below = theirs["low"].to_numpy() >= ranges["lower_bound"].to_numpy() - 1e-9
    above = theirs["high"].to_numpy() <= ranges["upper_bound"].to_numpy() + 1e-9
    their_width = (theirs["high"] - theirs["low"]).to_numpy()
    rows = [
        {
            "tool": "sklearn-multiplicity (certified)",
            "wall s": f"{our_seconds:.1f}",
            "median width": f"{ranges['width'].median():.4f}",
            "mean width": f"{ranges['width'].mean():.4f}",
            "ambiguity": f"{ours.ambiguity():.2%}",
            "contains theirs": f"{np.mean(below & above):.1%}",
        },
        {
            "tool": "rashomon-py 0.3.1 (1,000 samples)",
            "wall s": f"{their_seconds:.1f}",
            "median width": f"{np.median(their_width):.4f}",
            "mean width": f"{their_width.mean():.4f}",
            "ambiguity": f"{report.flip_rate:.2%}",
            "contains theirs": "",
        },
    ]
    table(rows, list(rows[0]))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--rows", type=int, nargs="*", default=[3000, 10000, 30000, 100000, 300000]
    )
    p.add_argument("--exact-up-to", type=int, default=30000)
    p.add_argument("--threshold-up-to", type=int, default=100000)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--skip-rashomon", action="store_true")
    args = p.parse_args()
    print(machine())
    rows = []
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rows.append(run("breast-cancer", X, y, "all", args.n_jobs)[0])
    for n in args.rows:
        X, y = synthetic(n)
        rows.append(run("synthetic-100", X, y, "none", args.n_jobs)[0])
        if n <= args.threshold_up_to:
            rows.append(run("synthetic-100", X, y, "threshold", args.n_jobs)[0])
        if n <= args.exact_up_to:
            rows.append(run("synthetic-100", X, y, "all", args.n_jobs)[0])
        del X, y
    table(rows, COLUMNS)
    if not args.skip_rashomon:
        rashomon_side_by_side(args.n_jobs)


if __name__ == "__main__":
    main()
