"""Opening the audit of a K-class baseline (K >= 3) for
:class:`MultiplicityAuditor`.

The K-class audit measures ambiguity (the share of people whose label some
model of the level set changes) and discrepancy (the largest share one such
model changes) over the K-class hypothesis class of
:mod:`._core._multiclass`, with certified bounds under time limits.
"""

import numpy as np

from ._baseline import Baseline, fit_baseline
from ._classifier import open_multiclass_session, store_multiclass_fit
from ._core._validation import check_multiclass_target, check_weights, resolve_threads
from ._engine import Deadline, MulticlassSession
from ._opening import check_groups
from ._progress import bounds_progress


def open_multiclass_audit(auditor, default, X, X_checked, y, sample_weight, groups):
    """Fit the baseline of ``auditor`` on K-class data and open its audit.

    Sets ``classes_``, ``estimator_``, ``session_`` and the summary
    attributes of ``auditor``.

    Parameters
    ----------
    auditor : MultiplicityAuditor
    default : ZeroOneLinearClassifier or None
        The default baseline, fitted here, when the auditor has no
        ``estimator``.
    X : the training features as given; X_checked : validated.
    y : ndarray of shape (n_samples,)
    sample_weight : array-like or None
    groups : array-like or None
        The group of every row (for ``by_group``).
    """
    if auditor.constraints:
        raise ValueError(
            "constraints (MaxNonzero, Signs, GroupRateGap) apply to two labels; "
            "the target has more."
        )
    auditor.classes_, labels = check_multiclass_target(y)
    weight = check_weights(sample_weight, X_checked)
    auditor.groups_ = check_groups(groups, len(y))
    if default is not None:
        default._validate_params()
        session = open_multiclass_session(default, X, y, sample_weight)
        limit = auditor.total_time_limit
        deadline = Deadline(limit, per_mip=auditor.time_limit)
        with bounds_progress(auditor.verbose, limit, "minimum error") as seen:
            fit = session.min_error(deadline, progress=seen)
        baseline = Baseline.of(store_multiclass_fit(default, session, fit))
    else:
        baseline = fit_baseline(auditor.estimator, X, y, sample_weight)
        session = MulticlassSession.from_data(
            baseline.audit_space(X),
            labels,
            weight,
            np.arange(auditor.classes_.size),
            solver=auditor.solver,
            margin=auditor.margin,
            threads=resolve_threads(auditor.n_jobs),
        )
    predicted = baseline_labels(baseline, X, auditor.classes_)
    coef, intercept = baseline.scores
    session.start(predicted, *session.canonical(coef, intercept))
    if auditor.groups_ is not None:
        session.watch_row_groups(auditor.groups_, weight)
    auditor.estimator_, auditor._fitted_baseline = baseline.estimator, baseline
    auditor.session_, auditor._row_weight = session, weight
    auditor._row_index = getattr(X, "index", None)
    summary = session.summary()
    auditor.assessment_ = None
    auditor.baseline_errors_ = summary.baseline_errors
    auditor.baseline_error_ = summary.baseline_errors / summary.total_weight
    auditor.n_patterns_ = summary.n_patterns
    auditor.n_identities_ = 0
    auditor.hypothesis_class_ = summary.hypothesis_class
    auditor.constraints_ = []
    auditor.baseline_constant_class_ = None
    return auditor


def baseline_labels(baseline, X, classes):
    """The fitted K-class baseline's label (index into ``classes``) of every
    row of ``X``, checked to be the argmax of its linear scores."""
    linear_classes = np.asarray(baseline.linear.classes_)
    if not np.array_equal(linear_classes, classes):
        raise ValueError("The baseline's classes_ differ from the labels of y.")
    predicted = np.searchsorted(classes, np.asarray(baseline.estimator.predict(X)))
    coef, intercept = baseline.scores
    scores = baseline.audit_space(X) @ coef.T + intercept
    if np.any(np.argmax(scores, axis=1) != predicted):
        raise TypeError(
            "The baseline's predictions are not the argmax of coef_ . x + "
            "intercept_ in its feature space; only linear classifiers can be "
            "audited."
        )
    return predicted
