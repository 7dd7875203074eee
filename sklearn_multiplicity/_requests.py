"""What every request of :class:`MultiplicityAuditor` shares, and the
coefficient ranges of a level set.

The functions behind :meth:`MultiplicityAuditor.refine`,
:meth:`~MultiplicityAuditor.error_budget` and
:meth:`~MultiplicityAuditor.coefficient_ranges`, with those methods'
docstrings. They take the session's records (:mod:`._engine.session._records`) and
the auditor's parameters.
"""

from numbers import Real

import pandas as pd
from sklearn.utils._param_validation import Interval, validate_params

# Docstrings of the auditor's requests.
REFINE = """Continue the audit of ``eps`` for ``seconds`` more.

    The audit of a tolerance is one computation that grows: the first
    call about ``eps`` (a measure, :meth:`evidence`, :meth:`by_group`,
    a scorer, a Display) runs it for at most ``total_time_limit``
    seconds, by one plan for both measures (and every group's
    discrepancy when ``fit`` had groups); later calls read what it
    certified, at no solver time. ``refine`` gives it more time: it
    continues from everything found and proven so far, so bounds only
    tighten.

    Parameters
    ----------
    {eps}
    seconds : float or None, default=None
        Seconds more (``None``: ``total_time_limit`` more, or no limit
        when that is ``None``).

    Returns
    -------
    self : MultiplicityAuditor
        The auditor, its audit of ``eps`` refined.
    """

ERROR_BUDGET = """Largest weighted training error of a model of the ``eps``-level set.

    Parameters
    ----------
    eps : float in [0, 1] or dict, default=None
        Error tolerance, or one per class label (on that class's error
        rate); defaults to the ``epsilon`` parameter.

    Returns
    -------
    float or dict
        ``err(h0) + eps * W``, the allowance rounded down to a whole
        number with integral weights. Per class, a dict with the largest
        weighted ``false_positives`` (``FP(h0) + eps_neg * W_neg``) and
        ``false_negatives`` (``FN(h0) + eps_pos * W_pos``); with more than
        two labels, a dict of the largest weighted error on each label's
        rows (``err_k(h0) + eps_k * W_k``), by label.
    """

COEFFICIENT_RANGES = """Least and largest weight of every feature over the level set.

    Two MIPs per weight of the canonical representation (columns that are
    affine combinations of others carry no weight and are left out),
    after the audit of ``eps`` (whose unflippable patterns keep the
    baseline's label in every level-set model) and one minimum-error MIP
    per sign that no known level-set model shows (infeasible: the sign is
    stable). Ends those MIPs leave open are narrowed by bisection:
    minimum-error MIPs with the weight bounded at a threshold, each
    either finding a model of the level set beyond it or proving there is
    none (a proof a second solver confirms).

    Parameters
    ----------
    {eps}

    Returns
    -------
    pandas.DataFrame
        One row per feature: ``feature``, ``min`` and ``max`` (weights
        in the normalisation of the hypothesis class, see Notes: the
        certified values, or inner bounds when a limit stopped a MIP),
        ``scale``, ``min_original`` and ``max_original`` (the same ends
        per unit of the audited feature), ``min_lower``,
        ``min_upper``, ``max_lower``, ``max_upper`` (certified bounds),
        ``sign`` (``"non-negative"``, ``"non-positive"``, ``"either"``
        or ``"unknown"``: stable when every model of the level set keeps
        it), ``certified`` (both ends' bounds at most ``1e-5`` apart, ten
        times the tolerance within which a solver's model counts as one
        of the class), and ``min_model``, ``max_model`` (fitted
        level-set models attaining the inner ends, or ``None``).

    Notes
    -----
    A linear classifier is unchanged by a positive rescaling of its
    weights and intercept, so a weight has a range only once the scale
    of the model is fixed: here, by the normalisation of the hypothesis
    class (``hypothesis_class_``). ``min``, ``max`` and the four bounds
    are weights of the canonical feature: with continuous weights, the
    feature min-max scaled over the training rows, ``(x - min(x)) /
    scale`` with ``scale = max(x) - min(x)``, every weight in
    ``[-1, 1]``; with integer weights, the feature itself (``scale`` is
    1), every weight an integer in ``[-max_weight, max_weight]``.
    ``min_original = min / scale`` and ``max_original = max / scale``
    are the same ends per unit of the feature as the audited estimator
    sees it (for a Pipeline, its transformed features): the coefficients
    that ``min_model`` and ``max_model`` have on it. Divide a bound by
    ``scale`` for its value in those units. Scaled ranges compare
    features of different units; original-unit ranges say how far the
    score of a model so normalised moves per unit of the feature.
    """


def seconds_to_grant(seconds, total_time_limit):
    """The seconds :meth:`MultiplicityAuditor.refine` grants, validated
    (``None``: ``total_time_limit``)."""
    _check_seconds(seconds)
    return total_time_limit if seconds is None else seconds


def budget_value(budget, classes):
    """What :meth:`MultiplicityAuditor.error_budget` returns of a budget
    (``classes``: the auditor's ``classes_``)."""
    if isinstance(budget, float):
        return budget
    if hasattr(budget, "ceilings"):  # per label, more than two labels
        labels = [c.item() if hasattr(c, "item") else c for c in classes]
        return dict(zip(labels, budget.ceilings, strict=True))
    return {
        "false_positives": budget.false_positives,
        "false_negatives": budget.false_negatives,
    }


def ranges_frame(ranges, names, estimator_of):
    """The table of :meth:`MultiplicityAuditor.coefficient_ranges`.

    Parameters
    ----------
    ranges : list of WeightRange
        The session's ranges.
    names : sequence of str or None
        Names of the columns of the audit space.
    estimator_of : callable
        The fitted estimator of a ``FoundModel`` (or None).

    Returns
    -------
    pandas.DataFrame
    """
    rows = []
    for weight in ranges:
        column, scale = weight.column, weight.scale
        least, largest = weight.least, weight.largest
        rows.append(
            {
                "feature": column if names is None else names[column],
                "min": least.upper,
                "max": largest.lower,
                "scale": scale,
                "min_original": least.upper / scale,
                "max_original": largest.lower / scale,
                "min_lower": least.lower,
                "min_upper": least.upper,
                "max_lower": largest.lower,
                "max_upper": largest.upper,
                "sign": weight.sign,
                "certified": weight.certified,
                "min_model": estimator_of(weight.least_model),
                "max_model": estimator_of(weight.largest_model),
            }
        )
    columns = ["feature", "min", "max", "scale", "min_original", "max_original"]
    columns += ["min_lower", "min_upper"]
    columns += ["max_lower", "max_upper", "sign", "certified"]
    columns += ["min_model", "max_model"]
    return pd.DataFrame(rows, columns=columns)


@validate_params(
    {"seconds": [Interval(Real, 0, None, closed="neither"), None]},
    prefer_skip_nested_validation=True,
)
def _check_seconds(seconds):
    """Validate the ``seconds`` of :meth:`MultiplicityAuditor.refine`."""
