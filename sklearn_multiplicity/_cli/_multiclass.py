"""``sklearn-multiplicity audit`` on a target of 3 to 20 labels: the K-class
exact audit (the measures at one tolerance, the groups, every person's
labels and the path), each stage timed and all under one deadline."""

import time
import warnings

import numpy as np

from .. import MultiplicityAuditor
from .._core._validation import PerClassEpsilon, check_tolerance
from .._engine import Deadline, capped, run_plan
from .._exceptions import CertificationWarning
from ._format import dataset_record, plain, unwrap
from ._multiclass_report import MulticlassReport
from ._plans import PLANS


class _Stages:
    """Times the stages of an audit, each within its deadline (a stage run
    twice adds up its times)."""

    def __init__(self):
        self.timings = {}

    def run(self, name, func, deadline):
        start = time.perf_counter()
        with capped(deadline), warnings.catch_warnings():
            # Open bounds are reported as bounds, not warned about.
            warnings.simplefilter("ignore", CertificationWarning)
            value = func()
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        return value


def run_multiclass_audit(
    X,
    y,
    *,
    estimator=None,
    epsilon=0.01,
    groups=None,
    max_epsilon=None,
    time_limit=60.0,
    total_time_limit=None,
    n_jobs=None,
    random_state=0,
    verbose=0,
    dataset=None,
    abstain=False,
):
    """Audit a K-label target exactly and collect everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        3 to 20 labels, each on at least two rows.
    estimator : estimator or None
        The baseline (``None``: the 0-1 optimal K-class classifier).
    epsilon : float in [0, 1] or dict, default=0.01
        The tolerance, or one per label (``{label: eps}``: the share of the
        label's rows a model may get wrong beyond the baseline's errors on
        them); the keys may be the labels' text, as typed on the command
        line.
    groups : array-like of shape (n_samples,), default=None
        The group of every row, for the by-group table.
    max_epsilon : float, dict or None, default=None
        End of the path (default ``epsilon``), at least ``epsilon``. One
        tolerance per label (``{label: eps}``, keys as for ``epsilon``) goes
        with per-label ``epsilon``: every label's tolerance grows in equal
        steps, each capped at its own maximum (at least its ``epsilon``). A
        number is the end of the path of one overall tolerance (the share of
        all rows), beside per-label ``epsilon`` too.
    time_limit : float or None, default=60.0
        Seconds per MIP.
    total_time_limit : float or None, default=None
        Seconds for the whole audit, one deadline from the start: fitting,
        then the measures and the groups at ``epsilon``, then every
        person's labels at ``epsilon``, then the path, each getting what is
        left (``PLANS["command-line K-class audit"]``). Values still open
        when it runs out are reported as bounds.
    n_jobs, random_state, verbose : the auditor's.
    dataset : dict, default=None
        Description of the data copied into the report.
    abstain : bool, default=False
        Also report abstention on the people whose label may change.

    Returns
    -------
    MulticlassReport
    """
    if epsilon == "auto":
        raise ValueError(
            "--epsilon auto is for two labels (its bootstrap interval is of a "
            "binary error); give a K-label target a number or LABEL=EPS for "
            "every label"
        )
    deadline = Deadline(total_time_limit)
    classes = np.unique(np.asarray(y))
    epsilon = check_tolerance(_label_keys(epsilon, classes), classes, "epsilon")
    top = path_end(epsilon, max_epsilon, classes)  # checked before any solver
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=_as_param(epsilon),
        time_limit=time_limit,
        total_time_limit=total_time_limit,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
    )
    stages, done = _Stages(), {}

    def fit(deadline):
        def run():
            auditor.fit(X, y, groups=groups)
            return auditor.min_error_bounds_  # the report's line, in time

        stages.run("fit", run, deadline)

    def measures(deadline):
        # The audit at epsilon: both measures and every group's.
        stages.run("measures", lambda: auditor.discrepancy_bounds(epsilon), deadline)

    def people(deadline):
        # One MIP per person and label that no model found and no proof
        # settled; every model found joins the audit's pool.
        done["label_sets"] = stages.run(
            "people", lambda: auditor.predict_set(X, epsilon), deadline
        )

    def along_path(deadline):
        path = stages.run("path", lambda: auditor.path(top), deadline)
        done["path"] = _with_total_budget(path, auditor.classes_)

    steps = {"fit": fit, "measures": measures, "people": people}
    steps["path"] = along_path
    with capped(deadline):
        # A step with no time left still reports what is known.
        run_plan(PLANS["command-line K-class audit"], deadline, steps, every_step=True)
        # One last reading, with no solver time: the tightest bounds known,
        # the group table's and the measures' alike.
        with capped(Deadline(0.0)), warnings.catch_warnings():
            warnings.simplefilter("ignore", CertificationWarning)
            reading = {
                "ambiguity": auditor.ambiguity_bounds(epsilon),
                "discrepancy": auditor.discrepancy_bounds(epsilon),
                "evidence": auditor.evidence(epsilon),
                "model": auditor.discrepancy_model(epsilon),
                "frame": None if groups is None else auditor.by_group(epsilon),
            }
            budget = auditor.session_.budget(epsilon)
            _, found, _, _ = auditor.session_.people(budget)
    timings = {**stages.timings, "total": sum(stages.timings.values())}
    label_sets = done["label_sets"]
    return MulticlassReport(
        auditor=auditor,
        epsilon=epsilon,
        path=done["path"],
        bounds={m: reading[m] for m in ("ambiguity", "discrepancy")},
        evidence=reading["evidence"],
        labels_found=found,
        labels_open=label_sets & ~found,
        discrepancy_model=reading["model"],
        frame=reading["frame"],
        y=np.asarray(y),
        groups=None if groups is None else np.asarray(groups),
        dataset=dataset_record(X, y, auditor.classes_, dataset),
        settings={
            "epsilon": epsilon,
            "max_epsilon": top,
            "estimator": type(unwrap(auditor.estimator_)).__name__,
            "time_limit": time_limit,
            "total_time_limit": total_time_limit,
            "n_jobs": n_jobs,
            "random_state": random_state,
        },
        timings=timings,
        abstain=abstain,
    )


def _with_total_budget(path, classes):
    """A per-label path with ``budget``, the most errors in all (the sum of
    its ``budget_<label>`` columns), after them, as the scalar path has it."""
    columns = [f"budget_{c}" for c in classes]
    if "budget" in path or not set(columns) <= set(path.columns):
        return path
    at = path.columns.get_loc(columns[-1]) + 1
    path.insert(at, "budget", path[columns].sum(axis=1))
    return path


def _label_keys(eps, classes):
    """A per-label tolerance with its keys matched to the labels, so that
    ``{"1": 0.02}`` from the command line reads as ``{1: 0.02}``; keys
    matching no label are left for the checks."""
    if not isinstance(eps, dict):
        return eps
    labels = {str(plain(c)): c for c in classes}
    return {labels.get(str(key), key): value for key, value in eps.items()}


def _as_param(epsilon):
    """The auditor's ``epsilon`` parameter of a checked tolerance."""
    if isinstance(epsilon, PerClassEpsilon):
        return dict(zip(epsilon.labels, epsilon, strict=True))
    return epsilon


def path_end(epsilon, max_epsilon, classes):
    """The end of the path of a K-label audit, checked.

    Parameters
    ----------
    epsilon : float or PerClassEpsilon
        The checked tolerance of the audit.
    max_epsilon : float, dict or None
        The end asked for (``None``: ``epsilon``); a dict's keys may be the
        labels' text.
    classes : ndarray
        The labels, sorted.

    Returns
    -------
    float or PerClassEpsilon
        ``max_epsilon``, at least a scalar ``epsilon``; per label, each
        label's at least its ``epsilon``. A number beside per-label
        ``epsilon`` is the end of the path of one overall tolerance.

    Raises
    ------
    ValueError
        When ``max_epsilon`` is per label and ``epsilon`` is one number, or
        names labels that are not the target's.
    """
    if max_epsilon is None:
        return epsilon
    top = check_tolerance(_label_keys(max_epsilon, classes), classes, "max_epsilon")
    if not isinstance(top, PerClassEpsilon):
        return top if isinstance(epsilon, PerClassEpsilon) else max(top, epsilon)
    if not isinstance(epsilon, PerClassEpsilon):
        raise ValueError(
            "a per-label --max-epsilon (LABEL=EPS,...) is the end of the path "
            "of per-label tolerances: give --epsilon per label too, or "
            "--max-epsilon as one number"
        )
    return PerClassEpsilon(
        *(max(a, b) for a, b in zip(top, epsilon, strict=True)), top.labels
    )
