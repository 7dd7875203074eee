"""Run a complete audit: fit, the values at epsilon, the path, the groups and
the sampled estimate, each stage timed and all under one deadline."""

import math
import time

import numpy as np
from sklearn.frozen import FrozenEstimator

from .._auditor import MultiplicityAuditor
from .._core import ClassBudget
from .._core._validation import PerClassEpsilon, check_tolerance
from .._engine import Deadline, capped, run_plan
from .._epsilon import suggest_epsilon
from .._sampling import SamplingAuditor
from ._format import MEASURES, dataset_record, plain, unwrap
from ._plans import PLANS
from ._report import AuditReport


class _Stages:
    """Times the stages of an audit, each within its deadline.

    A stage run twice adds up its times.
    """

    def __init__(self):
        self.timings = {}

    def run(self, name, func, deadline):
        start = time.perf_counter()
        with capped(deadline):
            value = func()
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        return value


def run_audit(
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
    n_models=100,
    random_state=0,
    verbose=0,
    dataset=None,
    solver="auto",
    constraints=None,
    abstain=False,
):
    """Audit ``(X, y)`` exactly and by sampling; collect everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    estimator : estimator, default=None
        The baseline (``None``: :class:`ZeroOneLinearClassifier`).
    epsilon : float in [0, 1], dict or "auto", default=0.01
        ``"auto"``: :func:`suggest_epsilon` (bootstrap) on the fitted
        baseline. A dict gives one tolerance per class label; its keys may
        also be the labels' text (as typed on the command line).
    groups : array-like of shape (n_samples,), default=None
    max_epsilon : float or dict, default=None
        End of the path (at least ``epsilon``; default ``epsilon``); a dict,
        one per class, when ``epsilon`` is one.
    time_limit : float or None, default=60.0
        Seconds per MIP.
    total_time_limit : float or None, default=None
        Seconds for all MIPs of the audit, one deadline from the start.
        Fitting, then the measures and the groups at ``epsilon``, then the
        path each get what is left, so the values the report leads with are
        settled first. MIPs still open when it runs out leave their bounds
        open, and values are reported as bounds (``certified`` false).
    n_jobs : int or None, default=None
    n_models : int, default=100
        Pool size of the :class:`SamplingAuditor`.
    random_state : int or None, default=0
    verbose : int, default=0
    dataset : dict, default=None
        Description of the data (``source``, ``target``, ``feature_names``,
        ...) copied into the report.
    solver : str or Backend, default="auto"
        MIP backend of the auditor.
    constraints : list, default=None
        Constraints on the baseline and the competing models
        (:mod:`sklearn_multiplicity.constraints`).
    abstain : bool, default=False
        Also report abstention on the contestable people.

    Returns
    -------
    AuditReport
    """
    deadline = Deadline(total_time_limit)
    classes = np.unique(np.asarray(y))
    epsilon = _label_keys(epsilon, classes)
    max_epsilon = _label_keys(max_epsilon, classes)
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=0.01 if epsilon == "auto" else epsilon,
        time_limit=time_limit,
        total_time_limit=total_time_limit,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
        solver=solver,
        constraints=constraints,
    )
    stages, done = _Stages(), {}

    def fit(deadline):

        def run():
            auditor.fit(X, y, groups=groups)
            return auditor.min_error_bounds_  # the report's line, in time

        stages.run("fit", run, deadline)

    def suggest(deadline):
        nonlocal epsilon
        if epsilon == "auto":
            done["suggestion"] = stages.run(
                "epsilon", lambda: _suggest(auditor, X, y, random_state), deadline
            )
            epsilon = done["suggestion"].epsilon
            auditor.set_params(epsilon=epsilon)
        epsilon = check_tolerance(epsilon, auditor.classes_, "epsilon")

    def measures(deadline):
        # The audit at epsilon: both measures, and the groups when given.
        stages.run("measures", lambda: auditor.ambiguity_bounds(epsilon), deadline)

    def along_path(deadline):
        top = _path_end(epsilon, max_epsilon, auditor.classes_)
        done["top"] = top
        done["path"] = stages.run("path", lambda: auditor.path(top), deadline)

    def sample(deadline):
        done["sampling"] = stages.run(
            "sampling",
            lambda: _sample(auditor, X, y, epsilon, n_models, random_state, deadline),
            deadline,
        )

    plan = PLANS[
        "command-line audit"
        if total_time_limit is not None
        else "command-line audit, unlimited"
    ]
    steps = {"fit": fit, "epsilon": suggest, "measures": measures}
    steps.update(path=along_path, sampling=sample)
    with capped(deadline):
        # A step with no time left still reports what is known.
        run_plan(plan, deadline, steps, every_step=True)
        # Every step has run: one last reading, with no solver time, reports
        # the tightest bounds known, the group table's and the measures'
        # alike.
        with capped(Deadline(0.0)):
            bounds = {
                "ambiguity": auditor.ambiguity_bounds(epsilon),
                "discrepancy": auditor.discrepancy_bounds(epsilon),
                "evidence": auditor.evidence(epsilon),
                "model": auditor.discrepancy_model(epsilon),
            }
            frame = None if groups is None else auditor.by_group(epsilon)
    top, sampling, suggestion = done["top"], done["sampling"], done.get("suggestion")
    path = done["path"]
    timings = {**stages.timings, "total": sum(stages.timings.values())}
    return AuditReport(
        auditor=auditor,
        sampling=sampling,
        epsilon=epsilon,
        budget=_budget(auditor, epsilon),
        suggestion=suggestion,
        path=path,
        sampling_path=sampling.path(
            top if isinstance(top, PerClassEpsilon) else float(path["epsilon"].max())
        ),
        bounds={m: bounds[m] for m in MEASURES},
        evidence=bounds["evidence"],
        discrepancy_model=bounds["model"],
        frame=frame,
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
            "n_models": n_models,
            "random_state": random_state,
            "solver": solver if isinstance(solver, str) else solver.name,
        },
        timings=timings,
        abstain=abstain,
    )


def _budget(auditor, epsilon):
    """The level set's budget: a number, or a :class:`ClassBudget` per class."""
    budget = auditor.error_budget(epsilon)
    return ClassBudget(**budget) if isinstance(budget, dict) else budget


def _label_keys(eps, classes):
    """A per-class tolerance with its keys matched to the class labels, so
    that ``{"1": 0.02}`` from the command line reads as ``{1: 0.02}``; other
    tolerances (and keys matching no label) are left for the checks."""
    if not isinstance(eps, dict):
        return eps
    labels = {str(plain(c)): c for c in classes}
    return {labels.get(str(key), key): value for key, value in eps.items()}


def _path_end(epsilon, max_epsilon, classes):
    """The end of the path: ``max_epsilon``, at least ``epsilon`` (per class
    when ``epsilon`` is)."""
    if max_epsilon is None:
        return epsilon
    top = check_tolerance(max_epsilon, classes, "max_epsilon")
    if isinstance(epsilon, PerClassEpsilon) != isinstance(top, PerClassEpsilon):
        raise ValueError(
            "max_epsilon must be per class (one tolerance per class label) "
            "exactly when epsilon is"
        )
    if isinstance(top, PerClassEpsilon):
        return PerClassEpsilon(
            *(max(a, b) for a, b in zip(top, epsilon, strict=True)), top.labels
        )
    return max(top, epsilon)


def _sample(auditor, X, y, epsilon, n_models, random_state, deadline):
    """The sampled estimate around the baseline, re-based on the best pooled
    model when the baseline's level set holds none of them (then it would be
    0 only because every pooled model is worse than the baseline).

    The pool gets what is left of ``deadline`` (at least one model is
    fitted), half of it when a re-based pool may follow.
    """

    def pool(reference, share):
        left = deadline.remaining()
        limit = None if math.isinf(left) else max(share * left, 0.0)
        return SamplingAuditor.from_auditor(
            auditor,
            X,
            y,
            n_models=n_models,
            random_state=random_state,
            time_limit=limit,
            reference=reference,
        )

    sampling = pool("baseline", 0.5)
    if sampling.in_level_set(epsilon).any():
        return sampling
    return pool("best", 1.0)


def _suggest(auditor, X, y, random_state):
    return suggest_epsilon(
        FrozenEstimator(auditor.estimator_),
        X,
        y,
        method="bootstrap",
        random_state=random_state,
    )
