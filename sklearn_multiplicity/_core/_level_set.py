"""The epsilon-level set, defined once: which error counts a model may make.

The level set at tolerance ``eps`` holds every model of the hypothesis class
whose weighted training error is at most ``err(h0) + eps * W`` (``W`` the total
weight). With integral weights the allowance ``eps * W`` is rounded down to a
whole error count, so with unit weights a model may make ``floor(eps * n)``
more errors than the baseline ``h0``.

Every comparison of an error count with a budget goes through this module, with
one slack, :data:`TOLERANCE`, against floating-point sums of weights.
"""

import math
from dataclasses import dataclass

import numpy as np

#: Absolute slack of every comparison of weighted error counts (and of shares):
#: far below one error, far above the rounding of sums of float weights.
TOLERANCE = 1e-9


def error_ceiling(budget, total_weight, integral):
    """The largest weighted error that counts as within ``budget``.

    With integral weights, the whole error count ``floor(budget)``; otherwise
    ``budget`` plus a slack relative to the total weight.
    """
    if integral:
        return float(math.floor(budget + TOLERANCE))
    return budget + TOLERANCE * max(1.0, total_weight)


@dataclass(frozen=True)
class LevelSet:
    """Error budgets of the level sets around one baseline.

    Parameters
    ----------
    baseline_errors : float
        Weighted training errors of the baseline ``h0``.
    total_weight : float
        Total weight ``W`` of the training rows.
    integral : bool
        Whether every weight is a whole number (error counts are then
        whole numbers too).
    """

    baseline_errors: float
    total_weight: float
    integral: bool

    @classmethod
    def from_problem(cls, problem, baseline_errors):
        """The level sets of a :class:`~._problem.PatternProblem`."""
        return cls(
            float(baseline_errors),
            problem.total_weight,
            problem.weights_are_integral,
        )

    @classmethod
    def from_weights(cls, weights, baseline_errors):
        """The level sets of training rows of weights ``weights``."""
        weights = np.asarray(weights, dtype=float)
        integral = bool(np.all(np.abs(weights - np.round(weights)) < TOLERANCE))
        return cls(float(baseline_errors), float(weights.sum()), integral)

    def extra_errors(self, eps):
        """The allowance ``eps * W`` (rounded down with integral weights)."""
        extra = eps * self.total_weight
        if self.integral:
            extra = math.floor(extra + TOLERANCE)
        return float(extra)

    def budget(self, eps):
        """Largest weighted error of a model of the ``eps``-level set."""
        return self.baseline_errors + self.extra_errors(eps)

    @staticmethod
    def within(errors, budget):
        """Whether error counts ``errors`` (scalar or array) are within ``budget``."""
        return np.asarray(errors) <= budget + TOLERANCE

    def above(self, budget):
        """The smallest error count strictly above ``budget``.

        A pattern proven unflippable within ``budget`` needs at least this
        many errors to flip.
        """
        if self.integral:
            return error_ceiling(budget, self.total_weight, True) + 1.0
        return error_ceiling(budget, self.total_weight, False)

    def grid(self, max_eps, step=None):
        """The tolerances of a path up to ``max_eps``.

        With integral weights, every whole number of extra errors from 0 to
        ``floor(max_eps * W)``; otherwise ``step``-spaced tolerances from 0
        (``step`` defaults to a tenth of ``max_eps``).

        Returns
        -------
        epsilons, extras, budgets : ndarray
            The tolerances (shares), the extra errors they allow and the
            error budgets ``err(h0) + extra``.
        """
        total = self.total_weight
        if self.integral:
            extras = np.arange(0, self.extra_errors(max_eps) + 1, dtype=float)
        else:
            step = step or max_eps / 10 or 1.0
            extras = np.arange(0, max_eps + 1e-12, step) * total
        return extras / total, extras, self.baseline_errors + extras
