"""What every request of :class:`MultiplicityAuditor` shares, and the
coefficient ranges of a level set.

The functions behind :meth:`MultiplicityAuditor.refine`,
:meth:`~MultiplicityAuditor.error_budget` and
:meth:`~MultiplicityAuditor.coefficient_ranges`. They take the session's
records (:mod:`.._engine._records`) and the auditor's parameters.
"""

from numbers import Real

import pandas as pd
from sklearn.utils._param_validation import Interval, validate_params


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
    if classes.size > 2:  # per label
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
