"""Opening the audit of :class:`MultiplicityAuditor`: the fitted baseline,
the session of its audit and the groups of the training rows."""

import numpy as np
import pandas as pd

from ._baseline import Baseline, fit_baseline
from ._core._validation import resolve_threads
from ._engine import AuditSession, Deadline
from ._warnings import warn_if_constraints_left_out, warn_if_large


def baseline_and_session(auditor, X, y, y01, weight, sample_weight):
    """The fitted baseline, the session of the audit and, when already solved,
    the minimum error of its class.

    The default baseline, the 0-1 optimal classifier, is the session's own
    minimum-error model: one minimum-error MIP, not the same MIP twice.

    Parameters
    ----------
    auditor : MultiplicityAuditor
        The auditor being fitted (its parameters and ``groups_``).
    X, y : the training data as given to ``fit``.
    y01 : ndarray of int
        The labels in {0, 1}.
    weight : ndarray
        The validated weight of every row.
    sample_weight : ndarray or None
        ``weight`` when the caller gave weights, else None.

    Returns
    -------
    baseline : Baseline
    session : AuditSession
    min_error : MinErrorResult or None
    """
    threads = resolve_threads(auditor.n_jobs)
    engine = {"n_jobs": threads, "strategy": auditor.strategy}
    if auditor.estimator is None:
        classifier = auditor._default()
        classifier._validate_params()
        groups = auditor.groups_
        session = classifier._session(X, y, sample_weight, groups=groups, **engine)
        warn_if_large(session.summary(), auditor.time_limit, auditor.total_time_limit)
        deadline = Deadline(auditor.total_time_limit, per_mip=auditor.time_limit)
        min_error = session.min_error(deadline)
        return Baseline.of(classifier._store(session, min_error)), session, min_error
    baseline = fit_baseline(auditor.estimator, X, y, sample_weight)
    warn_if_constraints_left_out(baseline.linear, auditor.constraints)
    names = ["solver", "weights", "margin", "max_weight", "cuts", "random_state"]
    session = AuditSession.from_data(
        baseline.audit_space(X),
        y01,
        weight,
        threads=threads,
        verbose=auditor.verbose,
        constraints=auditor.constraints,
        groups=auditor.groups_,
        feature_names=baseline.feature_names,
        **engine,
        **{n: getattr(auditor, n) for n in names},
    )
    warn_if_large(session.summary(), auditor.time_limit, auditor.total_time_limit)
    return baseline, session, None


def linear_predictions(baseline, X, classes):
    """The fitted baseline's prediction of every row of ``X`` (``True``: the
    positive class), checked to be its linear model's in the audit space."""
    if not np.array_equal(np.asarray(baseline.linear.classes_), classes):
        raise ValueError("The baseline's classes_ differ from the labels of y.")
    Z = baseline.audit_space(X)
    predictions = np.asarray(baseline.estimator.predict(X)) == classes[1]
    if np.any((Z @ baseline.coef + baseline.intercept > 0) != predictions):
        raise TypeError(
            "The baseline's predictions are not sign(coef_ . x + intercept_) "
            "in its feature space; only linear classifiers can be audited."
        )
    return predictions


def check_groups(groups, n):
    """The ``groups`` of ``fit`` as an array of one group per row (or None)."""
    if groups is None:
        return None
    groups = np.asarray(groups)
    if groups.ndim != 1 or groups.shape[0] != n:
        raise ValueError(
            f"groups has shape {groups.shape}; expected ({n},), one group per row."
        )
    if pd.isna(groups).any():
        raise ValueError("groups contains missing values.")
    return groups
