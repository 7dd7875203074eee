"""The data of a 0-1 loss problem, compressed to distinct feature patterns.

Every row of the training data becomes one *pattern* (a distinct feature
vector) carrying the total weight of each of its labels:
:attr:`PatternProblem.counts`, of shape ``(n_patterns, K)``. Two labels are
the case K = 2: label 1 is positive, and :attr:`PatternProblem.positive_weight`
and :attr:`PatternProblem.negative_weight` are the two columns of the counts.
A linear model gives every row of a pattern the same label, so every
mixed-integer program of the library has binaries per pattern, not per row,
and a pattern holding several labels contributes an error that no model
avoids (all but its heaviest label's weight, a lower bound on any error).

The MIPs count weight in :attr:`PatternProblem.weight_unit`, a unit that
grows with the weights: repeating every row ``k`` times multiplies the
weights and the unit by ``k``, so every solver sees the same numbers.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import scipy.linalg

from ._level_set import TOLERANCE, weight_unit

#: Relative tolerance under which a column is an affine combination of others.
_RANK_TOLERANCE = 1e-9

#: Most labels a problem may have: the K-label MIPs grow as ``K**2``.
MAX_CLASSES = 20


@dataclass
class PatternProblem:
    """Training data with ``K`` labels compressed to patterns, in a canonical
    representation; two labels are ``K = 2`` (label 1 positive).

    Attributes
    ----------
    patterns : ndarray of shape (n_patterns, n_features)
        The distinct rows of the training features, in the user's columns.
    inverse : ndarray of shape (n_samples,)
        Pattern index of every training row (``-1`` for rows of zero weight).
    counts : ndarray of shape (n_patterns, n_classes)
        Total sample weight of each label on each pattern.
    classes : ndarray of shape (n_classes,)
        The labels, sorted; label ``l`` of the MIPs is ``classes[l]``.
    kept_columns : ndarray of int
        Columns of ``patterns`` that are affinely independent over the
        patterns; the others are affine combinations of these (one-hot groups
        with an intercept, constant columns) and are dropped from every MIP.
    offset, scale : ndarray of shape (n_kept,)
        The kept columns enter MIPs as ``(x - offset) / scale``, in [0, 1].
    """

    patterns: np.ndarray
    inverse: np.ndarray
    counts: np.ndarray
    classes: np.ndarray
    kept_columns: np.ndarray
    offset: np.ndarray
    scale: np.ndarray

    @classmethod
    def from_data(cls, X, y, sample_weight=None, *, classes=None):
        """Compress ``X`` (n, d) with labels ``y`` and weights.

        Rows of zero weight are dropped first: they change no error count.
        Their pattern index in :attr:`inverse` is ``-1``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of any sortable type; ``{0, 1}`` (or bool) for two labels.
        sample_weight : array-like of shape (n_samples,) or None
            Non-negative weights; rows of zero weight are dropped.
        classes : array-like or None
            The labels (default: those of ``y``); may include labels absent
            from ``y``.

        Returns
        -------
        PatternProblem

        Raises
        ------
        ValueError
            With fewer than 2 or more than :data:`MAX_CLASSES` labels, a label
            outside ``classes``, or mismatched or negative weights.
        """
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(
                f"X must be 2-D with one label per row; got X of shape "
                f"{X.shape} and y of shape {y.shape}"
            )
        classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
        if not 2 <= classes.size <= MAX_CLASSES:
            raise ValueError(
                f"A problem needs 2 to {MAX_CLASSES} labels, got "
                f"{classes.size}: {classes.tolist()[:5]}"
            )
        labels = _indices(classes, y)
        n = X.shape[0]
        weight = (
            np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        )
        if (
            weight.shape != y.shape
            or np.any(~np.isfinite(weight))
            or np.any(weight < 0)
        ):
            raise ValueError(
                "sample_weight must hold one finite non-negative weight per row"
            )
        active = weight > 0
        if active.all():  # no copy of the rows
            patterns, inverse = distinct_rows(X)
        else:
            patterns, inverse_active = distinct_rows(X[active])
            inverse = np.full(n, -1, dtype=np.int64)
            inverse[active] = inverse_active
        k, K = patterns.shape[0], classes.size
        rows = np.flatnonzero(active)
        # Each (pattern, label) sums its rows' weights in row order.
        counts = np.bincount(
            inverse[rows] * K + labels[rows], weights=weight[rows], minlength=k * K
        ).reshape(k, K)
        kept = affinely_independent_columns(patterns)
        lo = patterns[:, kept].min(axis=0) if k else np.zeros(kept.size)
        hi = patterns[:, kept].max(axis=0) if k else np.ones(kept.size)
        scale = np.where(hi > lo, hi - lo, 1.0)
        return cls(patterns, inverse, counts, classes, kept, lo, scale)

    # -- sizes and weights -------------------------------------------------
    @property
    def n_patterns(self):
        return self.patterns.shape[0]

    @property
    def n_features(self):
        return self.patterns.shape[1]

    @property
    def n_kept(self):
        return self.kept_columns.size

    @property
    def n_classes(self):
        return self.classes.size

    @cached_property
    def label_weights(self):
        """:attr:`counts` by label, ``(K, n_patterns)``: one contiguous row of
        pattern weights per label, as the weight vectors of the MIPs."""
        return np.ascontiguousarray(self.counts.T)

    @property
    def positive_weight(self):
        """Weight of label 1 on every pattern (two labels only)."""
        return self._two_labels()[1]

    @property
    def negative_weight(self):
        """Weight of label 0 on every pattern (two labels only)."""
        return self._two_labels()[0]

    def _two_labels(self):
        if self.n_classes != 2:
            raise ValueError(f"a problem of {self.n_classes} labels has no positives")
        return self.label_weights

    @property
    def pattern_weight(self):
        """Total weight of every pattern."""
        return self.label_weights.sum(axis=0)

    @property
    def total_weight(self):
        return float(self.pattern_weight.sum())

    @property
    def weights_are_integral(self):
        return bool(np.all(np.abs(self.counts - np.round(self.counts)) < TOLERANCE))

    @cached_property
    def weight_unit(self):
        """The weight that the MIPs count as one (see :func:`weight_unit`)."""
        return weight_unit(self.counts.ravel())

    @property
    def unavoidable_errors(self):
        """Errors every model makes: all labels of each pattern but its
        heaviest (the minority for two labels)."""
        lighter = np.sort(self.counts, axis=1)[:, :-1]
        return float(lighter.sum(axis=1).sum())

    # -- representations -------------------------------------------------
    def canonical(self, X=None, *, scaled=True):
        """Kept columns of ``X`` (default: the patterns), optionally scaled."""
        X = self.patterns if X is None else np.asarray(X, dtype=float)
        Xk = X[:, self.kept_columns]
        return (Xk - self.offset) / self.scale if scaled else Xk

    def to_original(self, w, b, *, scaled=True):
        """Coefficients on the user's columns of the canonical model ``(w, b)``.

        Dropped columns receive weight 0; on every training pattern the score
        is unchanged because they are affine combinations of kept columns.
        """
        w = np.asarray(w, dtype=float)
        coef = np.zeros(self.n_features)
        if scaled:
            coef[self.kept_columns] = w / self.scale
            intercept = float(b - np.sum(w * self.offset / self.scale))
        else:
            coef[self.kept_columns] = w
            intercept = float(b)
        return coef, intercept

    def from_original(self, coef, intercept, *, scaled=True):
        """Canonical ``(w, b)`` with the same scores as ``coef, intercept`` on
        every training pattern (least squares; exact since the dropped columns
        are affine combinations of the kept ones)."""
        scores = self.patterns @ np.asarray(coef, float).ravel() + float(intercept)
        design = np.column_stack(
            [self.canonical(scaled=scaled), np.ones(self.n_patterns)]
        )
        solution, *_ = np.linalg.lstsq(design, scores, rcond=None)
        return solution[:-1], float(solution[-1])

    # -- errors ------------------------------------------------------------
    def errors(self, labels):
        """Weighted training errors of pattern labels (indices into
        :attr:`classes`; for two labels the predictions, 1 = positive).

        ``labels`` may be 2-D, one row per model.
        """
        labels = np.asarray(labels)
        return sum(
            np.asarray(labels != k, dtype=float) @ weight
            for k, weight in enumerate(self.label_weights)
        )

    def label_errors(self, labels):
        """Weighted training errors on each true label of pattern labels:
        ``(K,)``, or ``(m, K)`` for ``m`` rows of labels."""
        labels = np.asarray(labels, dtype=np.int64)
        kept = self.counts[np.arange(self.n_patterns), labels]  # (..., n)
        right = np.zeros((*labels.shape[:-1], self.n_classes))
        for k in range(self.n_classes):
            right[..., k] = (kept * (labels == k)).sum(axis=-1)
        return self.counts.sum(axis=0) - right

    def label_indices(self, y):
        """Indices into :attr:`classes` of the labels ``y``."""
        return _indices(self.classes, y)

    def predictions(self, coef, intercept, X=None):
        """Pattern (or ``X``) predictions of a two-label model on the user's
        columns."""
        X = self.patterns if X is None else X
        return (np.asarray(X, float) @ np.asarray(coef, float).ravel() + intercept) > 0


def _indices(classes, y):
    """Indices of the labels ``y`` in the sorted ``classes``."""
    y = np.asarray(y)
    index = np.minimum(np.searchsorted(classes, y), classes.size - 1)
    if np.any(classes[index] != y):
        raise ValueError(f"labels outside the classes {classes.tolist()}")
    return index


def distinct_rows(X):
    """The distinct rows of ``X`` in lexicographic order, and the index of
    every row's among them: ``np.unique(X, axis=0, return_inverse=True)``.

    Each column is reduced to the ranks of its values (a hash table, then
    a sort of the few distinct values), and the ranks to one integer key per
    row, so the rows are sorted as integers, far faster than ``np.unique``
    sorting whole rows (``benchmarks/README.rst``).
    """
    n, d = X.shape
    if n == 0 or d == 0:
        patterns, inverse = np.unique(X, axis=0, return_inverse=True)
        return patterns, inverse.ravel().astype(np.int64)
    key = np.zeros(n, dtype=np.int64)
    size = 1
    for j in range(d):
        # ``+ 0.0`` turns -0.0 into 0.0, which np.unique counts as equal.
        ranks, values = pd.factorize(X[:, j] + 0.0, sort=True)
        if np.any(ranks < 0):  # NaN: left to np.unique
            patterns, inverse = np.unique(X, axis=0, return_inverse=True)
            return patterns, inverse.ravel().astype(np.int64)
        if size * values.size >= 2**62:
            # Renumber the keys densely (order kept) before they overflow.
            key = pd.factorize(key, sort=True)[0]
            size = int(key.max()) + 1
        key = key * values.size + ranks
        size *= values.size
    inverse, keys = pd.factorize(key, sort=True)
    first = np.empty(keys.size, dtype=np.int64)
    first[inverse[::-1]] = np.arange(n - 1, -1, -1)
    return X[first], inverse.astype(np.int64)


def affinely_independent_columns(patterns):
    """Indices of a maximal set of affinely independent columns.

    A column that is an affine combination of others over the rows (a constant
    column, the last dummy of a one-hot group when an intercept is present)
    adds nothing to the set of linear dichotomies of the rows.
    """
    k, d = patterns.shape
    if k <= 1 or d == 0:
        return np.zeros(0, dtype=np.int64)
    centred = patterns - patterns.mean(axis=0)
    norms = np.linalg.norm(centred, axis=0)
    candidates = np.flatnonzero(norms > _RANK_TOLERANCE * max(1.0, norms.max()))
    if candidates.size == 0:
        return np.zeros(0, dtype=np.int64)
    normalised = centred[:, candidates] / norms[candidates]
    _, r, pivots = scipy.linalg.qr(normalised, mode="economic", pivoting=True)
    diag = np.abs(np.diag(r))
    rank = int(np.sum(diag > 1e-8 * diag[0]))
    kept = np.sort(candidates[pivots[:rank]])
    _check_affine_span(patterns, kept)
    return kept


def _check_affine_span(patterns, kept):
    """Refuse to drop a column that is not an exact affine combination."""
    design = np.column_stack([patterns[:, kept], np.ones(patterns.shape[0])])
    dropped = np.setdiff1d(np.arange(patterns.shape[1]), kept)
    if dropped.size == 0:
        return
    target = patterns[:, dropped]
    coefs, *_ = np.linalg.lstsq(design, target, rcond=None)
    residual = np.abs(design @ coefs - target).max()
    tolerance = 1e-7 * max(1.0, np.abs(patterns).max())
    if residual > tolerance:
        raise ValueError(
            "Feature columns are nearly but not exactly collinear (residual "
            f"{residual:.3g}); rescale or round the features."
        )
