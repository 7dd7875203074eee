"""``sklearn-multiplicity audit`` on a target of 3 to 20 labels: the K-class
exact audit (ambiguity and discrepancy at one tolerance), its summary and
its report files."""

import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .. import MultiplicityAuditor
from .._exceptions import CertificationWarning


def run_multiclass_audit(
    X,
    y,
    *,
    estimator=None,
    epsilon=0.01,
    time_limit=None,
    total_time_limit=None,
    n_jobs=None,
    random_state=0,
    verbose=0,
    dataset=None,
):
    """Fit a K-class :class:`MultiplicityAuditor` and collect its report.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        3 to 20 labels, each on at least two rows.
    estimator : estimator or None
        The baseline (``None``: the 0-1 optimal K-class classifier).
    epsilon : float, default=0.01
    time_limit, total_time_limit : float or None
        Seconds per MIP and per tolerance (and for the minimum error).
    n_jobs, random_state, verbose : the auditor's.
    dataset : dict, default=None
        Description of the data copied into the report.

    Returns
    -------
    MulticlassReport
    """
    if isinstance(epsilon, dict) or epsilon == "auto":
        raise ValueError(
            "a K-label target takes one tolerance in [0, 1] (per-class and "
            "'auto' tolerances are for two labels)"
        )
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=epsilon,
        time_limit=time_limit,
        total_time_limit=total_time_limit,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
    )
    timings = {}
    start = time.perf_counter()
    auditor.fit(X, y)
    timings["fit"] = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        ambiguity = auditor.ambiguity_bounds()
        discrepancy = auditor.discrepancy_bounds()
        min_error = auditor.min_error_bounds_
    timings["measures"] = time.perf_counter() - start
    return MulticlassReport(
        auditor, (ambiguity, discrepancy), min_error, timings, X, y, dataset or {}
    )


class MulticlassReport:
    """What a K-class audit reports: the measures with their bounds and every
    person's labels."""

    def __init__(self, auditor, bounds, min_error, timings, X, y, data):
        self.auditor = auditor
        self.bounds = dict(zip(("ambiguity", "discrepancy"), bounds, strict=True))
        self.min_error = min_error
        self.timings = timings
        self.index = X.index
        self.labels = np.asarray(y)
        self.dataset = dict(data)

    def measures(self):
        """Both measures at ``epsilon``: bounds, and the value when certified."""
        rows = {}
        for name, (lower, upper) in self.bounds.items():
            certified = upper - lower <= 1e-9
            rows[name] = {
                "value": lower if certified else np.nan,
                "lower": lower,
                "upper": upper,
                "status": "certified" if certified else "bounds",
            }
        return pd.DataFrame(rows).T

    def people(self):
        """Every person's label, the baseline's, the labels verified models
        of the level set give them and whether they are ambiguous."""
        auditor = self.auditor
        classes = auditor.classes_
        budget = auditor.error_budget()
        baseline, found, ambiguous, undecided = auditor.session_.people(budget)
        labels_found = [
            ";".join(str(c) for c in classes[np.flatnonzero(row)]) for row in found
        ]
        status = np.where(ambiguous, "yes", np.where(undecided, "undecided", "no"))
        return pd.DataFrame(
            {
                "label": self.labels,
                "baseline": np.where(baseline >= 0, classes[baseline], None),
                "labels_found": labels_found,
                "ambiguous": status,
            },
            index=self.index,
        )

    def summary(self):
        """The report as plain text for the terminal."""
        a, d = self.auditor, self.dataset
        lower, upper = self.min_error
        certified = all(u - lo <= 1e-9 for lo, u in self.bounds.values())
        lines = [
            f"K-class audit of {d.get('source', 'the data')}: {len(self.index)} "
            f"people, {len(d.get('feature_names', []))} features, target "
            f"{d.get('target')!r} with {len(a.classes_)} labels "
            f"({', '.join(map(str, a.classes_))})",
            f"Hypothesis class: {a.hypothesis_class_}",
            f"Baseline: {type(a.estimator_).__name__}, {a.baseline_errors_:g} "
            f"weighted errors; the class's fewest: [{lower:g}, {upper:g}]",
            f"Level set at eps = {a.epsilon:g}: at most {a.error_budget():g} errors",
            "",
            self.measures().to_string(float_format=lambda v: f"{v:.4f}"),
            "",
            "All certified."
            if certified
            else "Not certified: bounds only (more time: --total-time-limit).",
            "Not yet for K labels: groups, the path, plots and the "
            "probabilistic audit.",
        ]
        return "\n".join(lines)

    def to_dict(self):
        """The report as JSON-ready data (bounds named lower/upper; a value
        only when certified)."""
        a = self.auditor
        measures = {}
        for name, (lower, upper) in self.bounds.items():
            entry = {"lower": lower, "upper": upper}
            if upper - lower <= 1e-9:
                entry["value"] = lower
            measures[name] = entry
        return {
            "kind": "K-class",
            "dataset": {
                **self.dataset,
                "classes": [str(c) for c in a.classes_],
            },
            "epsilon": a.epsilon,
            "error_budget": a.error_budget(),
            "baseline": {
                "estimator": type(a.estimator_).__name__,
                "errors": a.baseline_errors_,
            },
            "min_error": {"lower": self.min_error[0], "upper": self.min_error[1]},
            "hypothesis_class": a.hypothesis_class_,
            "measures": measures,
            "timings": self.timings,
            "settings": {
                "time_limit": a.time_limit,
                "total_time_limit": a.total_time_limit,
                "n_jobs": a.n_jobs,
                "random_state": a.random_state,
            },
        }

    def write(self, out):
        """Write ``report.json`` and ``people.csv`` to ``out``; their paths."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        self.people().to_csv(out / "people.csv")
        data = self.to_dict()
        data["files"] = ["people.csv", "report.json"]
        (out / "report.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
        return [out / "people.csv", out / "report.json"]
