"""The K-class problem and the K-class hypothesis class.

Training data are compressed to distinct feature patterns as for two labels
(:class:`~._problem.PatternProblem`, whose canonical columns and min-max
scaling are reused as they are), but each pattern carries the total weight of
every label: :attr:`MulticlassProblem.counts`, of shape ``(n_patterns, K)``.
A linear model gives every row of a pattern the same label, so a pattern
labelled ``l`` costs its total weight minus ``counts[u, l]``, and a pattern
holding several labels costs at least its weight minus its heaviest label's
(:attr:`MulticlassProblem.unavoidable_errors`).

:class:`MulticlassBoxMargin` (HiGHS, SCIP)
    A model is ``x -> argmax_k (w_k . x_c + b_k)`` where ``x_c`` is the
    canonical representation of ``x`` (affinely redundant columns dropped),
    min-max scaled to [0, 1] over the training patterns. Adding one function
    to every score changes no label, so class 0's weights and intercept are
    fixed at 0; every other ``w_k`` lies in ``[-1, 1]^p`` and ``b_k`` in
    ``[-(p + margin), p + margin]``, the box of
    :class:`~._hypothesis.BoxMargin`. On every training pattern the winning
    label's score is at least ``margin`` above every other label's. For
    ``K = 2`` this is :class:`~._hypothesis.BoxMargin` itself: the score
    difference ``w_1 . x_c + b_1`` is ``>= margin`` or ``<= -margin``.
    Scores are scale-free and, with class 0 at 0, the box on the intercepts
    loses no labelling (a label that wins somewhere has ``|b_k| <= p + margin``
    after a common shift, one that wins nowhere can sit at the box's floor), so
    the class holds every strict K-class linear labelling of the training
    patterns whose l-infinity-normalised margin is at least ``margin``.

A new person's label is the argmax of their scores; the margin constrains
training patterns only, where ties are therefore impossible.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._hypothesis import BoxMargin
from ._level_set import TOLERANCE, LabelCeilings
from ._problem import PatternProblem, weight_unit

#: Most labels a K-class problem may have: the MIPs grow as ``K**2``.
MAX_CLASSES = 20


def covers(proven, ceiling):
    """Whether a proof within ``proven`` holds within ``ceiling``: every model
    within ``ceiling`` lies within ``proven``."""
    if isinstance(ceiling, LabelCeilings):
        if isinstance(proven, LabelCeilings):
            return ceiling.within(proven)
        return ceiling.total <= proven + TOLERANCE
    return not isinstance(proven, LabelCeilings) and ceiling <= proven + TOLERANCE


@dataclass
class MulticlassProblem:
    """Training data with ``K`` labels, compressed to patterns.

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
    kept_columns, offset, scale : ndarray
        The canonical columns and their scaling, as in
        :class:`~._problem.PatternProblem`.
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

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of any sortable type.
        sample_weight : array-like of shape (n_samples,) or None
            Non-negative weights; rows of zero weight are dropped.
        classes : array-like or None
            The labels (default: those of ``y``); may include labels absent
            from ``y``.

        Returns
        -------
        MulticlassProblem

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
                f"A K-class problem needs 2 to {MAX_CLASSES} labels, got "
                f"{classes.size}: {classes.tolist()[:5]}"
            )
        labels = _indices(classes, y)
        weight = (
            np.ones(len(y))
            if sample_weight is None
            else np.asarray(sample_weight, dtype=float)
        )
        if (
            weight.shape != y.shape
            or np.any(~np.isfinite(weight))
            or np.any(weight < 0)
        ):
            raise ValueError(
                "sample_weight must hold one finite non-negative weight per row"
            )
        # The two-label problem of "label 0 or not" has the same patterns,
        # canonical columns and scaling: only its weights are discarded.
        shape = PatternProblem.from_data(X, labels == 0, weight)
        k = shape.n_patterns
        rows = np.flatnonzero(shape.inverse >= 0)
        counts = np.zeros((k, classes.size))
        np.add.at(counts, (shape.inverse[rows], labels[rows]), weight[rows])
        return cls(
            shape.patterns,
            shape.inverse,
            counts,
            classes,
            shape.kept_columns,
            shape.offset,
            shape.scale,
        )

    # Canonical columns and scaling exactly as for two labels.
    canonical = PatternProblem.canonical
    n_patterns = PatternProblem.n_patterns
    n_features = PatternProblem.n_features
    n_kept = PatternProblem.n_kept

    @property
    def n_classes(self):
        return self.classes.size

    @property
    def pattern_weight(self):
        """Total weight of every pattern."""
        return self.counts.sum(axis=1)

    @property
    def total_weight(self):
        return float(self.counts.sum())

    @property
    def weights_are_integral(self):
        return bool(np.all(np.abs(self.counts - np.round(self.counts)) < TOLERANCE))

    @cached_property
    def weight_unit(self):
        """The weight that the MIPs count as one (see
        :func:`~._problem.weight_unit`)."""
        return weight_unit(self.counts.ravel())

    @property
    def unavoidable_errors(self):
        """Errors every model makes: all but the heaviest label of each pattern."""
        return float((self.pattern_weight - self.counts.max(axis=1)).sum())

    def errors(self, labels):
        """Weighted training errors of pattern labels (indices into
        :attr:`classes`); ``labels`` may be 2-D, one row per model."""
        labels = np.asarray(labels, dtype=np.int64)
        kept = self.counts[np.arange(self.n_patterns), labels]
        return self.total_weight - kept.sum(axis=-1)

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


def _indices(classes, y):
    """Indices of the labels ``y`` in the sorted ``classes``."""
    y = np.asarray(y)
    index = np.minimum(np.searchsorted(classes, y), classes.size - 1)
    if np.any(classes[index] != y):
        raise ValueError(f"labels outside the classes {classes.tolist()}")
    return index


@dataclass(frozen=True)
class MulticlassBoxMargin:
    """K-class linear models in a box, with a margin on every training pattern.

    Parameters
    ----------
    margin : float, default=1e-3
        Least gap between the winning score and every other score on a
        training pattern, in (0, 0.5].
    """

    margin: float = 1e-3

    def __post_init__(self):
        BoxMargin(self.margin)  # the same range of margins

    def weight_bounds(self, problem):
        """``(w_lo, w_hi, b_lo, b_hi)`` of one non-fixed class: the binary box."""
        return BoxMargin(self.margin).weight_bounds(problem)

    def fit_model(self, problem, W, b):
        """Scale a canonical model ``(W, b)`` (class 0 at 0) into the class;
        ``None`` if no scaling fits (its margin is too small)."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        b = np.asarray(b, dtype=float)
        _, _, _, b_hi = self.weight_bounds(problem)
        size = max(np.abs(W).max(initial=0.0), np.abs(b).max(initial=0.0) / b_hi)
        if size == 0:
            return None
        W, b = W / size, b / size
        if gaps(W, b, problem.canonical()).min(initial=np.inf) < self.margin * (
            1 + 1e-6
        ):
            return None
        return W, b

    def constant_model(self, problem, label):
        """The model predicting ``label`` everywhere."""
        _, _, b_lo, b_hi = self.weight_bounds(problem)
        K, p = problem.n_classes, problem.n_kept
        b = np.full(K - 1, b_lo)
        if label > 0:
            b[label - 1] = b_hi
        return np.zeros((K - 1, p)), b

    def describe(self):
        return (
            "K-class argmax of linear scores, class 0 at 0, features min-max "
            f"scaled to [0, 1], |w_kj| <= 1, margin {self.margin:g} between the "
            "winning score and every other on every training pattern"
        )


def scores(W, b, Xc):
    """Scores ``(n, K)`` of the model ``(W, b)``: class 0 scores 0."""
    W = np.atleast_2d(np.asarray(W, dtype=float))
    Xc = np.asarray(Xc, dtype=float)
    others = Xc @ W.T + np.asarray(b, dtype=float)
    return np.column_stack([np.zeros(Xc.shape[0]), others])


def predict(W, b, Xc):
    """Labels (indices) of the canonical patterns ``Xc`` under ``(W, b)``.

    Parameters
    ----------
    W : ndarray of shape (n_classes - 1, p)
        Weights of classes ``1 .. K-1`` (class 0's are 0).
    b : ndarray of shape (n_classes - 1,)
    Xc : ndarray of shape (n, p)
        Canonical, scaled patterns (:meth:`MulticlassProblem.canonical`).

    Returns
    -------
    ndarray of int, shape (n,)
        The argmax of the scores; ties (impossible on training patterns by the
        margin) go to the lowest label.

    Examples
    --------
    >>> import numpy as np
    >>> W, b = np.array([[1.0], [-1.0]]), np.array([-0.5, 0.2])
    >>> predict(W, b, np.array([[0.0], [1.0]]))
    array([2, 1])
    """
    return np.argmax(scores(W, b, Xc), axis=1)


def gaps(W, b, Xc):
    """Gap between the winning score and the runner-up's on each pattern."""
    s = np.sort(scores(W, b, Xc), axis=1)
    return s[:, -1] - s[:, -2]


def in_class(problem, hypothesis, W, b, tolerance=1e-6):
    """Whether ``(W, b)`` lies in ``hypothesis`` on ``problem``: in the box,
    with a gap of at least ``margin`` on every training pattern (both up to
    ``tolerance``)."""
    W = np.atleast_2d(np.asarray(W, dtype=float))
    b = np.asarray(b, dtype=float)
    K, p = problem.n_classes, problem.n_kept
    if W.shape != (K - 1, p) or b.shape != (K - 1,):
        return False
    w_lo, w_hi, b_lo, b_hi = hypothesis.weight_bounds(problem)
    if np.any(W < w_lo - tolerance) or np.any(W > w_hi + tolerance):
        return False
    if np.any(b < b_lo - tolerance) or np.any(b > b_hi + tolerance):
        return False
    margins = gaps(W, b, problem.canonical())
    return bool(np.all(margins >= hypothesis.margin - tolerance))
