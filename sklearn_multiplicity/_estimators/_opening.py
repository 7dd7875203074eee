"""Opening the audit of :class:`MultiplicityAuditor`, for two labels or K:
the fitted baseline, the session of its audit, its assessment and the groups
of the training rows."""

import time

import numpy as np
import pandas as pd

from .._core._validation import (
    check_binary_target,
    check_multiclass_target,
    check_tolerance,
    check_weights,
    resolve_threads,
)
from .._engine import FIT_SHARE, Deadline, MulticlassSession, require
from .._reporting._progress import bounds_progress
from .._reporting._warnings import (
    constant_class,
    warn_assessment,
    warn_if_constant,
    warn_if_constraints_left_out,
    warn_if_outside_class,
)
from . import _people as people
from ._baseline import Baseline, fit_baseline
from ._classifier import (
    is_multiclass,
    open_session,
    session_of,
    store_encoding,
    store_fit,
)


def open_audit(auditor, default, X, X_checked, y, sample_weight, groups):
    """Fit the baseline of ``auditor`` and open its audit, for two labels or
    K; returns ``auditor`` with its fitted attributes set.

    Labels become indices ``0 .. K-1`` into ``classes_`` here; two labels
    are the case K = 2, whose baseline predictions are booleans. Only the
    target's check, the session's family and the baseline's predictions
    depend on K.

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
    started = time.perf_counter()
    k_labels = is_multiclass(y)
    if k_labels:
        auditor.classes_, labels = check_multiclass_target(y)
        if auditor.constraints:
            require(MulticlassSession, "constraints", n_classes=auditor.classes_.size)
    else:
        auditor.classes_, labels = check_binary_target(y)
    weight = check_weights(sample_weight, X_checked)
    auditor.groups_ = check_groups(groups, len(y))
    unit_weight = None if sample_weight is None else weight
    baseline, session, min_error, auditor.assessment_ = baseline_and_session(
        auditor, default, X, y, labels, weight, unit_weight
    )
    auditor.estimator_, auditor._fitted_baseline = baseline.estimator, baseline
    predictions = baseline_predictions(baseline, X, auditor.classes_)
    if k_labels:
        session.start(predictions, *session.canonical(*baseline.scores))
    else:
        session.start(
            predictions, baseline.coef, baseline.intercept, min_error=min_error
        )
    auditor.session_, auditor._row_weight = session, weight
    # Per-person tables of the training rows keep the caller's row labels.
    auditor._row_index = X.index if isinstance(X, pd.DataFrame) else None
    summary = session.summary()
    record_summary(auditor, summary, predictions, weight)
    if auditor.groups_ is not None:
        session.watch_row_groups(auditor.groups_, weight)
    # The fit is the first part of the audit at ``epsilon``: its readings get
    # what the fit leaves of ``total_time_limit``.
    eps = check_tolerance(auditor.epsilon, auditor.classes_)
    session.charge_fit(session.budget(eps), time.perf_counter() - started)
    if not k_labels and not session.baseline_in_class():
        # Only then may the level sets be empty: worth the minimum error.
        warn_if_outside_class(summary, auditor.min_error_bounds_[0])
    warn_if_constant(auditor)
    return auditor


def baseline_and_session(auditor, default, X, y, labels, weight, sample_weight):
    """The fitted baseline, the session of the audit, its assessment and, when
    already solved, the minimum error of its class.

    The assessment (the session's ``assess``) comes before any MIP, and
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
    labels : ndarray of int
        The label index of every row.
    weight : ndarray
        The validated weight of every row.
    sample_weight : ndarray or None
        ``weight`` when the caller gave weights, else None.

    Returns
    -------
    baseline : Baseline
    session : Session
    min_error : MinErrorResult or None
        Two labels only: the default baseline's fit, which the session
        learns at ``start``.
    assessment : Assessment
    """
    k_labels = auditor.classes_.size > 2
    engine = {}
    if not k_labels:
        engine = {
            "n_jobs": resolve_threads(auditor.n_jobs),
            "strategy": auditor.strategy,
        }
    if default is not None:
        default._validate_params()
        session = open_session(
            default, X, y, sample_weight, groups=auditor.groups_, **engine
        )
        assessment = assess(auditor, session, None)
        limit = auditor.total_time_limit
        share = None if limit is None else FIT_SHARE * limit
        deadline = Deadline(share, per_mip=auditor.time_limit)
        with bounds_progress(auditor.verbose, limit, "minimum error") as seen:
            min_error = session.min_error(deadline, progress=seen)
        baseline = Baseline.of(store_fit(default, session, min_error))
        # Two labels: the session learns the fit at ``start``.
        return baseline, session, None if k_labels else min_error, assessment
    baseline = fit_baseline(auditor.estimator, X, y, sample_weight)
    warn_if_constraints_left_out(baseline.linear, auditor.constraints)
    names = baseline.feature_names
    session = session_of(
        auditor,
        baseline.audit_space(X),
        labels,
        weight,
        auditor.classes_.size,
        auditor.groups_,
        names,
        **engine,
    )
    return baseline, session, None, assess(auditor, session, names)


def assess(auditor, session, names):
    """The assessment of the audit ``auditor`` opens on ``session`` at its
    ``epsilon`` and ``total_time_limit``, told by a warning unless exact."""
    eps = check_tolerance(auditor.epsilon, auditor.classes_)
    if names is None:
        names = getattr(auditor, "feature_names_in_", None)
    extra = session.extra_errors(eps)
    assessment = session.assess(auditor.total_time_limit, extra, names)
    warn_assessment(assessment)
    return assessment


def record_summary(auditor, summary, predictions, weight):
    """The fitted attributes of ``auditor`` that the session's summary (a
    ``SessionSummary``) and the baseline's ``predictions`` give."""
    auditor.baseline_errors_ = summary.baseline_errors
    auditor.baseline_error_ = summary.baseline_errors / summary.total_weight
    store_encoding(auditor, summary)
    auditor.baseline_constant_class_ = constant_class(
        np.asarray(predictions, dtype=int)[weight > 0], auditor.classes_
    )


def baseline_predictions(baseline, X, classes):
    """The fitted baseline's prediction of every row of ``X``, checked to be
    its linear model's in the audit space: for two labels a boolean
    (``True``: the positive class, ``sign(coef . x + intercept)``), for K a
    label index (the argmax of the K linear scores)."""
    if not np.array_equal(np.asarray(baseline.linear.classes_), classes):
        raise ValueError("The baseline's classes_ differ from the labels of y.")
    Z = baseline.audit_space(X)
    predicted = np.asarray(baseline.estimator.predict(X))
    if classes.size == 2:
        predictions = predicted == classes[1]
        linear = Z @ baseline.coef + baseline.intercept > 0
        rule = "sign(coef_ . x + intercept_)"
    else:
        predictions = np.searchsorted(classes, predicted)
        coef, intercept = baseline.scores
        linear = np.argmax(Z @ coef.T + intercept, axis=1)
        rule = "the argmax of coef_ . x + intercept_"
    if np.any(linear != predictions):
        raise TypeError(
            f"The baseline's predictions are not {rule} in its feature space; "
            "only linear classifiers can be audited."
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
