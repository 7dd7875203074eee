"""The hypothesis classes that MIPs optimise over exactly.

"Exact" always means exact over one of these classes, and one audit uses one
class for its baseline, discrepancy and ambiguity problems. A model is
``x -> 1[w . x_c + b > 0]`` where ``x_c`` is the canonical representation of
``x`` (:meth:`PatternProblem.canonical`: affinely redundant columns dropped).

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

People outside the training data: a model of either class predicts a
person positive iff its score ``w . x_c + b > 0``, and the margin constrains
training patterns only. A new person is contestable iff some model of the
level set scores them on the other side of 0 from the baseline's
prediction, or exactly at 0 (a tie, which the baseline's side does not win
by any margin); on integer or binary data a score of exactly 0 is common,
where a new pattern is an affine combination of training patterns.
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
