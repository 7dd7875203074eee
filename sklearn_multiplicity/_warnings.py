"""What ``MultiplicityAuditor.fit`` says up front about the audit it opens:
a large problem, a baseline outside the class or constant, constraints
left out."""

import warnings

import numpy as np

from ._core import TOLERANCE, LevelSet
from ._exceptions import ProblemSizeWarning

#: Distinct patterns above which exact audits rarely finish in minutes.
LARGE_PROBLEM_PATTERNS = 2000
#: Above this many patterns, high dimension or non-integer data make
#: certification unlikely (see ``warn_if_large``).
HARD_PROBLEM_PATTERNS = 300
HIGH_DIMENSION = 30


def warn_if_constraints_left_out(linear, constraints):
    """Say when the baseline was fitted under constraints the audit lacks.

    Its competitors would then be every model of the class, a question
    worth asking on purpose but easily asked by mistake.
    """
    own = getattr(getattr(linear, "estimator", linear), "constraints", None)
    own = getattr(linear, "constraints", None) or own
    if own and not constraints:
        warnings.warn(
            f"The estimator was fitted under constraints ({own!r}), but the "
            "auditor has none: its competitors need not meet them. Pass the "
            "same constraints=[...] to MultiplicityAuditor to audit within "
            "the constrained class.",
            UserWarning,
            stacklevel=4,
        )


def warn_if_large(summary, time_limit, total_time_limit):
    """Say up front when certification is unlikely, and what would help.

    Measured on 2 cores: COMPAS (329 binary patterns, 16 dimensions, affine
    identities) certifies in seconds; 569 continuous patterns in 6 dimensions
    (no identity rows, a weak relaxation) or 996 patterns in 50 dimensions do
    not certify in minutes.
    """
    n_patterns, dimension = summary.n_patterns, summary.n_dimensions
    reasons = []
    if n_patterns > LARGE_PROBLEM_PATTERNS:
        reasons.append("that many binary variables in every MIP")
    if n_patterns > HARD_PROBLEM_PATTERNS and dimension > HIGH_DIMENSION:
        reasons.append("high dimension")
    if n_patterns > HARD_PROBLEM_PATTERNS and summary.n_identities == 0:
        reasons.append("non-integer features (no affine-identity cuts)")
    if not reasons:
        return
    limit = (
        "no total time limit"
        if total_time_limit is None
        else (f"total_time_limit={total_time_limit:g} s a tolerance")
    )
    warnings.warn(
        f"{n_patterns} distinct feature patterns in {dimension} dimensions "
        f"({'; '.join(reasons)}): certification is unlikely within "
        f"time_limit={time_limit} s per MIP and {limit}; expect certified "
        "bounds rather than exact values. To certify, binarise or round the "
        "features (fewer patterns, integer data), use fewer features, audit a "
        "sample of the rows, or allow more time.",
        ProblemSizeWarning,
        stacklevel=4,
    )


def warn_if_outside_class(summary, lower_bound):
    """Say when the baseline errs less than the class's minimum error
    (``lower_bound``, certified): then small level sets may be empty."""
    if LevelSet.within(lower_bound, summary.baseline_errors):
        return
    remedy = "Increase max_weight or use weights='continuous'"
    if not summary.integer:
        remedy = "Decrease margin"
    warnings.warn(
        "The baseline makes fewer errors than any model of the hypothesis "
        f"class ({summary.hypothesis_class}); small level sets may be "
        f"empty. {remedy}.",
        UserWarning,
        stacklevel=4,
    )


def constant_class(predictions, classes):
    """The class of every prediction when there is only one, else ``None``.

    ``predictions`` are booleans (``True``: ``classes[1]``).
    """
    if predictions.all():
        return classes[1]
    if not predictions.any():
        return classes[0]
    return None


def warn_if_constant(auditor):
    """Say when the baseline gives every training row the same decision.

    Ambiguity and discrepancy then count the people that models within the
    tolerance of one-class-for-everyone decide otherwise: a question about
    that model, which the minimum error of the class puts in perspective.
    """
    label = auditor.baseline_constant_class_
    if label is None:
        return
    label = label.item() if isinstance(label, np.generic) else label
    lower, upper = auditor.min_error_bounds_
    errors = auditor.baseline_errors_
    remedy = ""
    if lower >= errors - TOLERANCE:
        best = f"No model of the class makes fewer errors (certified: {lower:g})."
    else:
        band, fewer = f"{lower:g}", f"{errors - lower:g}"
        if upper - lower > TOLERANCE:
            band = f"in [{lower:g}, {upper:g}]"
            fewer = f"{max(errors - upper, 0.0):g} to {fewer}"
        best = (
            f"The certified minimum error of the class is {band}: {fewer} fewer "
            "errors than the baseline."
        )
        remedy = (
            " A baseline closer to the minimum error (less regularisation; for "
            "the default baseline, more time for its minimum-error MIP) gives a "
            "level set of better models."
        )
    warnings.warn(
        f"The baseline is constant: it predicts {label!r} for every training "
        f"row ({errors:g} training errors, {auditor.baseline_error_:.2%}). "
        f"{best} The level set is built around this model: ambiguity and "
        "discrepancy count the people whom models within the tolerance of its "
        f"error decide otherwise than {label!r}.{remedy}",
        UserWarning,
        stacklevel=4,
    )
