"""The assessment that ``MultiplicityAuditor.fit`` states before any MIP, on
the tables of ``bench_everyday.py``: regime and seconds (target: at most 5 s).

The seconds are those of ``AuditSession.assess`` (the root LP, a logistic
regression and the probes of the routes), on a session built as the auditor
builds it (the audit space of the baseline). Reference results at 60 s:
benchmarks/README.rst, "Whole audits of everyday tables".

Usage: python benchmarks/bench_assessment.py
"""

import time
import warnings

import numpy as np
from _common import machine, table
from bench_everyday import datasets

from sklearn_multiplicity._cli._data import load_demo_data
from sklearn_multiplicity._engine import AuditSession


def audit_space(X, estimator):
    """The features the auditor audits: the pipeline's transformed ones."""
    X = np.asarray(X, float)
    if estimator is None:
        return X
    return estimator[:-1].fit_transform(X)


def main():
    print(machine())
    rows = []
    demo = ("demo", *load_demo_data(), None, None)
    for name, X, y, _, estimator in [demo, *datasets()]:
        Z = audit_space(X, estimator)
        y01 = (np.asarray(y) == np.unique(y)[1]).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            session = AuditSession.from_data(Z, y01)
            start = time.perf_counter()
            assessment = session.assess(60.0, float(np.floor(0.01 * len(y01))))
            seconds = time.perf_counter() - start
        signals = assessment.signals
        rows.append(
            {
                "dataset": name,
                "patterns": signals["n_patterns"],
                "columns": signals["n_dimensions"],
                "root LP share": f"{signals['root_lp_share']:.1%}",
                "regime": assessment.regime,
                "seconds": f"{seconds:.2f}",
            }
        )
    table(rows, list(rows[0]))


if __name__ == "__main__":
    main()
