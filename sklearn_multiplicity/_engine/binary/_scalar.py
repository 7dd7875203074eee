"""Ambiguity and discrepancy at scalar budgets, behind the same methods as
:class:`~._per_class.ClassBudgetCertifier`.

The session chooses one of the two certifiers by the budget's type
(:meth:`~._session.AuditSession.certifier`); every later question goes to
that certifier, whatever the kind of budget. At a scalar budget the answers
come from the flip bounds of :class:`~._state.AuditState`, which the
ambiguity and discrepancy certifiers raise and lower.
"""


class ScalarBudgetCertifier:
    """Ambiguity and discrepancy of an audit at scalar budgets.

    Parameters
    ----------
    state : AuditState
    ambiguity : AmbiguityCertifier
    discrepancy : DiscrepancyCertifier
    """

    def __init__(self, state, ambiguity, discrepancy):
        self.state = state
        self.ambiguity = ambiguity
        self.disagreement = discrepancy

    def certify(self, budget, deadline=None, progress=None, *, exact=False):
        """Settle every pattern at ``budget``; the undecided ones (see
        :meth:`~._ambiguity.AmbiguityCertifier.certify`)."""
        return self.ambiguity.certify(
            budget, exact=exact, deadline=deadline, progress=progress
        )

    def undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` is not certified yet."""
        return self.state.undetermined(budget, exact)

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        return self.state.ambiguity_bounds(budget, weights)

    def discrepancy(self, budget, *, weights=None, key="all", deadline=None):
        """Bounds on the largest weighted share flipped within ``budget``."""
        return self.disagreement.discrepancy(
            budget, weights=weights, key=key, deadline=deadline
        )

    def flippable(self, budget):
        """Patterns a verified model within ``budget`` flips."""
        return self.state.flippable(budget)

    def maybe_flippable(self, budget):
        """Patterns not proven unflippable within ``budget``."""
        return self.state.maybe_flippable(budget)

    def fewest_flip_errors(self, budget):
        """Per pattern, the fewest errors of a known model flipping it."""
        return self.state.flip_upper.copy()

    def witness(self, pattern, budget):
        """A verified model within ``budget`` flipping ``pattern``, or None."""
        if not self.state.flippable(budget)[pattern]:
            return None
        return self.state.witness_of(pattern)
