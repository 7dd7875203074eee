"""Opening the audit of :class:`MultiplicityAuditor` on two labels: the
fitted baseline, the session of its audit and the groups of the training
rows."""

import numpy as np
import pandas as pd

from . import _people as people
from ._baseline import Baseline, fit_baseline
from ._classifier import open_session, store_fit
from ._core._validation import (
    PerClassEpsilon,
    check_binary_target,
    check_tolerance,
    check_weights,
    resolve_threads,
)
from ._engine import AuditSession, Deadline
from ._progress import bounds_progress
from ._warnings import (
    constant_class,
    warn_assessment,
    warn_if_constant,
    warn_if_constraints_left_out,
    warn_if_outside_class,
)


def open_binary_audit(auditor, default, X, X_checked, y, sample_weight, groups):
    """Fit the baseline of ``auditor`` on two labels and open its audit;
    returns ``auditor`` with its fitted attributes set.

    Parameters
    ----------
    auditor : MultiplicityAuditor
    default : ZeroOneLinearClassifier or None
        The default baseline, fitted here, when the auditor has no
        ``estimator``.
    X : the training features as given; X_checked : validated.
    y : ndarray of shape (n_samples,)
    sample_weight, groups : as given to ``fit``.
    """
    auditor.classes_, y01 = check_binary_target(y)
    weight = check_weights(sample_weight, X_checked)
    auditor.groups_ = check_groups(groups, len(y))
    unit_weight = None if sample_weight is None else weight
    baseline, session, min_error, auditor.assessment_ = baseline_and_session(
        auditor, default, X, y, y01, weight, unit_weight
    )
    auditor.estimator_, auditor._fitted_baseline = baseline.estimator, baseline
    predictions = linear_predictions(baseline, X, auditor.classes_)
    session.start(predictions, baseline.coef, baseline.intercept, min_error=min_error)
    auditor.session_, auditor._row_weight = session, weight
    # Per-person tables of the training rows keep the caller's row labels.
    auditor._row_index = X.index if isinstance(X, pd.DataFrame) else None
    summary = session.summary()
    record_summary(auditor, summary, predictions, weight)
    if auditor.groups_ is not None:
        session.watch_row_groups(auditor.groups_, weight)
    if not session.baseline_in_class():
        # Only then may the level sets be empty: worth the minimum error.
        warn_if_outside_class(summary, auditor.min_error_bounds_[0])
    warn_if_constant(auditor)
    return auditor


def baseline_and_session(auditor, default, X, y, y01, weight, sample_weight):
    """The fitted baseline, the session of the audit, its assessment and, when
    already solved, the minimum error of its class.

    The assessment (:meth:`AuditSession.assess`) comes before any MIP, and
    ``fit`` warns with it (:class:`ProblemSizeWarning`) when certification
    within ``total_time_limit`` is not expected.

    The default baseline, the 0-1 optimal classifier, is the session's own
    minimum-error model: one minimum-error MIP, not the same MIP twice.

    Parameters
    ----------
    auditor : MultiplicityAuditor
        The auditor being fitted (its parameters and ``groups_``).
    default : ZeroOneLinearClassifier or None
        The default baseline, fitted here, when the auditor has no
        ``estimator``.
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
    assessment : Assessment
    """
    threads = resolve_threads(auditor.n_jobs)
    engine = {"n_jobs": threads, "strategy": auditor.strategy}
    if default is not None:
        default._validate_params()
        groups = auditor.groups_
        session = open_session(default, X, y, sample_weight, groups=groups, **engine)
        assessment = assess(auditor, session, None)
        limit = auditor.total_time_limit
        deadline = Deadline(limit, per_mip=auditor.time_limit)
        with bounds_progress(auditor.verbose, limit, "minimum error") as seen:
            min_error = session.min_error(deadline, progress=seen)
        baseline = Baseline.of(store_fit(default, session, min_error))
        return baseline, session, min_error, assessment
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
    return baseline, session, None, assess(auditor, session, baseline.feature_names)


def assess(auditor, session, names):
    """The assessment of the audit ``auditor`` opens on ``session`` at its
    ``epsilon`` and ``total_time_limit``, told by a warning unless exact."""
    problem = session.problem
    eps = check_tolerance(auditor.epsilon, auditor.classes_)
    if isinstance(eps, PerClassEpsilon):
        negative, positive = problem.negative_weight, problem.positive_weight
        extra = eps[0] * negative.sum() + eps[1] * positive.sum()
    else:
        extra = eps * problem.total_weight
    if problem.weights_are_integral:
        extra = float(np.floor(extra + 1e-9))
    if names is None:
        names = getattr(auditor, "feature_names_in_", None)
    assessment = session.assess(auditor.total_time_limit, extra, names)
    warn_assessment(assessment)
    return assessment


def record_summary(auditor, summary, predictions, weight):
    """The fitted attributes of ``auditor`` that the session's summary (a
    ``SessionSummary``) and the baseline's ``predictions`` give."""
    auditor.baseline_errors_ = summary.baseline_errors
    auditor.baseline_error_ = summary.baseline_errors / summary.total_weight
    auditor.n_patterns_ = summary.n_patterns
    auditor.n_identities_ = summary.n_identities
    auditor.hypothesis_class_ = summary.hypothesis_class
    auditor.constraints_ = summary.constraints
    auditor.baseline_constant_class_ = constant_class(
        predictions[weight > 0], auditor.classes_
    )


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


def value_or_lower_bound(bounds, eps, name):
    """The certified value of measure ``name`` at ``eps`` (a ``Bounds``), or
    its certified lower bound with a :class:`CertificationWarning`."""
    if not bounds.certified:
        people.warn_uncertified(name, eps, bounds)
    return bounds.lower
