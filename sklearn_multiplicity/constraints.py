"""Constraints on the competing models: sparsity, signs and group rates.

Pass a list of them as ``constraints=`` to :class:`ZeroOneLinearClassifier`
(the 0-1 optimal model under the constraints) or to
:class:`MultiplicityAuditor` (the baseline and every model of its level sets
meet them). Each adds variables and rows to every mixed-integer program of
the audit, so every result stays exact, now over the constrained class.
Features are named by their column in the audit space (the baseline's
feature space): an index, or a name when the columns have names.

Examples
--------
>>> import numpy as np
>>> from sklearn_multiplicity import ZeroOneLinearClassifier
>>> from sklearn_multiplicity.constraints import MaxNonzero, Signs
>>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
>>> y = np.array([0, 0, 1, 1] * 5)
>>> clf = ZeroOneLinearClassifier(constraints=[MaxNonzero(1), Signs({0: 1})])
>>> clf.fit(X, y).n_errors_
0.0
"""

import numbers

import numpy as np

from ._mip import NonzeroRows, RateGapRows, SignRows

__all__ = ["GroupRateGap", "MaxNonzero", "Signs"]


class _Constraint:
    """Equality and repr by parameters, like an estimator's."""

    def _params(self):
        return dict(vars(self))

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = self._params(), other._params()
        return mine.keys() == theirs.keys() and all(
            np.array_equal(
                np.asarray(mine[k], dtype=object), np.asarray(theirs[k], dtype=object)
            )
            for k in mine
        )

    __hash__ = None

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"


class MaxNonzero(_Constraint):
    """At most ``k`` non-zero weights (a sparse model).

    Counted on the weights of the canonical representation (affinely
    redundant columns have none), with one binary indicator per weight.
    When it is the only constraint besides :class:`Signs` and the class has
    at most 20,000 supports of ``k`` weights (each with at most 256 distinct
    patterns on its columns), the minimum error, ambiguity, discrepancy,
    their paths and coefficient ranges are solved support by support
    instead (exactly: the class is the union of its supports' classes).

    Parameters
    ----------
    k : int
        Largest number of non-zero weights (``0``: constant models only).
    """

    def __init__(self, k):
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise ValueError(f"MaxNonzero needs a non-negative integer k, got {k!r}.")
        self.k = int(k)

    def bind(self, context):
        """The rows of this constraint on one pattern problem.

        Parameters
        ----------
        context : ConstraintContext
            The pattern problem and what else the constraint needs.

        Returns
        -------
        NonzeroRows
            Indicator variables and rows for every MIP of the problem.
        """
        return NonzeroRows(self.k, context.problem.n_kept)


class Signs(_Constraint):
    """Fixed signs of some weights: monotone in a feature, or leaving it out.

    Parameters
    ----------
    signs : dict
        Maps a feature (index or name in the audit space) to ``+1`` (weight
        ``>= 0``: predictions non-decreasing in the feature), ``-1``
        (weight ``<= 0``) or ``0`` (weight ``0``: the feature is left out).
    """

    def __init__(self, signs):
        if not isinstance(signs, dict) or not signs:
            raise ValueError(
                f"Signs needs a non-empty dict {{feature: +1, -1 or 0}}, got {signs!r}."
            )
        for key, sign in signs.items():
            if isinstance(sign, bool) or sign not in (-1, 0, 1):
                raise ValueError(
                    f"The sign of feature {key!r} must be +1, -1 or 0, got {sign!r}."
                )
        self.signs = dict(signs)

    def bind(self, context):
        """The bounds of this constraint on one pattern problem.

        Parameters
        ----------
        context : ConstraintContext
            The pattern problem and the audit space's feature names.

        Returns
        -------
        SignRows
            Bounds on the canonical weights.
        """
        signs = np.full(context.problem.n_kept, np.nan)
        names = []
        for key, sign in self.signs.items():
            signs[context.canonical(key)] = sign
            names.append(f"{key} {dict([(1, '>= 0'), (-1, '<= 0'), (0, '= 0')])[sign]}")
        return SignRows(signs, names)


class GroupRateGap(_Constraint):
    """A rate of every group within ``max_gap`` of every other group's.

    Parameters
    ----------
    groups : array-like of shape (n_samples,), default=None
        The group of every training row; ``None`` uses the ``groups``
        passed to ``fit``.
    rate : {"selection", "fpr", "fnr"}, default="selection"
        Share predicted positive, false positive rate (among the group's
        negatives) or false negative rate (among its positives), weighted by
        ``sample_weight``.
    max_gap : float in [0, 1], default=0.05
        Largest difference between the rates of two groups.
    """

    def __init__(self, groups=None, rate="selection", max_gap=0.05):
        if rate not in ("selection", "fpr", "fnr"):
            raise ValueError(f"rate must be 'selection', 'fpr' or 'fnr', got {rate!r}.")
        if (
            isinstance(max_gap, bool)
            or not isinstance(max_gap, numbers.Real)
            or not 0 <= max_gap <= 1
        ):
            raise ValueError(f"max_gap must be a number in [0, 1], got {max_gap!r}.")
        self.groups = groups
        self.rate = rate
        self.max_gap = float(max_gap)

    def bind(self, context):
        """The rows of this constraint on one pattern problem.

        Parameters
        ----------
        context : ConstraintContext
            The pattern problem, labels, weights and groups of the rows.

        Returns
        -------
        RateGapRows
            One row per pair of groups.
        """
        groups = context.groups if self.groups is None else np.asarray(self.groups)
        problem = context.problem
        n = problem.inverse.shape[0]
        if groups is None:
            raise ValueError(
                "GroupRateGap needs groups: pass groups= to fit or to GroupRateGap."
            )
        if groups.ndim != 1 or groups.shape[0] != n:
            raise ValueError(
                f"GroupRateGap groups have shape {groups.shape}; expected ({n},)."
            )
        counted = {
            "selection": np.ones(n, dtype=bool),
            "fpr": context.y01 == 0,
            "fnr": context.y01 == 1,
        }[self.rate]
        active = problem.inverse >= 0
        labels = np.unique(groups[active])
        if labels.size < 2:
            raise ValueError("GroupRateGap needs at least two groups among the rows.")
        share = []
        for g in labels:
            rows = active & counted & (groups == g)
            weight = np.bincount(
                problem.inverse[rows],
                weights=context.weight[rows],
                minlength=problem.n_patterns,
            )
            if weight.sum() <= 0:
                kind = {"selection": "", "fpr": "negative ", "fnr": "positive "}
                raise ValueError(
                    f"Group {g!r} has no {kind[self.rate]}rows of positive "
                    f"weight: its {self.rate} rate is undefined."
                )
            share.append(weight)
        integral = bool(context.integer and problem.weights_are_integral)
        return RateGapRows(labels, np.array(share), self.rate, self.max_gap, integral)
