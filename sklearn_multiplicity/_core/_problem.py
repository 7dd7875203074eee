"""The data of a 0-1 loss problem, compressed to distinct feature patterns.

Every row of the training data becomes one *pattern* (a distinct feature
vector) carrying the total weight of its positive and of its negative rows. A
linear classifier gives every row of a pattern the same prediction, so every
mixed-integer program of the library has one binary variable per pattern, not
per row, and a pattern holding both labels contributes an error that no
classifier avoids (``min(positive, negative)``, a lower bound on any error).
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._level_set import TOLERANCE

#: Relative tolerance under which a column is an affine combination of others.
_RANK_TOLERANCE = 1e-9


@dataclass
class PatternProblem:
    """Training data compressed to patterns, in a canonical representation.

    Attributes
    ----------
    patterns : ndarray of shape (n_patterns, n_features)
        The distinct rows of the training features, in the user's columns.
    inverse : ndarray of shape (n_samples,)
        Pattern index of every training row.
    positive_weight, negative_weight : ndarray of shape (n_patterns,)
        Total sample weight of the pattern's positive / negative rows.
    kept_columns : ndarray of int
        Columns of ``patterns`` that are affinely independent over the
        patterns; the others are affine combinations of these (one-hot groups
        with an intercept, constant columns) and are dropped from every MIP.
    offset, scale : ndarray of shape (n_kept,)
        The kept columns enter MIPs as ``(x - offset) / scale``, in [0, 1].
    """

    patterns: np.ndarray
    inverse: np.ndarray
    positive_weight: np.ndarray
    negative_weight: np.ndarray
    kept_columns: np.ndarray
    offset: np.ndarray
    scale: np.ndarray

    @classmethod
    def from_data(cls, X, y, sample_weight=None):
        """Compress ``X`` (n, d) with labels ``y`` in {0, 1} and weights.

        Rows of zero weight are dropped first: they change no error count.
        Their pattern index in :attr:`inverse` is ``-1``.
        """
        X = np.asarray(X, dtype=float)
        y = np.asarray(y).astype(int)
        n = X.shape[0]
        weight = (
            np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        )
        active = weight > 0
        patterns, inverse_active = np.unique(X[active], axis=0, return_inverse=True)
        inverse_active = inverse_active.ravel()
        inverse = np.full(n, -1, dtype=np.int64)
        inverse[active] = inverse_active
        k = patterns.shape[0]
        positive = np.bincount(
            inverse_active, weights=weight[active] * (y[active] == 1), minlength=k
        )
        negative = np.bincount(
            inverse_active, weights=weight[active] * (y[active] == 0), minlength=k
        )
        kept = affinely_independent_columns(patterns)
        lo = patterns[:, kept].min(axis=0) if k else np.zeros(kept.size)
        hi = patterns[:, kept].max(axis=0) if k else np.ones(kept.size)
        scale = np.where(hi > lo, hi - lo, 1.0)
        return cls(patterns, inverse, positive, negative, kept, lo, scale)

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
    def pattern_weight(self):
        return self.positive_weight + self.negative_weight

    @property
    def total_weight(self):
        return float(self.pattern_weight.sum())

    @property
    def weights_are_integral(self):
        w = np.concatenate([self.positive_weight, self.negative_weight])
        return bool(np.all(np.abs(w - np.round(w)) < TOLERANCE))

    @property
    def unavoidable_errors(self):
        """Errors every classifier makes: the minority label of each pattern."""
        return float(np.minimum(self.positive_weight, self.negative_weight).sum())

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
    def errors(self, z):
        """Weighted training errors of pattern predictions ``z`` (1 = positive).

        ``z`` may be 2-D, one row per model.
        """
        z = np.asarray(z, dtype=float)
        return (1 - z) @ self.positive_weight + z @ self.negative_weight

    def predictions(self, coef, intercept, X=None):
        """Pattern (or ``X``) predictions of a model on the user's columns."""
        X = self.patterns if X is None else X
        return (np.asarray(X, float) @ np.asarray(coef, float).ravel() + intercept) > 0


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
