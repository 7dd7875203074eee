"""Everything an audit has certified so far, shared by its certifiers.

- a pool of verified models of the hypothesis class (every solution of every
  MIP, the warm starts, the constant models);
- for every training pattern ``u``, bounds ``flip_lower[u] <= E*_u <=
  flip_upper[u]`` on ``E*_u``, the fewest errors of a model of the class that
  predicts ``u`` differently from the baseline. Pattern ``u`` is ambiguous at
  error budget ``E`` iff ``E*_u <= E``, so these bounds answer every budget at
  once: one found model certifies every pattern it flips, and a pattern proven
  unflippable at a large budget is unflippable at every smaller one;
- the LP relaxation bound of every ``E*_u`` computed so far, and the identity
  rows that LP needed;
- every discrepancy result, by budget and key (``"all"`` or a group);
- the log of every solve.

The ambiguity and discrepancy certifiers read and extend this one object, so
that no MIP is solved twice and each learns from the other.
"""

import numpy as np

from ..._core import (
    TOLERANCE,
    Bounds,
    LevelSet,
    MIPLogEntry,
    ModelPool,
    in_class,
    verify,
)
from ..._mip import realise

#: Largest violation of the class's box or margin (in scaled score units) for
#: a model to count as in the class: solvers return solutions within their
#: feasibility tolerance, at most 1e-6.
CLASS_TOLERANCE = 1e-6


def in_class_or_repaired(enc, model):
    """``model`` if it lies in the class, else the same labelling's max-margin
    model if that one does, else ``None``.

    A solution a little outside the class (an LP's, or a MIP's within the
    solver's tolerance) may still predict a labelling that the class
    realises; the max-margin LP decides it and returns a model of the class.
    """
    if model is None:
        return None
    if in_class(enc, model, tolerance=CLASS_TOLERANCE):
        return model
    if enc.hypothesis.integer:
        return None
    solution = realise(enc, model.z)
    if solution is None:
        return None
    repaired = verify(enc, *solution, source=model.source)
    if not in_class(enc, repaired, tolerance=CLASS_TOLERANCE):
        return None
    return repaired if np.array_equal(repaired.z, model.z) else None


class AuditState:
    """What is known about the level sets around baseline predictions.

    Parameters
    ----------
    enc : Encoding
        Variables and shared rows (hypothesis class, affine-identity cuts).
    baseline : ndarray of bool, shape (n_patterns,)
        The baseline's prediction of every training pattern.
    min_error_lower : float
        Certified lower bound on the fewest errors of the class (every
        ``E*_u`` is at least this).

    Attributes
    ----------
    problem : PatternProblem
    level_set : LevelSet
        Budgets of the level sets around the baseline.
    pool : ModelPool
        Every verified model of the class found so far.
    flip_lower, flip_upper : ndarray of shape (n_patterns,)
        Certified bounds on the fewest errors of a model flipping each pattern.
    witness : ndarray of int, shape (n_patterns,)
        Index in ``pool`` of the model realising ``flip_upper`` (-1: none).
    lp_bound : ndarray of shape (n_patterns,)
        LP relaxation bound of each pattern's flip (``-inf``: not computed).
    flip_rows : dict
        Identity rows that each pattern's flip LP needed.
    flip_tries : ndarray of int, shape (n_patterns,)
        Flip MIPs of each pattern that a limit stopped before they decided
        it: later requests try the others first.
    discrepancies : dict
        Every discrepancy result so far, by ``(budget, key)``.
    stable_new : dict
        Budgets at which a person outside the training data is proven to
        keep the baseline's prediction, by ``(canonical pattern bytes,
        baseline prediction)``.
    log : list of MIPLogEntry
    """

    def __init__(self, enc, baseline, min_error_lower):
        self.enc = enc
        self.problem = enc.problem
        self.baseline = np.asarray(baseline, dtype=bool)
        self.baseline_errors = float(self.problem.errors(self.baseline))
        self.level_set = LevelSet.from_problem(
            self.problem, self.baseline_errors, self.baseline
        )
        self.min_error_lower = float(min_error_lower)
        k = self.problem.n_patterns
        self.lp_bound = np.full(k, -np.inf)
        self.flip_lower = np.full(k, self.min_error_lower)
        self.flip_upper = np.full(k, np.inf)
        self.witness = np.full(k, -1, dtype=np.int64)
        self.flip_rows = {}
        self.flip_tries = np.zeros(k, dtype=np.int64)
        self.pool = ModelPool()
        self.discrepancies = {}
        self.stable_new = {}
        self.log = []

    # -- models ----------------------------------------------------------------
    def add_model(self, model):
        """Add a verified model of the class; update flip upper bounds.

        Returns the model, or ``None`` when it is missing or outside the class.
        """
        model = in_class_or_repaired(self.enc, model)
        if model is None:
            return None
        index = len(self.pool)
        self.pool.add(model)
        k = self.problem.n_patterns
        flips = model.z[:k] != self.baseline
        better = flips & (model.errors < self.flip_upper)
        self.flip_upper[better] = model.errors
        self.witness[better] = index
        return model

    def witness_of(self, pattern):
        """The pooled model that flips ``pattern`` with the fewest errors, or None."""
        index = self.witness[pattern]
        return None if index < 0 else self.pool.models[index]

    def disagreement(self, model, weights):
        """Weight of the training patterns ``model`` predicts unlike the baseline."""
        k = self.problem.n_patterns
        return float(weights[model.z[:k] != self.baseline].sum())

    def best_within(self, budget, weights):
        """The pooled model within ``budget`` disagreeing most, and how much."""
        best = max(
            self.pool.within(budget),
            key=lambda m: self.disagreement(m, weights),
            default=None,
        )
        return best, 0.0 if best is None else self.disagreement(best, weights)

    def extended_baseline(self):
        """The baseline on every pattern of the encoding (extra patterns: 0)."""
        extra = self.enc.X.shape[0] - self.problem.n_patterns
        return np.concatenate([self.baseline, np.zeros(extra, dtype=bool)])

    # -- flip bounds -----------------------------------------------------------
    def raise_flip_lower(self, patterns, lower):
        """Raise the certified flip bounds of ``patterns`` to ``lower``."""
        self.flip_lower[patterns] = np.maximum(self.flip_lower[patterns], lower)
        self.flip_lower[patterns] = np.minimum(
            self.flip_lower[patterns], self.flip_upper[patterns]
        )

    def flippable(self, budget):
        """Mask of the patterns certified flippable within ``budget``."""
        return LevelSet.within(self.flip_upper, budget)

    def maybe_flippable(self, budget):
        """Mask of the patterns not proven unflippable within ``budget``."""
        return LevelSet.within(self.flip_lower, budget)

    def undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` (or exact ``E*_u``) is unknown."""
        low_enough = self.maybe_flippable(budget)
        if exact:
            return np.flatnonzero(low_enough & (self.flip_lower < self.flip_upper))
        return np.flatnonzero(low_enough & ~self.flippable(budget))

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        weights = self.problem.pattern_weight if weights is None else weights
        total = weights.sum()
        if total <= 0:
            return Bounds(0.0, 0.0)
        sure = self.flippable(budget)
        maybe = self.maybe_flippable(budget)
        return Bounds(
            float(weights[sure].sum() / total), float(weights[maybe].sum() / total)
        )

    # -- the log ---------------------------------------------------------------
    def record(self, mip, result):
        """Log the solve of ``mip``; returns its :class:`MIPLogEntry`."""
        return self.note(MIPLogEntry.of(mip, result))

    def note(self, entry):
        """Log ``entry`` (a solve or a batch of LP relaxations)."""
        self.log.append(entry)
        entry.emit()
        return entry


__all__ = ["TOLERANCE", "AuditState"]
