"""Run a complete audit: fit, the values at epsilon, the path, the groups and
the sampled estimate, each stage timed and all under one deadline."""

import time

import numpy as np
from sklearn.frozen import FrozenEstimator

from .._auditor import MultiplicityAuditor
from .._engine import Deadline
from .._epsilon import suggest_epsilon
from .._sampling import SamplingAuditor
from ._format import MEASURES, plain, unwrap
from ._report import AuditReport


class _Stages:
    """Times the stages of an audit; a stage run twice adds up its times."""

    def __init__(self):
        self.timings = {}

    def run(self, name, func):
        start = time.perf_counter()
        value = func()
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        return value


def _stage_order(steps, total_time_limit):
    """The order of the exact stages of :func:`run_audit` (last run wins).

    Without a total time limit the path goes first: its flip MIPs, solved to
    optimality once, answer ambiguity at every tolerance, ``epsilon``
    included. Under a total time limit the values at ``epsilon``, which the
    report leads with, go first and the path (which can use any amount of
    time) gets what they leave; they are then read again, from what is now
    cached, since the path may have tightened them.
    """
    order = ["path", "measures", "groups"]
    if total_time_limit is not None:
        order = ["measures", "groups", "path", "measures", "groups"]
    return [name for name in order if name in steps]


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
):
    """Audit ``(X, y)`` exactly and by sampling; collect everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    estimator : estimator, default=None
        The baseline (``None``: :class:`ZeroOneLinearClassifier`).
    epsilon : float in [0, 1] or "auto", default=0.01
        ``"auto"``: :func:`suggest_epsilon` (bootstrap) on the fitted baseline.
    groups : array-like of shape (n_samples,), default=None
    max_epsilon : float, default=None
        End of the path (at least ``epsilon``; default ``epsilon``).
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

    Returns
    -------
    AuditReport
    """
    deadline = Deadline(total_time_limit)
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=0.01 if epsilon == "auto" else epsilon,
        time_limit=time_limit,
        total_time_limit=total_time_limit,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
        solver=solver,
    )
    stages = _Stages()
    stages.run("fit", lambda: auditor.fit(X, y, groups=groups))
    # Every later request ends by the audit's deadline; a stage with no time
    # left still runs, to read what is known.
    with auditor.session_.capped(deadline):
        suggestion = None
        if epsilon == "auto":
            suggestion = stages.run(
                "epsilon", lambda: _suggest(auditor, X, y, random_state)
            )
            epsilon = suggestion.epsilon
            auditor.set_params(epsilon=epsilon)
        top = epsilon if max_epsilon is None else max(max_epsilon, epsilon)
        steps = {
            "path": lambda: auditor.path(top),
            "measures": lambda: {
                "ambiguity": auditor.ambiguity_bounds(epsilon),
                "discrepancy": auditor.discrepancy_bounds(epsilon),
                "evidence": auditor.evidence(epsilon),
                "model": auditor.discrepancy_model(epsilon),
            },
        }
        if groups is not None:
            steps["groups"] = lambda: auditor.by_group(epsilon)
        done = {}
        for name in _stage_order(steps, total_time_limit):
            done[name] = stages.run(name, steps[name])
        sampling = stages.run(
            "sampling",
            lambda: SamplingAuditor.from_auditor(
                auditor, X, y, n_models=n_models, random_state=random_state
            ),
        )
    path, bounds, frame = done["path"], done["measures"], done.get("groups")
    timings = {**stages.timings, "total": sum(stages.timings.values())}
    return AuditReport(
        auditor=auditor,
        sampling=sampling,
        epsilon=float(epsilon),
        budget=float(auditor.error_budget(epsilon)),
        suggestion=suggestion,
        path=path,
        sampling_path=sampling.path(float(path["epsilon"].max())),
        bounds={m: bounds[m] for m in MEASURES},
        evidence=bounds["evidence"],
        discrepancy_model=bounds["model"],
        frame=frame,
        y=np.asarray(y),
        groups=None if groups is None else np.asarray(groups),
        dataset={
            "source": "data",
            "feature_names": [str(c) for c in X.columns],
            **(dataset or {}),
            "n_rows": int(len(y)),
            "classes": [plain(c) for c in auditor.classes_],
        },
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
    )


def _suggest(auditor, X, y, random_state):
    return suggest_epsilon(
        FrozenEstimator(auditor.estimator_),
        X,
        y,
        method="bootstrap",
        random_state=random_state,
    )
