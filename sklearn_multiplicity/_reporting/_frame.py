"""Group-wise multiplicity, read like fairlearn's ``MetricFrame``."""

import numpy as np
import pandas as pd

#: Columns that describe a group rather than measure it (never compared).
_WEIGHTS = ("n",)


class MultiplicityFrame:
    """Ambiguity and discrepancy overall and per group.

    Returned by :meth:`MultiplicityAuditor.by_group`; each parameter is
    stored as the attribute of the same name. The methods summarise the
    disparity between groups, like the aggregations of fairlearn's
    ``MetricFrame``.

    A measure ``m`` with columns ``m_lower`` and ``m_upper`` is known only
    within its certified bounds (a time limit can leave them apart), so its
    summaries are intervals too: each holds the summary of every choice of
    group values within the groups' bounds, and the summary's ``m`` is its
    lower bound, as in ``by_group``. When every group's bounds pin its value,
    the summaries are exact. A measure without bound columns is read as
    exact.

    Parameters
    ----------
    overall : pandas.Series
        The measures over all training people.
    by_group : pandas.DataFrame
        One row per group (index: the group), one column per measure:
        ``n`` (weight of the group), ``ambiguity``, ``ambiguity_lower``,
        ``ambiguity_upper``, ``discrepancy``, ``discrepancy_lower``,
        ``discrepancy_upper``. The value ``m`` of a measure is its certified
        lower bound; a frame may also hold values alone.
    epsilon : float
        The error tolerance of the level set the measures are computed on.

    See Also
    --------
    MultiplicityAuditor.by_group : Computes the frame.
    GroupAmbiguityDisplay : Draws ``by_group``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_multiplicity import MultiplicityFrame
    >>> by_group = pd.DataFrame(
    ...     {"ambiguity": [0.2, 0.5], "discrepancy": [0.1, 0.4]},
    ...     index=pd.Index(["A", "B"], name="group"))
    >>> frame = MultiplicityFrame(by_group.mean(), by_group, epsilon=0.05)
    >>> frame.difference()
    ambiguity      0.3
    discrepancy    0.3
    dtype: float64
    >>> float(frame.ratio()["ambiguity"])
    0.4

    With bounds, the difference is an interval: here group B's ambiguity may
    be anywhere in [0.5, 0.9].

    >>> by_group = pd.DataFrame(
    ...     {"ambiguity": [0.2, 0.5], "ambiguity_lower": [0.2, 0.5],
    ...      "ambiguity_upper": [0.2, 0.9]},
    ...     index=pd.Index(["A", "B"], name="group"))
    >>> frame = MultiplicityFrame(by_group.max(), by_group, epsilon=0.05)
    >>> frame.difference().round(6).to_dict()
    {'ambiguity': 0.3, 'ambiguity_lower': 0.3, 'ambiguity_upper': 0.7}
    """

    def __init__(self, overall, by_group, epsilon):
        self.overall = overall
        self.by_group = by_group
        self.epsilon = epsilon

    def group_max(self):
        """Largest value of each measure over groups.

        Returns
        -------
        pandas.Series
            One entry per column of ``by_group``. For a measure with bounds:
            the largest lower bound and the largest upper bound, which bound
            the largest group value; the value is the lower bound. ``n`` is
            the largest group weight.
        """
        return self._extreme("max")

    def group_min(self):
        """Smallest value of each measure over groups.

        Returns
        -------
        pandas.Series
            The entries of :meth:`group_max`, each the smallest over groups
            instead: the smallest lower and upper bounds bound the smallest
            group value.
        """
        return self._extreme("min")

    def _extreme(self, which):
        """``which`` (``"max"`` or ``"min"``) of every column over groups, the
        two bounds of a measure each on its own."""

        def pick(values):
            return getattr(values, which)()

        return self._summary(lambda lo, hi: (pick(lo), pick(hi)), pick, weights=True)

    def difference(self):
        """Difference between the largest and smallest group value of each measure.

        Returns
        -------
        pandas.Series
            One entry per measure of ``by_group`` (``n``, a weight, is left
            out). For a measure with bounds, the difference of the intervals
            :meth:`group_max` and :meth:`group_min`: lower bound
            ``max(0, max_g lower_g - min_g upper_g)`` (a difference is never
            negative), upper bound ``max_g upper_g - min_g lower_g``; the
            value is the lower bound. For values alone,
            ``group_max() - group_min()``.
        """

        def bounds(lo, hi):
            return np.maximum(0.0, lo.max() - hi.min()), hi.max() - lo.min()

        return self._summary(bounds, lambda v: v.max() - v.min())

    def ratio(self):
        """Ratio of the smallest to the largest group value of each measure.

        Returns
        -------
        pandas.Series
            One entry per measure of ``by_group`` (``n``, a weight, is left
            out): 1 when all groups are equal, NaN where the denominator is
            0. For a measure with bounds, the ratio of the intervals
            :meth:`group_min` and :meth:`group_max`: lower bound
            ``min_g lower_g / max_g upper_g``, upper bound
            ``min_g upper_g / max_g lower_g`` (at most 1: the smallest value
            never exceeds the largest); the value is the lower bound. For
            values alone, ``group_min() / group_max()``.
        """

        def bounds(lo, hi):
            upper = np.minimum(1.0, _divide(hi.min(), lo.max()))
            return _divide(lo.min(), hi.max()), upper

        return self._summary(bounds, lambda v: _divide(v.min(), v.max()))

    def _summary(self, bounds, value, weights=False):
        """``bounds(lower, upper)`` of each measure with bound columns (its
        value being the lower bound) and ``value(column)`` of any other
        column; the weight columns only when ``weights``."""
        columns = self.by_group.columns

        def bounded(name):
            return f"{name}_lower" in columns and f"{name}_upper" in columns

        out = {}
        for column in columns:
            name = str(column)
            for suffix in ("_lower", "_upper"):
                if name.endswith(suffix) and bounded(name.removesuffix(suffix)):
                    name = name.removesuffix(suffix)
            if name in out or (column in _WEIGHTS and not weights):
                continue
            if bounded(name):
                lo, hi = bounds(
                    self.by_group[f"{name}_lower"], self.by_group[f"{name}_upper"]
                )
                out.update({name: lo, f"{name}_lower": lo, f"{name}_upper": hi})
            else:
                out[column] = value(self.by_group[column])
        return pd.Series(out, dtype=float)

    def __repr__(self):
        return (
            f"MultiplicityFrame(epsilon={self.epsilon:g})\n"
            f"overall:\n{self.overall.to_string()}\n"
            f"by_group:\n{self.by_group.to_string()}"
        )


def _divide(numerator, denominator):
    """``numerator / denominator``, NaN when the denominator is 0."""
    return numerator / denominator if denominator != 0 else np.nan


def frame_from_rows(overall, rows, epsilon, index_name="group"):
    by_group = pd.DataFrame(rows).set_index(index_name)
    return MultiplicityFrame(pd.Series(overall, name="overall"), by_group, epsilon)
