"""Group-wise multiplicity, read like fairlearn's ``MetricFrame``."""

import pandas as pd


class MultiplicityFrame:
    """Ambiguity and discrepancy overall and per group.

    Attributes
    ----------
    overall : pandas.Series
        The measures over all training people.
    by_group : pandas.DataFrame
        One row per group (index: the group), one column per measure:
        ``n`` (weight of the group), ``ambiguity``, ``ambiguity_lower``,
        ``ambiguity_upper``, ``discrepancy``, ``discrepancy_lower``,
        ``discrepancy_upper``.
    epsilon : float
    """

    def __init__(self, overall, by_group, epsilon):
        self.overall = overall
        self.by_group = by_group
        self.epsilon = epsilon

    def group_max(self):
        """Largest value of each measure over groups."""
        return self.by_group.max()

    def group_min(self):
        """Smallest value of each measure over groups."""
        return self.by_group.min()

    def difference(self):
        """``group_max() - group_min()`` of each measure."""
        return self.group_max() - self.group_min()

    def ratio(self):
        """``group_min() / group_max()`` of each measure (1 when all equal)."""
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
