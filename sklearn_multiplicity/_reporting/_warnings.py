"""What ``MultiplicityAuditor`` says about the audit it opens and reads: its
assessment when certification is not expected, a baseline outside the class,
constant or far from the best models found, constraints left out.

The sentences are written here once; the command line and its reports render
the same ones."""

import os
import sys
import warnings

import numpy as np

from .._core import TOLERANCE, LevelSet
from .._exceptions import (
    BaselineGapWarning,
    CertificationWarning,
    ProblemSizeWarning,
)


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


def warn_assessment(assessment):
    """Say up front, in the words of the audit's :class:`Assessment`, when
    certification within the limit is not expected, and what would answer."""
    if assessment.regime == "exact":
        return
    warnings.warn(assessment.text(), ProblemSizeWarning, stacklevel=5)


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


def baseline_gap_words(baseline_errors, fewest, extra, min_error=None):
    """The sentence that says models of the class err less than the baseline
    by more than the tolerance allows, or may, or ``None`` when neither.

    A verified model that errs fewer makes the gap certain; a certified
    lower bound on the class's minimum error below the baseline's errors by
    more than the tolerance allows makes it possible, and is said as such.

    Parameters
    ----------
    baseline_errors : float
        The baseline's weighted training errors.
    fewest : float
        The errors of the best verified model of the class known.
    extra : float
        The weighted errors the tolerance allows beyond the baseline's.
    min_error : tuple of float or None
        Certified ``(lower, upper)`` on the class's minimum error, when known.
    """
    measures = (
        "mostly measures how far the baseline is from the best models of the "
        "class, not how much models as good as the best disagree."
    )
    if baseline_errors - fewest > extra + TOLERANCE:
        known = (
            ""
            if min_error is None
            else f" (certified minimum [{min_error[0]:g}, {min_error[1]:g}])"
        )
        return (
            f"The baseline makes {baseline_errors:g} training errors, and a "
            f"model of the class makes {fewest:g}{known}: "
            f"{baseline_errors - fewest:g} fewer, more than the {extra:g} extra "
            f"errors the tolerance allows. The ambiguity then {measures}"
        )
    if min_error is None or baseline_errors - min_error[0] <= extra + TOLERANCE:
        return None
    return (
        f"The baseline makes {baseline_errors:g} training errors, and the "
        f"class's minimum is certified only within [{min_error[0]:g}, "
        f"{min_error[1]:g}]: models of the class may make up to "
        f"{baseline_errors - min_error[0]:g} fewer, more than the {extra:g} "
        f"extra errors the tolerance allows. If they do, the ambiguity {measures} More "
        "time narrows the minimum."
    )


def warn_if_far_from_optimum(auditor, eps):
    """Say when a model found so far errs less than the baseline by more than
    the tolerance ``eps`` allows, or the class's certified minimum error
    leaves room for one (:class:`BaselineGapWarning`), at the caller's
    line."""
    session = auditor.session_
    words = baseline_gap_words(
        auditor.baseline_errors_,
        session.fewest_errors_found(),
        session.extra_errors(eps),
        min_error=session.known_min_error_bounds(),
    )
    if words is not None:
        warnings.warn(words, BaselineGapWarning, stacklevel=_outside_the_package())


def _outside_the_package():
    """The ``stacklevel`` of the first frame outside this package: a reading
    reaches the audit through a varying number of the library's calls."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        package + os.sep
    ):
        frame, level = frame.f_back, level + 1
    return level


def constant_class(predictions, classes):
    """The class of every prediction when there is only one, else ``None``.

    ``predictions`` are label indices into ``classes`` (two labels: 0 or 1).
    """
    seen = np.unique(predictions)
    return classes[seen[0]] if seen.size == 1 else None


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


def warn_held_out_undecided(undecided, eps):
    """Say how a held-out score reads the people a limit left undecided.

    ``undecided`` is the mask of the held-out people whose MIP a limit
    stopped: neither a level-set model flipping them nor a proof that none
    does is known (:class:`CertificationWarning`, at the caller's line).
    """
    if not undecided.any():
        return
    warnings.warn(
        f"{int(undecided.sum())} of {undecided.size} held-out people at "
        f"eps={eps} are undecided: a limit stopped their MIPs. The held-out "
        "ambiguity lies between the share certified contestable (its lower "
        "bound: ambiguity_scorer) and that share plus the undecided (its "
        "upper bound: neg_ambiguity_scorer, negated). A larger time_limit "
        "or total_time_limit decides more of them.",
        CertificationWarning,
        stacklevel=_outside_the_package(),
    )
