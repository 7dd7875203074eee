"""Discrepancy bounds at every budget from what an audit already knows.

Discrepancy is non-decreasing in the budget: a pooled model within a budget
bounds it from below at every larger budget, a bound proven at a budget
bounds it from above at every smaller one, and it is at most the weight of
the patterns not proven unflippable and at most ``err(h0) + budget``.
:class:`DiscrepancyEnvelope` reads these bounds without a MIP.
"""

import numpy as np

from ...._core import TOLERANCE, Bounds


class DiscrepancyEnvelope:
    """Bounds from every result so far; mixed into
    :class:`~._discrepancy.DiscrepancyCertifier`, whose ``state`` (an
    :class:`~._state.AuditState`) they read."""

    def envelope(self, budgets):
        """Discrepancy bounds at each of ``budgets`` from every result so far.

        Discrepancy is non-decreasing in the budget: a pooled model within a
        budget bounds it from below, a bound proven at a larger budget from
        above.

        Returns
        -------
        list of Bounds
        """
        state = self.state
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        weights = state.problem.pattern_weight
        total = float(weights.sum())
        lower = np.zeros(budgets.size)
        models = state.pool.models
        if models:
            errors = np.array([m.errors for m in models])
            shares = np.array([state.disagreement(m, weights) for m in models]) / total
            order = np.argsort(errors, kind="stable")
            best = np.maximum.accumulate(shares[order])
            n_within = np.searchsorted(errors[order], budgets + TOLERANCE, side="right")
            some = n_within > 0
            lower[some] = best[n_within[some] - 1]
        upper = self.known_upper(budgets) / total
        for (cached_budget, key), result in state.discrepancies.items():
            if key == "all":
                below = cached_budget <= budgets + TOLERANCE
                lower[below] = np.maximum(lower[below], result.bounds.lower)
        return [
            Bounds(float(lo), float(max(lo, up)))
            for lo, up in zip(lower, upper, strict=True)
        ]

    def known_upper(self, budgets, weights=None, key="all"):
        """Most weight a model within each of ``budgets`` can flip, from what
        is known without a MIP: bounds proven at or above each budget
        (:meth:`proven_upper`), the weight of the patterns not proven
        unflippable (discrepancy is at most ambiguity) and ``err(h0) +
        budget`` (where a model and the baseline disagree, one of them errs;
        see :mod:`.._core._relations`).

        Returns
        -------
        ndarray of shape (n_budgets,)
            In units of weight.
        """
        state = self.state
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        weights = state.problem.pattern_weight if weights is None else weights
        total = float(weights.sum())
        related = [
            min(
                float(weights[state.maybe_flippable(budget)].sum()),
                state.baseline_errors + budget,
            )
            for budget in budgets
        ]
        return np.minimum(self.proven_upper(budgets, key) * total, related)

    def proven_upper(self, budgets, key="all"):
        """Smallest upper bounds (shares) proven for ``key`` at or above ``budgets``.

        Discrepancy is non-decreasing in the budget, so a bound proven at a
        larger budget holds at a smaller one too; 1 where nothing is proven.

        Returns
        -------
        ndarray of shape (n_budgets,)
        """
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        upper = np.ones(budgets.size)
        proven = [
            (cached_budget, result.bounds.upper)
            for (cached_budget, cached_key), result in self.state.discrepancies.items()
            if cached_key == key
        ]
        if proven:
            cached, bounds = np.array(sorted(proven)).T
            # Smallest bound at each cached budget or above.
            suffix_min = np.minimum.accumulate(bounds[::-1])[::-1]
            first = np.searchsorted(cached, budgets - TOLERANCE, side="left")
            some = first < cached.size
            upper[some] = np.minimum(upper[some], suffix_min[first[some]])
        return upper

    def open_budgets(self, budgets):
        """Indices of the ``budgets`` whose discrepancy is not certified yet."""
        return np.flatnonzero([not b.certified for b in self.envelope(budgets)])
