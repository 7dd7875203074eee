"""K-label audits beside their one-against-rest two-label versions.

Each table is audited at eps (1% by default) with the 0-1 optimal baseline
(``MultiplicityAuditor()``) under ``--total-time-limit`` seconds: once with
all its labels, and once per label against the rest, on the same encoding.
For each audit the table gives the regime ``fit`` assessed before any MIP
(``assessment_``) with the seconds it expects certification to take (``-``:
none expected), the time of ``fit`` plus both readings, the minimum error,
ambiguity and discrepancy (a value when certified, else the band the limit
left) and whether the time limit held (fit plus both readings within 1.1 x
the limit + 15 s). The assessment hits when it says ``exact`` of an audit
certified within the limit, or another regime of one that is not; the hit
rates of the K-label and the two-label rows close the output.

Tables:

- ``wine-bins``: wine's first five features, each one-hot encoded into four
  quantile bins (20 columns, 154 patterns);
- ``wine-quartiles``, ``iris-quartiles``: every feature as three indicators,
  above each quartile;
- ``iris-bins``: iris's four features in four quantile bins, one-hot;
- ``wine-raw``, ``iris-raw``: the features as they are;
- ``digits``: the 8x8 digits 0 to 3, pixels above 8 (binary);
- ``synthetic``: 5,000 rows, 20 binary features, 4 labels from a noisy
  linear argmax.

Usage: python benchmarks/bench_label_proofs.py [--total-time-limit 60]
       [--epsilon 0.01] [--n-jobs 2] [--tables wine-bins iris-raw ...]
       [--no-one-against-rest]
"""

import argparse
import time
import warnings

import numpy as np
from _common import machine, table
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.preprocessing import KBinsDiscretizer

from sklearn_multiplicity import MultiplicityAuditor


def quartiles(X):
    """Every column as three indicators, above each of its quartiles."""
    cuts = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
    return np.hstack([(X > cut).astype(float) for cut in cuts])


def bins(X):
    """Every column one-hot encoded into four quantile bins."""
    encoder = KBinsDiscretizer(n_bins=4, encode="onehot-dense", strategy="quantile")
    return encoder.fit_transform(X)


def synthetic(n=5000, p=20, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < 0.5).astype(float)
    y = np.argmax(X @ rng.normal(size=(p, k)) + rng.gumbel(size=(n, k)), axis=1)
    return X, y


def digits():
    X, y = load_digits(return_X_y=True)
    keep = y < 4
    return (X[keep] > 8).astype(float), y[keep]


TABLES = {
    "wine-bins": lambda: (bins(load_wine().data[:, :5]), load_wine().target),
    "wine-quartiles": lambda: (quartiles(load_wine().data), load_wine().target),
    "wine-raw": lambda: load_wine(return_X_y=True),
    "iris-bins": lambda: (bins(load_iris().data), load_iris().target),
    "iris-quartiles": lambda: (quartiles(load_iris().data), load_iris().target),
    "iris-raw": lambda: load_iris(return_X_y=True),
    "digits": digits,
    "synthetic": synthetic,
}


def reading(bounds):
    lower, upper = bounds
    if upper - lower <= 1e-9:
        return f"{lower:.2%}"
    return f"[{lower:.2%}, {upper:.2%}]"


def audit(X, y, limit, eps, n_jobs):
    """One audit: its row of the table."""
    auditor = MultiplicityAuditor(total_time_limit=limit, n_jobs=n_jobs)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor.fit(X, y)
        ambiguity = auditor.ambiguity_bounds(eps)
        discrepancy = auditor.discrepancy_bounds(eps)
    seconds = time.perf_counter() - start
    lower, upper = auditor.min_error_bounds_
    assessment = auditor.assessment_
    expected = assessment.signals.get("seconds_to_certify")
    min_error = f"{lower:g}" if upper - lower <= 1e-9 else f"[{lower:g}, {upper:g}]"
    certified = all(b[1] - b[0] <= 1e-9 for b in (ambiguity, discrepancy))
    return {
        "patterns": auditor.n_patterns_,
        "assessed": assessment.regime,
        "expected s": "-" if expected is None else f"{expected:.3g}",
        "seconds": f"{seconds:.1f}",
        "status": "certified" if certified else "bands",
        "min error": min_error,
        "ambiguity": reading(ambiguity),
        "discrepancy": reading(discrepancy),
        "limit held": "yes" if seconds <= 1.1 * limit + 15 else "NO",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--total-time-limit", type=float, default=60.0)
    parser.add_argument("--epsilon", type=float, default=0.01)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--tables", nargs="+", choices=list(TABLES), default=None)
    parser.add_argument(
        "--no-one-against-rest",
        action="store_true",
        help="audit the K-label tables only",
    )
    args = parser.parse_args()
    print(machine())
    rows = []
    for name in args.tables or list(TABLES):
        X, y = TABLES[name]()
        targets = [("all labels", y)]
        if not args.no_one_against_rest:
            targets += [(f"{k} vs rest", (y == k).astype(int)) for k in np.unique(y)]
        for target, labels in targets:
            row = audit(X, labels, args.total_time_limit, args.epsilon, args.n_jobs)
            rows.append({"table": name, "target": target, **row})
            print(", ".join(f"{k}: {v}" for k, v in rows[-1].items()), flush=True)
    print()
    table(rows, list(rows[0]))
    print()
    for kind, rows_of_kind in (
        ("K labels", [r for r in rows if r["target"] == "all labels"]),
        ("two labels", [r for r in rows if r["target"] != "all labels"]),
    ):
        if rows_of_kind:
            hits = sum(hit(row) for row in rows_of_kind)
            print(f"assessment hits, {kind}: {hits} of {len(rows_of_kind)}")


def hit(row):
    """Whether the assessment said ``exact`` exactly of a certified audit."""
    return (row["assessed"] == "exact") == (row["status"] == "certified")


if __name__ == "__main__":
    main()
