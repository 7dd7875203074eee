"""Rate gaps met class by class: a threshold per offset class of patterns.

Under a :class:`~sklearn_multiplicity.constraints.GroupRateGap` whose groups
are told apart by columns of the audit space (one-hot race columns, say),
the weights of those columns and the intercept shift the scores of each
class of patterns that share their values by an amount of its own. For a
direction of the other weights, a model is then one threshold per class,
and the best ones are a small exact search: for a window ``[L, L + gap]``
of rates, each class takes its cut of fewest errors among those that keep
the rates of its groups in the window, and the window's floor ``L`` runs
over every rate a group reaches. For disagreement with the baseline, each
window is a knapsack with one choice per class: the cuts of most
disagreement whose errors together meet the budget. A random ascent over
directions, each scored by that exact search, finds the directions.

A single threshold of the same direction moves every group's rate at once,
so under a tight gap few of them qualify (on COMPAS under a 2-point gap
among six races, almost none). The models found this way are verified like any
other: the search certifies flips, never that a pattern cannot be flipped.

This module says which classes of patterns a model shifts independently
(:func:`offset_classes`); the exact search of a direction's cuts is
:class:`~._offset_search.OffsetSearch`, and the models the heuristics take
from it come from :mod:`._offset_models`.
"""

from dataclasses import dataclass

import numpy as np

from ...._mip._constraints import RateGapRows


@dataclass(frozen=True)
class OffsetClasses:
    """Classes of training patterns whose scores a model shifts independently.

    Attributes
    ----------
    columns : ndarray of int
        Canonical columns constant on every group of the gap: their weights
        and the intercept are the offsets.
    of_pattern : ndarray of int, shape (n_train,)
        Class of each training pattern.
    offsets : ndarray of shape (len(columns) + 1, n_classes)
        Maps the intercepts wanted per class to ``[b, w[columns]]``.
    group_class : ndarray of int, shape (n_groups,)
        The class holding every counted pattern of each group.
    gap : RateGapRows
    """

    columns: np.ndarray
    of_pattern: np.ndarray
    offsets: np.ndarray
    group_class: np.ndarray
    gap: RateGapRows

    @property
    def n_classes(self):
        return self.offsets.shape[1]


def offset_classes(enc):
    """The offset classes of ``enc``'s rate gap, or ``None`` if it has none.

    They exist when the class's only constraint is one rate gap, its weights
    are continuous, and the columns constant on every group split the
    patterns into at least two classes whose intercepts the columns' weights
    and the intercept set independently.
    """
    if enc.hypothesis.integer or len(enc.constraints) != 1:
        return None
    gap = enc.constraints[0]
    if not isinstance(gap, RateGapRows):
        return None
    X = enc.X[: enc.n_train]
    members = gap.share[:, : enc.n_train] > 0
    columns = np.array(
        [j for j in range(enc.p) if all(np.ptp(X[m, j]) == 0 for m in members)],
        dtype=np.int64,
    )
    if columns.size == 0:
        return None
    vectors, of_pattern = np.unique(X[:, columns], axis=0, return_inverse=True)
    of_pattern = of_pattern.ravel()
    n_classes = len(vectors)
    design = np.column_stack([np.ones(n_classes), vectors])
    if n_classes < 2 or np.linalg.matrix_rank(design) < n_classes:
        return None
    group_class = np.array([of_pattern[np.flatnonzero(m)[0]] for m in members])
    return OffsetClasses(columns, of_pattern, np.linalg.pinv(design), group_class, gap)
