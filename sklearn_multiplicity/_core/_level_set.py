"""The epsilon-level set, defined once: which error counts a model may make.

The level set at tolerance ``eps`` holds every model of the hypothesis class
whose weighted training error is at most ``err(h0) + eps * W`` (``W`` the total
weight). With integral weights the allowance ``eps * W`` is rounded down to a
whole error count, so with unit weights a model may make ``floor(eps * n)``
more errors than the baseline ``h0``.

With per-class tolerances ``{negative: eps_neg, positive: eps_pos}`` the level
set bounds the two kinds of error separately: false positives at most
``FP(h0) + eps_neg * W_neg`` and false negatives at most ``FN(h0) + eps_pos *
W_pos`` (``W_neg``, ``W_pos`` the total weight of each class, each allowance
rounded down with integral weights): a :class:`LabelCeilings`, with K
labels one ceiling per label.

Every comparison of an error count with a budget goes through this module, with
one slack, :data:`TOLERANCE`, against floating-point sums of weights.
"""

import math
from dataclasses import dataclass, field

import numpy as np

#: Absolute slack of every comparison of weighted error counts (and of shares):
#: far below one error, far above the rounding of sums of float weights.
TOLERANCE = 1e-9


def weight_unit(weights):
    """The unit in which MIPs count the weights ``weights``.

    Whole weights count in their greatest common divisor: the weights in
    that unit are coprime whole numbers, so error counts stay whole. Other
    weights count in the smallest positive one: the lightest row weighs 1,
    so no weight falls under the solvers' absolute tolerances. Either way,
    multiplying every weight by ``k`` (repeating every row ``k`` times)
    multiplies the unit by ``k`` and leaves the weights in that unit as
    they were.

    Parameters
    ----------
    weights : array-like of non-negative float

    Returns
    -------
    float
        Positive; 1.0 when no weight is positive.
    """
    weights = np.asarray(weights, dtype=float)
    positive = weights[weights > 0]
    if positive.size == 0:
        return 1.0
    whole = np.round(positive)
    if np.all(np.abs(positive - whole) < TOLERANCE) and whole.max() < 2.0**53:
        return float(np.gcd.reduce(whole.astype(np.int64)))
    return float(positive.min())


def error_ceiling(budget, total_weight, integral):
    """The largest weighted error that counts as within ``budget``.

    With integral weights, the whole error count ``floor(budget)``; otherwise
    ``budget`` plus a slack relative to the total weight.
    """
    if integral:
        return float(math.floor(budget + TOLERANCE))
    return budget + TOLERANCE * max(1.0, total_weight)


@dataclass(frozen=True, init=False)
class LabelCeilings:
    """The level set of per-label tolerances: the largest weighted error a
    model may make on each true label (its rows of that label), one per
    label in the order of the classes.

    The one budget type of per-label tolerances, for two labels and K: with
    two labels the ceilings are ``(false_positives, false_negatives)``, the
    errors on the negatives and on the positives (:data:`ClassBudget` is
    its two-label name). A model is in the level set iff every one of its
    per-label error counts is within its ceiling; :attr:`total` (their sum)
    bounds its overall error, so every scalar proof at ``total`` holds for
    the ceilings too.

    Parameters
    ----------
    *ceilings : float, or one sequence of float
        One ceiling per label.
    false_positives, false_negatives : float, optional
        Two labels by name, instead of ``ceilings``.
    """

    ceilings: tuple

    def __init__(self, *ceilings, false_positives=None, false_negatives=None):
        if not ceilings:
            ceilings = (false_positives, false_negatives)
        elif len(ceilings) == 1 and np.ndim(ceilings[0]) == 1:
            ceilings = tuple(ceilings[0])
        object.__setattr__(self, "ceilings", tuple(float(c) for c in ceilings))

    @property
    def total(self):
        """The overall error budget implied by the ceilings."""
        return float(sum(self.ceilings))

    @property
    def false_positives(self):
        """Two labels: the ceiling on the negatives' errors."""
        return self.ceilings[0]

    @property
    def false_negatives(self):
        """Two labels: the ceiling on the positives' errors."""
        return self.ceilings[1]

    def admits(self, *label_errors):
        """Whether per-label error counts are within the ceilings: one array
        of shape ``(K,)`` (or ``(K, n)``), or one argument per label
        (scalars or arrays, as ``admits(false_positives, false_negatives)``).
        """
        errors = label_errors[0] if len(label_errors) == 1 else label_errors
        errors = np.asarray(errors, dtype=float)
        limits = np.asarray(self.ceilings).reshape((-1,) + (1,) * (errors.ndim - 1))
        return np.all(LevelSet.within(errors, limits), axis=0)

    def within(self, other):
        """Whether every ceiling is at most ``other``'s (a ``LabelCeilings``)."""
        return all(
            mine <= theirs + TOLERANCE
            for mine, theirs in zip(self.ceilings, other.ceilings, strict=True)
        )

    def __format__(self, spec):
        if len(self.ceilings) == 2:
            return (
                f"FP<={format(self.false_positives, spec or 'g')}, "
                f"FN<={format(self.false_negatives, spec or 'g')}"
            )
        return (
            "errors per label <= ("
            + ", ".join(format(c, spec or "g") for c in self.ceilings)
            + ")"
        )


#: The two-label name of :class:`LabelCeilings`: false positives and false
#: negatives bounded apart.
ClassBudget = LabelCeilings


def covers(proven, ceiling):
    """Whether a proof within ``proven`` holds within ``ceiling``: every model
    within ``ceiling`` lies within ``proven``."""
    if isinstance(ceiling, LabelCeilings):
        if isinstance(proven, LabelCeilings):
            return ceiling.within(proven)
        return ceiling.total <= proven + TOLERANCE
    return not isinstance(proven, LabelCeilings) and ceiling <= proven + TOLERANCE


def admits(model, budget):
    """Whether a verified model lies within ``budget``: a weighted error (a
    number) or per-label ceilings (:class:`LabelCeilings`), for a model of
    two labels (its false positives and negatives) or of K (its errors per
    label)."""
    if isinstance(budget, LabelCeilings):
        label_errors = getattr(model, "label_errors", None)
        if label_errors is None:
            label_errors = (model.false_positives, model.false_negatives)
        return bool(budget.admits(label_errors))
    return bool(LevelSet.within(model.errors, budget))


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
    baseline_false_positives, baseline_false_negatives : float
        The baseline's two kinds of weighted error (per-class budgets).
    negative_weight, positive_weight : float
        Total weight of each class (per-class budgets).
    unit : float
        With integral weights, their greatest common divisor: every error
        count is a multiple of it (a path steps by it).
    """

    baseline_errors: float
    total_weight: float
    integral: bool
    # Per-class budgets only: the scalar level sets do not depend on them.
    baseline_false_positives: float = field(default=0.0, compare=False)
    baseline_false_negatives: float = field(default=0.0, compare=False)
    negative_weight: float = field(default=0.0, compare=False)
    positive_weight: float = field(default=0.0, compare=False)
    unit: float = field(default=1.0, compare=False)

    @classmethod
    def from_problem(cls, problem, baseline_errors, baseline=None):
        """The level sets of a :class:`~._problem.PatternProblem`.

        ``baseline`` (the baseline's prediction of every pattern) sets the
        baseline's false positives and negatives for per-class budgets.
        """
        fp = fn = 0.0
        if baseline is not None:
            z = np.asarray(baseline, dtype=float)
            fp = float(z @ problem.negative_weight)
            fn = float((1 - z) @ problem.positive_weight)
        return cls(
            float(baseline_errors),
            problem.total_weight,
            problem.weights_are_integral,
            fp,
            fn,
            float(problem.negative_weight.sum()),
            float(problem.positive_weight.sum()),
            problem.weight_unit if problem.weights_are_integral else 1.0,
        )

    @classmethod
    def from_weights(cls, weights, baseline_errors):
        """The level sets of training rows of weights ``weights``."""
        weights = np.asarray(weights, dtype=float)
        integral = bool(np.all(np.abs(weights - np.round(weights)) < TOLERANCE))
        unit = weight_unit(weights) if integral else 1.0
        return cls(float(baseline_errors), float(weights.sum()), integral, unit=unit)

    def extra_errors(self, eps):
        """The allowance ``eps * W`` (rounded down with integral weights)."""
        return self._allowance(eps, self.total_weight)

    def _allowance(self, eps, weight):
        extra = eps * weight
        if self.integral:
            extra = math.floor(extra + TOLERANCE)
        return float(extra)

    def budget(self, eps):
        """Largest weighted error of a model of the ``eps``-level set.

        ``eps`` may be a pair ``(eps_neg, eps_pos)`` of tolerances on the
        false positive and false negative rates: a :class:`ClassBudget`.
        """
        if isinstance(eps, tuple):
            eps_neg, eps_pos = eps
            return ClassBudget(
                self.baseline_false_positives
                + self._allowance(eps_neg, self.negative_weight),
                self.baseline_false_negatives
                + self._allowance(eps_pos, self.positive_weight),
            )
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

        With integral weights, every multiple of their :attr:`unit` of extra
        errors from 0 to ``floor(max_eps * W)``: error counts are multiples
        of the unit, so no level set differs from the one at the multiple
        below it (rows repeated ``k`` times give the path of the rows, not
        ``k`` times as many steps). Otherwise
        ``step``-spaced tolerances from 0 (``step`` defaults to a tenth of
        ``max_eps``).

        Returns
        -------
        epsilons, extras, budgets : ndarray
            The tolerances (shares), the extra errors they allow and the
            error budgets ``err(h0) + extra``.
        """
        total = self.total_weight
        if self.integral:
            top = self.extra_errors(max_eps) + TOLERANCE
            extras = np.arange(0, top, self.unit, dtype=float)
        else:
            step = step or max_eps / 10 or 1.0
            extras = np.arange(0, max_eps + 1e-12, step) * total
        return extras / total, extras, self.baseline_errors + extras
