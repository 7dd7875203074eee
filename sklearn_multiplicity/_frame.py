"""Group-wise multiplicity, read like fairlearn's ``MetricFrame``."""

import pandas as pd


class MultiplicityFrame:
    """Ambiguity and discrepancy overall and per group.

    Returned by :meth:`MultiplicityAuditor.by_group`; each parameter is
    stored as the attribute of the same name. The methods summarise the
    disparity between groups, like the aggregations of fairlearn's
    ``MetricFrame``.

    Parameters
    ----------
    overall : pandas.Series
        The measures over all training people.
    by_group : pandas.DataFrame
        One row per group (index: the group), one column per measure:
        ``n`` (weight of the group), ``ambiguity``, ``ambiguity_lower``,
        ``ambiguity_upper``, ``discrepancy``, ``discrepancy_lower``,
        ``discrepancy_upper``.
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
            One entry per column of ``by_group``.
        """
        return self.by_group.max()

    def group_min(self):
        """Smallest value of each measure over groups.

        Returns
        -------
        pandas.Series
            One entry per column of ``by_group``.
        """
        return self.by_group.min()

    def difference(self):
        """Difference between the largest and smallest group value of each measure.

        Returns
        -------
        pandas.Series
            ``group_max() - group_min()``, one entry per column of
            ``by_group``.
        """
        return self.group_max() - self.group_min()

    def ratio(self):
        """Ratio of the smallest to the largest group value of each measure.

        Returns
        -------
        pandas.Series
            ``group_min() / group_max()``, one entry per column of
            ``by_group``: 1 when all groups are equal, NaN when they are
            all 0.
        """
        return self.group_min() / self.group_max()

    def __repr__(self):
        return (
            f"MultiplicityFrame(epsilon={self.epsilon:g})\n"
            f"overall:\n{self.overall.to_string()}\n"
            f"by_group:\n{self.by_group.to_string()}"
        )


def frame_from_rows(overall, rows, epsilon, index_name="group"):
    by_group = pd.DataFrame(rows).set_index(index_name)
    return MultiplicityFrame(pd.Series(overall, name="overall"), by_group, epsilon)
