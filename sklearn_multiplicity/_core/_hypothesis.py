"""The hypothesis classes that MIPs optimise over exactly.

"Exact" always means exact over one of these classes, and one audit uses one
class for its baseline, discrepancy and ambiguity problems. A model is
``x -> 1[w . x_c + b > 0]`` where ``x_c`` is the canonical representation of
``x`` (:meth:`PatternProblem.canonical`: affinely redundant columns dropped);
with K labels the label of the highest of K such scores.

:class:`BoxMargin` (HiGHS, SCIP)
    ``x_c`` min-max scaled to [0, 1] over the training patterns, continuous
    ``w`` in ``[-1, 1]^p``, ``b`` in ``[-(p + margin), p + margin]`` (a larger
    ``|b|`` only predicts one class, which this range already covers), and
    every training pattern at score ``>= margin`` (positive) or
    ``<= -margin`` (negative). Scores are scale-free, so this is every linear
    dichotomy of the training patterns whose l-infinity-normalised margin is at
    least ``margin``; as ``margin -> 0`` it is every strict linear dichotomy.
:class:`IntegerWeights` (CP-SAT; also solvable by HiGHS and SCIP)
    ``x_c`` unscaled and integer-valued, integer ``w`` in ``[-W, W]^p`` and
    integer ``b``; a pattern is positive iff its score is ``>= 1`` (that is,
    ``> 0``) and negative iff ``<= 0``. No margin is imposed: every integer
    model is in the class, and no other.
:class:`MulticlassBoxMargin` (HiGHS, SCIP), for K labels
    A model is ``x -> argmax_k (w_k . x_c + b_k)`` with ``x_c`` min-max
    scaled to [0, 1] over the training patterns. Adding one function to
    every score changes no label, so class 0's weights and intercept are
    fixed at 0; every other ``w_k`` lies in ``[-1, 1]^p`` and ``b_k`` in
    ``[-(p + margin), p + margin]``, the box of :class:`BoxMargin`. On every
    training pattern the winning label's score is at least ``margin`` above
    every other label's. For ``K = 2`` this is :class:`BoxMargin` itself: the
    score difference ``w_1 . x_c + b_1`` is ``>= margin`` or ``<= -margin``.
    Scores are scale-free and, with class 0 at 0, the box on the intercepts
    loses no labelling (a label that wins somewhere has ``|b_k| <= p + margin``
    after a common shift, one that wins nowhere can sit at the box's floor), so
    the class holds every strict K-class linear labelling of the training
    patterns whose l-infinity-normalised margin is at least ``margin``.

People outside the training data: a two-label model predicts a person
positive iff its score ``w . x_c + b > 0``, a K-label model gives them the
argmax of their scores (the lowest label of a tie); the margin constrains
training patterns only. With two labels a new person is contestable iff
some model of the level set scores them on the other side of 0 from the
baseline's prediction, or exactly at 0 (a tie, which the baseline's side
does not win by any margin); on integer or binary data a score of exactly 0
is common, where a new pattern is an affine combination of training
patterns.
"""

from dataclasses import dataclass

import numpy as np

from ._level_set import TOLERANCE


@dataclass(frozen=True)
class BoxMargin:
    """Continuous weights in a box with a margin on every training pattern."""

    margin: float = 1e-3
    scaled = True
    integer = False

    def __post_init__(self):
        if not (0 < self.margin <= 0.5):
            raise ValueError(f"margin must be in (0, 0.5], got {self.margin!r}")

    def weight_bounds(self, problem):
        p = problem.n_kept
        w_lo, w_hi = -np.ones(p), np.ones(p)
        b_max = p + self.margin
        return w_lo, w_hi, -b_max, b_max

    @property
    def thresholds(self):
        """Score needed for a positive / allowed for a negative prediction."""
        return self.margin, -self.margin

    def describe(self):
        return (
            "continuous weights, features min-max scaled to [0, 1], "
            f"|w_j| <= 1, margin {self.margin:g} on every training pattern"
        )

    def fit_model(self, problem, w, b):
        """Scale a canonical model into the class; ``None`` if no scaling fits."""
        w_lo, w_hi, b_lo, b_hi = self.weight_bounds(problem)
        size = max(np.abs(w).max(initial=0.0), abs(b) / b_hi)
        if size == 0:
            return None
        w, b = w / size, b / size
        scores = problem.canonical() @ w + b
        if np.abs(scores).min(initial=np.inf) < self.margin * (1 + 1e-6):
            return None
        return w, b


@dataclass(frozen=True)
class IntegerWeights:
    """Integer weights ``|w_j| <= max_weight`` on integer-valued features."""

    max_weight: int = 10
    scaled = False
    integer = True

    def __post_init__(self):
        if int(self.max_weight) != self.max_weight or self.max_weight < 1:
            raise ValueError(
                f"max_weight must be a positive integer, got {self.max_weight!r}"
            )

    def check_data(self, problem):
        values = problem.canonical(scaled=False)
        if values.size and np.any(np.abs(values - np.round(values)) > TOLERANCE):
            raise ValueError(
                "Integer weights (solver='cpsat' or weights='integer') need "
                "integer-valued features (binary, counts); got fractional values. "
                "Binarise the features or use solver='highs'."
            )

    def weight_bounds(self, problem):
        p = problem.n_kept
        values = problem.canonical(scaled=False)
        reach = self.max_weight * (np.abs(values).sum(axis=1).max(initial=0.0))
        b_max = float(np.ceil(reach) + 1)
        return (
            -self.max_weight * np.ones(p),
            self.max_weight * np.ones(p),
            -b_max,
            b_max,
        )

    @property
    def thresholds(self):
        return 1.0, 0.0

    def describe(self):
        return (
            f"integer weights |w_j| <= {self.max_weight} and integer intercept on "
            "integer-valued features; positive iff score >= 1"
        )

    def fit_model(self, problem, w, b):
        """Round a canonical model into the class (always possible)."""
        size = np.abs(w).max(initial=0.0)
        if size == 0:
            return None
        factor = self.max_weight / size
        w = np.round(w * factor)
        b = float(np.floor(b * factor))
        _, _, b_lo, b_hi = self.weight_bounds(problem)
        return w, float(np.clip(b, b_lo, b_hi))


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
    """Scores ``(n, K)`` of the K-label model ``(W, b)``: class 0 scores 0."""
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
        Canonical, scaled patterns (:meth:`PatternProblem.canonical`).

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


def in_label_class(problem, hypothesis, W, b, tolerance=1e-6):
    """Whether the K-label model ``(W, b)`` lies in ``hypothesis`` (a
    :class:`MulticlassBoxMargin`) on ``problem``: in the box,
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


def make_hypothesis_class(
    weights, margin, max_weight, *, integer_only=False, solver="the solver"
):
    """The class implied by an estimator's ``weights``, ``margin`` and
    ``max_weight`` parameters and what its backend can solve.

    Parameters
    ----------
    weights : {"auto", "continuous", "integer"}
        ``"auto"`` is integer when the backend solves integer problems only,
        continuous otherwise.
    margin : float
        Margin of the continuous class.
    max_weight : int
        Largest absolute weight of the integer class.
    integer_only : bool, default=False
        Whether the backend solves only problems whose variables are all
        integer (``not Backend.supports_continuous``), such as CP-SAT.
    solver : str, default="the solver"
        The backend's name, for error messages.
    """
    if weights == "auto":
        weights = "integer" if integer_only else "continuous"
    if weights == "continuous":
        if integer_only:
            raise ValueError(
                f"solver={solver!r} solves integer problems only; use "
                "weights='integer' (or 'auto') with it, or a MathOpt solver "
                "('highs', 'scip') for continuous weights."
            )
        return BoxMargin(margin=float(margin))
    if weights == "integer":
        return IntegerWeights(max_weight=int(max_weight))
    raise ValueError(
        f"weights must be 'auto', 'continuous' or 'integer', got {weights!r}"
    )
