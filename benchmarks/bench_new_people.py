"""Held-out people: one batch against each person alone.

For each dataset, an auditor is fitted on 80% of the rows (eps = 1%) and
asked ``ambiguous`` for the held-out 20% in one call; a second auditor,
fitted the same way, is asked about a sample of those people one at a time.
The table gives the time of each, how many people the batch calls
contestable and whether any was left undecided, the new people's MIPs it
ran (one closed question each, after ambiguity at eps is settled: people who
are training patterns need none) and whether every person asked alone got
the batch's answer.

Usage: python benchmarks/bench_new_people.py [--alone 40] [--only NAME ...]
"""

import time
import warnings

import numpy as np
import pandas as pd
from _common import DEFAULT_DATA, machine, parser, peak_memory_mb, table
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity.datasets import load_compas

GERMAN = DEFAULT_DATA.parent / "german-credit.csv"


def datasets(data):
    compas = load_compas(data if data.exists() else None)
    yield "compas", compas.data, compas.target, None
    X, y, _, _ = load_audit_data(GERMAN, "credit", None, binarize=True)
    yield "german-binarised", X.to_numpy(float), np.asarray(y), LogisticRegression()
    cancer = load_breast_cancer()
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    yield "cancer-6", cancer.data[:, :6], cancer.target, logistic


def fit(X, y, estimator, limit):
    auditor = MultiplicityAuditor(
        estimator, epsilon=0.01, time_limit=limit, total_time_limit=limit
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return auditor.fit(X, y)


def run(name, X, y, estimator, n_alone, limit):
    X_train, X_new, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    auditor = fit(X_train, y_train, estimator, limit)
    n_log = len(auditor.session_.log)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = auditor.predict_set(X_new)
    batch_seconds = time.perf_counter() - start
    undecided_warning = any("not certified" in str(w.message) for w in caught)
    new_mips = [e.mip for e in auditor.session_.log[n_log:]]
    contestable = sets.all(axis=1)
    alone_auditor = fit(X_train, y_train, estimator, limit)
    sample = np.random.default_rng(0).choice(
        len(X_new), size=min(n_alone, len(X_new)), replace=False
    )
    start = time.perf_counter()
    alone = np.array([alone_auditor.predict_set(X_new[[i]])[0] for i in sample])
    alone_seconds = time.perf_counter() - start
    return {
        "dataset": name,
        "new people": len(X_new),
        "distinct": len(np.unique(X_new, axis=0)),
        "batch s": f"{batch_seconds:.1f}",
        "contestable": int(contestable.sum()),
        "undecided warning": undecided_warning,
        "people MIPs": sum(m.startswith("score_flip") for m in new_mips),
        "alone (sample)": len(sample),
        "alone s": f"{alone_seconds:.1f}",
        "alone = batch": bool(np.array_equal(alone, sets[sample])),
    }


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--alone", type=int, default=40, help="people asked one by one")
    p.add_argument("--limit", type=float, default=300.0, help="seconds per request")
    p.add_argument("--only", nargs="*", default=None)
    args = p.parse_args()
    rows = []
    for name, X, y, estimator in datasets(args.data):
        if args.only and name not in args.only:
            continue
        rows.append(
            run(name, np.asarray(X, float), y, estimator, args.alone, args.limit)
        )
        print(rows[-1], flush=True)  # each dataset as it ends
    print(f"Machine: {machine()}; peak memory {peak_memory_mb():.0f} MB")
    table(rows, list(rows[0]))


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    main()
