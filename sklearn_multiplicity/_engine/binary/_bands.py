"""Reading the bands of an audit: both measures, related, with no solver call.

Every reported band goes through :meth:`BandReadings.related` (one level
set), :meth:`BandReadings.path_bounds` (along tolerances) or
:meth:`BandReadings.group_bounds` (across groups), which apply the relations
of :mod:`.._core._relations`.
"""

from ..._core import across_groups, along_budgets, disagreement_cap, within_level_set
from ._audit import read_discrepancy


class BandReadings:
    """The band readings of :class:`~._session.AuditSession`.

    Reads its ``problem``, ``state`` and ``ambiguity_bounds``.
    """

    def read(self, budget, weights=None, key="all"):
        """Both measures at ``budget`` as the state knows them, each related to
        the other (:meth:`related`), with no solver call.

        Returns
        -------
        ambiguity : Bounds
        discrepancy : DiscrepancyResult
        """
        result = read_discrepancy(self, budget, weights, key)
        ambiguity, _ = self.related(budget, result.bounds, weights)
        return ambiguity, result

    def related(self, budget, discrepancy, weights=None):
        """``(ambiguity, discrepancy)`` bounds at ``budget``, each tightened by
        the other and by ``err(h0) + budget`` (:mod:`.._core._relations`).

        Every reported pair of bounds goes through here, or through
        :meth:`path_bounds` and :meth:`group_bounds`, which call it.
        """
        ambiguity = self.ambiguity_bounds(budget, weights)
        return self.related_pair(budget, ambiguity, discrepancy, weights)

    def path_bounds(self, budgets, discrepancy):
        """Both measures along non-decreasing ``budgets``, related at each
        budget and made monotone along them.

        Parameters
        ----------
        budgets : sequence of float or ClassBudget
        discrepancy : sequence of Bounds
            The discrepancy bounds at each budget.

        Returns
        -------
        ambiguity, discrepancy : list of Bounds
        """
        pairs = [
            self.related(budget, disc)
            for budget, disc in zip(budgets, discrepancy, strict=True)
        ]
        ambiguity = along_budgets([amb for amb, _ in pairs])
        discrepancy = along_budgets([disc for _, disc in pairs])
        # Monotonicity may have moved one measure: relate them once more.
        pairs = [
            self.related_pair(budget, amb, disc)
            for budget, amb, disc in zip(budgets, ambiguity, discrepancy, strict=True)
        ]
        return [amb for amb, _ in pairs], [disc for _, disc in pairs]

    def related_pair(self, budget, ambiguity, discrepancy, weights=None):
        """:meth:`related` with the ambiguity bounds given."""
        weights = self.problem.pattern_weight if weights is None else weights
        cap = disagreement_cap(self.state.baseline_errors, budget, weights.sum())
        return within_level_set(ambiguity, discrepancy, cap)

    def group_bounds(self, budget, overall, groups, group_weights):
        """Overall and group bounds of both measures at ``budget``, related
        within each level set and across the groups (a partition).

        Parameters
        ----------
        overall : tuple of Bounds
            ``(ambiguity, discrepancy)`` over all people.
        groups : list of tuple of Bounds
            The same for each group.
        group_weights : list of ndarray
            Pattern weights of each group.

        Returns
        -------
        overall : tuple of Bounds
        groups : list of tuple of Bounds
        """
        sizes = [float(w.sum()) for w in group_weights]
        for _ in range(2):  # each relation can feed the other once
            overall = self.related_pair(budget, *overall)
            groups = [
                self.related_pair(budget, amb, disc, weights)
                for (amb, disc), weights in zip(groups, group_weights, strict=True)
            ]
            overall, groups = across_groups(overall, groups, sizes)
        return overall, groups

    def snapshot(self, budget):
        """What the audit of ``budget`` has decided so far, read without
        changing anything (safe from a progress thread).

        Returns
        -------
        dict
            ``total`` weight, weight ``flipped`` (certified flippable) and
            ``proven`` (unflippable), and ``disagreement``, the most weight a
            known model of the level set flips.
        """
        weights = self.problem.pattern_weight
        _, sure, maybe, _ = self.flip_evidence(budget)
        _, disagreement = self.state.best_within(budget, weights)
        return {
            "total": float(weights.sum()),
            "flipped": float(weights[sure].sum()),
            "proven": float(weights[~maybe].sum()),
            "disagreement": float(disagreement),
        }
