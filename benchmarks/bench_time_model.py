"""A new user's sequence of calls, timed one by one, and the integration check.

``sequence``: a 5,000 x 20 continuous table (``make_classification``, seed 0),
``StandardScaler`` + ``LogisticRegression`` audited with
``total_time_limit=60``; then ``fit``, ``ambiguity``, ``ambiguity_bounds``,
``discrepancy``, ``evidence``, ``conflicts``, ``by_group``, a path Display,
each timed, with the bands after each call. The audit of a tolerance spends
its limit once; the calls after it read it.

``integration``: the scikit-learn workflow on the first six breast cancer
features with ``time_limit=20`` and ``total_time_limit=20``: fit and both
measures; clone; pickle; feature names; a prefit ``FrozenEstimator``; a
Pipeline inside the auditor; the auditor inside a Pipeline; ``GridSearchCV``
over ``estimator__C`` (``cv=2``); ``cross_validate`` with both scorers
(``cv=2``). Each part is timed.

Usage: python benchmarks/bench_time_model.py [--only sequence|integration]
       [--limit 60]
"""

import pickle
import time
import warnings

import matplotlib
import numpy as np
import pandas as pd
from _common import machine, parser, table
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import (
    MultiplicityAuditor,
    MultiplicityPathDisplay,
    ambiguity_scorer,
    discrepancy_scorer,
)

matplotlib.use("Agg")


def band(bounds):
    return f"[{bounds[0]:.3f}, {bounds[1]:.3f}]"


def timed(calls, after=lambda name: {}):
    """Run ``calls`` (name, callable) in turn, warnings silenced; one row
    each: seconds, running total, and what ``after(name)`` reads then."""
    rows, total = [], 0.0
    for name, call in calls:
        began = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        seconds = time.perf_counter() - began
        total += seconds
        rows.append(
            {"call": name, "seconds": round(seconds, 1), "total": round(total, 1)}
            | after(name)
        )
        print(f"  {name}: {seconds:.1f} s", flush=True)
    return rows


def sequence(limit):
    X, y = make_classification(n_samples=5000, n_features=20, random_state=0)
    groups = np.where(X[:, 0] > 0, "a", "b")
    auditor = MultiplicityAuditor(
        make_pipeline(StandardScaler(), LogisticRegression()),
        total_time_limit=limit,
        n_jobs=2,
        random_state=0,
    )
    calls = [
        ("fit", lambda: auditor.fit(X, y, groups=groups)),
        ("ambiguity", auditor.ambiguity),
        ("ambiguity_bounds", auditor.ambiguity_bounds),
        ("discrepancy", auditor.discrepancy),
        ("evidence", auditor.evidence),
        ("conflicts", auditor.conflicts),
        ("by_group", auditor.by_group),
        ("path Display", lambda: MultiplicityPathDisplay.from_estimator(auditor)),
    ]
    columns = ["call", "seconds", "total", "ambiguity", "discrepancy", "MIPs"]

    def bands(name):
        if name == "fit":  # a reading now would run the audit untimed
            return {"MIPs": len(auditor.mip_log_)}
        return {
            "ambiguity": band(auditor.ambiguity_bounds()),
            "discrepancy": band(auditor.discrepancy_bounds()),
            "MIPs": len(auditor.mip_log_),
        }

    table(timed(calls, bands), columns)


def integration(limit):
    data = load_breast_cancer()
    X = pd.DataFrame(data.data[:, :6], columns=data.feature_names[:6])
    y = data.target
    settings = {"time_limit": limit, "total_time_limit": limit}

    def auditor(estimator=None):
        return MultiplicityAuditor(
            LogisticRegression(max_iter=1000) if estimator is None else estimator,
            **settings,
        )

    fitted = {}

    def fit_and_measure():
        fitted["auditor"] = auditor().fit(X, y)
        return fitted["auditor"].ambiguity(), fitted["auditor"].discrepancy()

    parts = [
        ("fit + both measures", fit_and_measure),
        ("clone", lambda: clone(fitted["auditor"]).get_params()),
        (
            "pickle",
            lambda: pickle.loads(pickle.dumps(fitted["auditor"])).ambiguity_bounds(),
        ),
        ("feature names", lambda: list(fitted["auditor"].feature_names_in_)),
        (
            "prefit FrozenEstimator",
            lambda: (
                auditor(FrozenEstimator(LogisticRegression(max_iter=1000).fit(X, y)))
                .fit(X, y)
                .ambiguity_bounds()
            ),
        ),
        (
            "Pipeline inside",
            lambda: (
                auditor(make_pipeline(StandardScaler(), LogisticRegression()))
                .fit(X, y)
                .ambiguity_bounds()
            ),
        ),
        (
            "auditor inside a Pipeline",
            lambda: make_pipeline(StandardScaler(), auditor()).fit(X, y).score(X, y),
        ),
        (
            "GridSearchCV",
            lambda: GridSearchCV(auditor(), {"estimator__C": [0.1, 1.0]}, cv=2).fit(
                X, y
            ),
        ),
        (
            "cross_validate + scorers",
            lambda: cross_validate(
                auditor(),
                X,
                y,
                cv=2,
                scoring={
                    "ambiguity": ambiguity_scorer(),
                    "discrepancy": discrepancy_scorer(),
                },
            ),
        ),
    ]
    table(timed(parts), ["call", "seconds", "total"])


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--only", choices=["sequence", "integration"])
    p.add_argument("--limit", type=float, default=None)
    args = p.parse_args()
    print(machine())
    if args.only in (None, "sequence"):
        print("\nA new user's sequence (5,000 x 20, total_time_limit per tolerance)")
        sequence(args.limit or 60.0)
    if args.only in (None, "integration"):
        print("\nThe scikit-learn integration check (breast cancer, 6 features)")
        integration(args.limit or 20.0)


if __name__ == "__main__":
    main()
