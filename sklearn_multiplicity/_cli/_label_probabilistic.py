"""``audit --measure probabilistic`` on a target of 3 to 20 labels: the
audit of a multinomial logistic regression's log-loss level set, each stage
timed and all under one deadline."""

import sys
import time
import warnings

import numpy as np

from .._engine import Deadline, capped
from .._exceptions import CertificationWarning
from .._probabilistic import ProbabilisticAuditor
from ._format import dataset_record
from ._label_probabilistic_report import LabelProbabilisticReport
from ._probabilistic import default_estimator


def run_label_probabilistic_audit(
    X,
    y,
    *,
    estimator=None,
    epsilon=0.01,
    groups=None,
    n_jobs=None,
    total_time_limit=None,
    random_state=0,
    verbose=0,
    dataset=None,
):
    """Fit a :class:`ProbabilisticAuditor` on a K-label target and collect
    everything reported.

    The stages run in order under one deadline (``total_time_limit``, as
    for two labels): fitting, every person's labels (yes, no or open per
    label), both measures, the probability ranges with the Rashomon
    capacities, then a model of the set for each label the most contested
    person gets. Pairs a limit leaves open are reported as open, measures
    as bounds.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        3 to 20 labels, each on at least two rows.
    estimator : estimator, default=None
        A multinomial ``LogisticRegression`` or a Pipeline ending in one
        (``None``: :func:`~._probabilistic.default_estimator`).
    epsilon : float, default=0.01
        Tolerance in nats of mean log-loss.
    groups : array-like of shape (n_samples,), default=None
    n_jobs : int or None, default=None
    total_time_limit : float or None, default=None
        Seconds for the whole audit (``None``: the auditor's default limit
        per request).
    random_state : int or None, default=0
    verbose : int, default=0
        ``>= 1``: one line per stage on stderr.
    dataset : dict, default=None
        Description of the data copied into the report.

    Returns
    -------
    LabelProbabilisticReport
    """
    timings, found = {}, {}
    prefix = f"[{ProbabilisticAuditor.__name__}] eps={epsilon:g} nats: "

    def stage(name, func, words):
        start = time.perf_counter()
        found[name] = func()
        timings[name] = time.perf_counter() - start
        if verbose:  # the auditor's stage lines are for two labels
            line = f"{prefix}{words(found[name])} ({timings[name]:.1f} s)"
            print(line, file=sys.stderr, flush=True)

    auditor = ProbabilisticAuditor(
        default_estimator() if estimator is None else estimator,
        epsilon=epsilon,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
    )
    with capped(Deadline(total_time_limit)), warnings.catch_warnings():
        # Open values are reported as bounds, not warned about.
        warnings.simplefilter("ignore", CertificationWarning)
        stage("fit", lambda: auditor.fit(X, y), _fit_words)
        baseline = np.asarray(auditor.predict(X))
        stage("labels", auditor.reachable_labels, _labels_words)
        stage("measures", lambda: _measure_bounds(auditor), _bounds_words)
        stage("ranges", lambda: _ranges(auditor), _ranges_words)
        stage(
            "models",
            lambda: _witnesses(auditor, found["labels"], baseline),
            lambda models: (
                f"{len(models)} model{'' if len(models) == 1 else 's'} of the set"
            ),
        )
    timings["total"] = sum(timings.values())
    return LabelProbabilisticReport(
        auditor=auditor,
        reach=found["labels"],
        ranges=found["ranges"][0],
        capacity=found["ranges"][1],
        bounds=found["measures"],
        baseline=baseline,
        witnesses=found["models"],
        y=np.asarray(y),
        groups=None if groups is None else np.asarray(groups),
        dataset=dataset_record(X, y, auditor.classes_, dataset),
        timings=timings,
    )


def _measure_bounds(auditor):
    return {
        "ambiguity": auditor.ambiguity_bounds(),
        "discrepancy": auditor.discrepancy_bounds(),
    }


def _ranges(auditor):
    return auditor.viable_prediction_range(), auditor.rashomon_capacity()


def _fit_words(auditor):
    lo, hi = auditor.min_objective_bounds_
    return (
        f"fitted; baseline objective {auditor.baseline_objective_:.6g}, "
        f"certified minimum [{lo:.6g}, {hi:.6g}]"
    )


def _labels_words(reach):
    status = reach.to_numpy()
    n_open = int((status == "open").sum())
    return (
        f"labels: {status.size - n_open} of {status.size} pairs settled, {n_open} open"
    )


def _bounds_words(bounds):
    return ", ".join(
        f"{name} [{lo:.4f}, {hi:.4f}]" for name, (lo, hi) in bounds.items()
    )


def _ranges_words(found):
    ranges, _ = found
    pinned = ranges["certified"].to_numpy()
    return f"probability ranges: {int(pinned.sum())} of {pinned.size} certified"


def _witnesses(auditor, reach, baseline):
    """``{(row, label): model}``: for the person the set gives the most
    labels (the first such), a model of the set giving each of them but the
    baseline's; empty when the set gives everyone one label."""
    yes = reach.to_numpy() == "yes"
    if yes.sum(axis=1).max(initial=0) < 2:
        return {}
    row = int(np.argmax(yes.sum(axis=1)))
    return {
        (row, label): auditor.label_model(row, label)
        for label in auditor.classes_[yes[row]]
        if label != baseline[row]
    }
