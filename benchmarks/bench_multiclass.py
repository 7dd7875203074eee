"""The K-class exact audit on iris and wine with every feature binarised at
its quartiles (x > each quartile: 12 and 39 binary columns): the 0-1 optimal
baseline (``MultiplicityAuditor()``) and a multinomial logistic regression,
ambiguity and discrepancy at eps = 1% under ``--total-time-limit`` seconds
(target: certified in at most 60 s each). With ``--features raw``, the
continuous features as they are (150 and 178 patterns), where the bands
show what the limit leaves open.

Usage: python benchmarks/bench_multiclass.py [--total-time-limit 60]
       [--epsilon 0.01] [--features {quartiles,raw}]
"""

import argparse
import time
import warnings

import numpy as np
from _common import machine, table
from sklearn.datasets import load_iris, load_wine
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor


def quartiles(X):
    """Every column as three indicators, above each of its quartiles."""
    cuts = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
    return np.hstack([(X > cut).astype(float) for cut in cuts])


def band(bounds):
    lower, upper = bounds
    return f"[{lower:.2%}, {upper:.2%}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--total-time-limit", type=float, default=60.0)
    parser.add_argument("--epsilon", type=float, default=0.01)
    parser.add_argument("--features", choices=["quartiles", "raw"], default="quartiles")
    args = parser.parse_args()
    print(machine())
    rows = []
    baselines = {
        "0-1 optimal": None,
        "logistic": LogisticRegression(max_iter=1000),
    }
    for name, load in [("iris", load_iris), ("wine", load_wine)]:
        X, y = load(return_X_y=True)
        if args.features == "quartiles":
            X = quartiles(X)
        for baseline, estimator in baselines.items():
            auditor = MultiplicityAuditor(
                estimator, total_time_limit=args.total_time_limit
            )
            start = time.perf_counter()
            auditor.fit(X, y)
            fitted = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ambiguity = auditor.ambiguity_bounds(args.epsilon)
                measured = time.perf_counter()
                discrepancy = auditor.discrepancy_bounds(args.epsilon)
            read = time.perf_counter()
            certified = all(
                upper - lower <= 1e-9 for lower, upper in (ambiguity, discrepancy)
            )
            rows.append(
                {
                    "data": f"{name} ({len(y)}x{X.shape[1]}, {len(set(y))} labels)",
                    "baseline": baseline,
                    "patterns": auditor.n_patterns_,
                    "errors": f"{auditor.baseline_errors_:g}",
                    "fit_s": f"{fitted - start:.1f}",
                    "audit_s": f"{measured - fitted:.1f}",
                    "reading_s": f"{read - measured:.2f}",
                    "ambiguity": band(ambiguity),
                    "discrepancy": band(discrepancy),
                    "status": "certified" if certified else "bounds",
                    "MIPs": len(auditor.mip_log_),
                }
            )
    table(rows, list(rows[0]))


if __name__ == "__main__":
    main()
