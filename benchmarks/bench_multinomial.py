"""Exact label ambiguity of multinomial logistic regressions.

Each case runs in its own process and prints one row: rows, features,
labels, the seconds of ``fit`` (baseline and certified minimum) and of the
label-ambiguity request, the (person, label) pairs left open, reachable
(``yes``) and certified unreachable (``no``), the
certified ambiguity bounds and the peak resident memory of the process.

Usage: ``python benchmarks/bench_multinomial.py [digits] [synthetic]
[--unlimited]`` (``--unlimited``: no time limit, to time the exact answer;
else 30 s for digits, 300 s for the synthetic table).
"""

import resource
import subprocess
import sys
import time

import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import ProbabilisticAuditor

CASES = ("digits", "synthetic")
LIMITS = {"digits": 30, "synthetic": 300}


def data(name):
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return X, y, LogisticRegression(max_iter=10_000)
    X, y = make_classification(
        n_samples=30000, n_features=50, n_informative=20, n_classes=5, random_state=0
    )
    return X, y, make_pipeline(StandardScaler(), LogisticRegression(max_iter=10_000))


def case(name, unlimited=False, eps=0.01, n_jobs=2):
    X, y, model = data(name)
    limit = None if unlimited else LIMITS[name]
    auditor = ProbabilisticAuditor(
        model, log_loss_epsilon=eps, n_jobs=n_jobs, total_time_limit=limit
    )
    start = time.perf_counter()
    auditor.fit(X, y)
    fitted = time.perf_counter()
    lower, upper = auditor.ambiguity_bounds()
    asked = time.perf_counter()
    status = auditor.reachable_labels().to_numpy()  # cached: no work
    counts = [int(np.sum(status == s)) for s in ("yes", "no", "open")]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(
        f"{name:10s} {X.shape[0]:6d} {X.shape[1]:4d} {len(np.unique(y)):3d} "
        f"{fitted - start:6.1f} {asked - fitted:7.1f} "
        f"{counts[2]:5d} {'/'.join(str(c) for c in counts[:2]):>13s} "
        f"[{lower:.4f}, {upper:.4f}] {peak:8.0f}",
        flush=True,
    )


def main(which, unlimited):
    print(
        "case         rows feat   K  fit_s request_s  open        yes/no "
        "  ambiguity        peakMiB"
    )
    for name in which:
        extra = ["--unlimited"] if unlimited else []
        subprocess.run([sys.executable, __file__, "--case", name, *extra], check=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    unlimited = "--unlimited" in args
    names = [a for a in args if not a.startswith("--")]
    if args[:1] == ["--case"]:
        case(names[0], unlimited)
    else:
        main(names or list(CASES), unlimited)
