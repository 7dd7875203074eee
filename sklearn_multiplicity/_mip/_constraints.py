"""Constraints on the models of a hypothesis class, as rows of every MIP.

A constraint bound to one pattern problem narrows the class: it may tighten
the box of the canonical weights, add variables of its own (after the
pattern binaries) and add rows. :func:`~._encoding.encode` gives every MIP of
the encoding these bounds, variables and rows, so the minimum error, the flip
and the disagreement MIPs (and their LP relaxations) all range over the
constrained class; :meth:`satisfied` checks a verified model, so that no
model outside the constrained class enters an audit's pool.

- :class:`SignRows` -- fixed signs of some weights (a variable bound each);
- :class:`NonzeroRows` -- at most ``k`` non-zero weights (one binary indicator
  per weight and a cardinality row);
- :class:`RateGapRows` -- a rate (selection, false positive or false negative)
  of every group within ``max_gap`` of every other's (one row per pair).
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._core import TOLERANCE, weight_unit


@dataclass
class ConstraintContext:
    """What a constraint needs to bind to one pattern problem.

    Attributes
    ----------
    problem : PatternProblem
    y01 : ndarray of int, shape (n_samples,)
        Training labels in {0, 1}.
    weight : ndarray of shape (n_samples,)
        Training row weights.
    groups : ndarray of shape (n_samples,) or None
        The groups passed to ``fit``.
    feature_names : sequence of str or None
        Names of the audit space's columns.
    integer : bool
        Whether the class has integer weights (rows then get whole
        coefficients where the weights allow).
    """

    problem: object
    y01: np.ndarray
    weight: np.ndarray
    groups: object = None
    feature_names: object = None
    integer: bool = False

    def column(self, key):
        """Index in the audit space of feature ``key`` (a name or an index)."""
        names = None if self.feature_names is None else list(self.feature_names)
        n = self.problem.n_features
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < n:
                raise ValueError(f"Feature index {key} is not in [0, {n}).")
            return int(key)
        if names is not None and key in names:
            return names.index(key)
        raise ValueError(
            f"Unknown feature {key!r}: name a column of the audit space "
            f"({names if names is not None else f'indices 0 .. {n - 1}'})."
        )

    def canonical(self, key):
        """Position of feature ``key`` among the canonical (kept) weights."""
        j = self.column(key)
        where = np.flatnonzero(self.problem.kept_columns == j)
        if where.size == 0:
            raise ValueError(
                f"Feature {key!r} is constant or an affine combination of other "
                "features on the training data (for example the last dummy of a "
                "one-hot group): the class gives it no weight of its own, so no "
                "constraint can be put on it. Constrain the other features."
            )
        return int(where[0])


@dataclass
class Layout:
    """Where the variables of an encoding live, for constraints to add rows.

    ``w`` at ``0 .. p - 1``, ``b`` at ``p``, the pattern binaries at
    ``z_offset ..`` (``n_train`` training patterns first), then each
    constraint's own variables, in the order of the constraints.
    """

    p: int
    k: int
    n_train: int
    n_vars: int
    w_lower: np.ndarray
    w_upper: np.ndarray

    @property
    def z_offset(self):
        return self.p + 1


class ConstraintRows:
    """What a bound constraint adds to an encoding (by default, nothing)."""

    #: Variables of its own, placed after the pattern binaries.
    n_aux = 0

    def weight_bounds(self, w_lower, w_upper):
        """The box of the canonical weights, tightened by the constraint."""
        return w_lower, w_upper

    def aux_bounds(self):
        """Bounds and integrality of its own variables."""
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool)

    def aux_values(self, w):
        """Values of its own variables for a model of weights ``w``."""
        return np.zeros(0)

    def rows(self, layout, aux_offset):
        """``(A, lower, upper)`` of its rows (``None``: no rows); its own
        variables start at column ``aux_offset``."""
        return None

    def repair(self, w):
        """A direction close to ``w`` whose weights meet the constraint (for
        the searches: threshold shifts along it then need no repair)."""
        return w

    def admissible_cuts(self, order):
        """Which thresholds of a direction meet the constraint (``None``: all).

        ``order`` sorts the training patterns by score; cut ``i`` predicts
        positive the patterns ``order[i:]`` (one entry per cut, ``k + 1``).
        """
        return None

    def counted_if_positive(self, n_train):
        """What the constraint counts of each training pattern predicted
        positive, shape ``(n_train, c)`` (by default nothing, ``c = 0``)."""
        return np.zeros((n_train, 0))

    # Descents (exact line searches, :mod:`.._engine.binary.search._descent`) keep to a
    # constraint through the weight box (signs), :meth:`line_direction`
    # (sparsity), or :meth:`counted_if_positive` and :meth:`excess_of_counts`
    # (rates).
    def line_direction(self, w, dw):
        """The part of direction ``dw`` a descent may follow from ``w``."""
        return dw

    def excess_of_counts(self, counts):
        """How far totals of :meth:`counted_if_positive`, shape ``(m, c)``,
        break the constraint, one per row (0 where they meet it)."""
        return np.zeros(counts.shape[0])

    def satisfied(self, enc, model, tolerance):
        """Whether the verified ``model`` meets the constraint."""
        raise NotImplementedError

    def describe(self):
        """One line for reports."""
        raise NotImplementedError


@dataclass
class SignRows(ConstraintRows):
    """Fixed signs of canonical weights.

    Parameters
    ----------
    signs : ndarray of shape (p,)
        Per canonical weight: ``+1`` (non-negative), ``-1`` (non-positive),
        ``0`` (zero: the feature is left out) or ``nan`` (free).
    names : list of str
        The constrained features and their signs, for :meth:`describe`.
    """

    signs: np.ndarray
    names: list

    def weight_bounds(self, w_lower, w_upper):
        s = self.signs
        w_lower = np.where(s >= 0, np.maximum(w_lower, 0.0), w_lower)
        w_upper = np.where(s <= 0, np.minimum(w_upper, 0.0), w_upper)
        return w_lower, w_upper

    def repair(self, w):
        s = self.signs
        w = np.where(s >= 0, np.maximum(w, 0.0), w)
        return np.where(s <= 0, np.minimum(w, 0.0), w)

    def satisfied(self, enc, model, tolerance):
        s, w = self.signs, model.w
        return bool(np.all(w[s >= 0] >= -tolerance) and np.all(w[s <= 0] <= tolerance))

    def describe(self):
        return "signs: " + ", ".join(self.names)


@dataclass
class NonzeroRows(ConstraintRows):
    """At most ``k`` non-zero canonical weights.

    One binary ``v_j`` per weight that may be non-zero, with
    ``lo_j v_j <= w_j <= hi_j v_j`` (the weight box) and ``sum v_j <= k``.
    """

    k: int
    p: int = 0

    @property
    def n_aux(self):
        return self.p

    def aux_bounds(self):
        return np.zeros(self.p), np.ones(self.p), np.ones(self.p, dtype=bool)

    def aux_values(self, w):
        return (np.abs(np.asarray(w, dtype=float)) > 0).astype(float)

    def rows(self, layout, aux_offset):
        p, v = layout.p, aux_offset + np.arange(layout.p)
        j = np.arange(p)
        # w_j - hi_j v_j <= 0 and w_j - lo_j v_j >= 0, then sum v <= k.
        rows = np.concatenate([j, j, p + j, p + j, np.full(p, 2 * p)])
        cols = np.concatenate([j, v, j, v, v])
        vals = np.concatenate(
            [np.ones(p), -layout.w_upper, np.ones(p), -layout.w_lower, np.ones(p)]
        )
        A = sp.coo_matrix((vals, (rows, cols)), shape=(2 * p + 1, layout.n_vars))
        lower = np.concatenate([np.full(p, -np.inf), np.zeros(p), [-np.inf]])
        upper = np.concatenate([np.zeros(p), np.full(p, np.inf), [float(self.k)]])
        return A, lower, upper

    def line_direction(self, w, dw):
        # Weights outside the support move only while it has room, the
        # largest moves first (swaps are not searched).
        new = np.flatnonzero((np.asarray(w) == 0) & (dw != 0))
        room = max(self.k - np.count_nonzero(w), 0)
        if new.size <= room:
            return dw
        held = new[np.argsort(-np.abs(dw[new]), kind="stable")[room:]]
        dw = dw.copy()
        dw[held] = 0.0
        return dw

    def repair(self, w):
        if np.count_nonzero(w) <= self.k:
            return w
        kept = np.zeros(w.size, dtype=bool)
        kept[np.argsort(-np.abs(w), kind="stable")[: self.k]] = True
        return np.where(kept, w, 0.0)

    def satisfied(self, enc, model, tolerance):
        return int(np.sum(np.abs(model.w) > tolerance)) <= self.k

    def describe(self):
        return f"at most {self.k} non-zero weight" + ("" if self.k == 1 else "s")


#: What each rate of :class:`RateGapRows` counts, and over which rows.
RATES = {
    "selection": "selection rate",
    "fpr": "false positive rate",
    "fnr": "false negative rate",
}


@dataclass
class RateGapRows(ConstraintRows):
    """A rate of every group within ``max_gap`` of every other group's.

    Parameters
    ----------
    labels : ndarray
        The groups.
    share : ndarray of shape (n_groups, n_train)
        Per group and training pattern, the weight of the group's rows that
        the rate counts (all rows, negatives or positives).
    rate : {"selection", "fpr", "fnr"}
    max_gap : float
    integral : bool
        Whether the weights are whole numbers (then rows are scaled to whole
        coefficients, for solvers of integer problems).
    """

    labels: np.ndarray
    share: np.ndarray
    rate: str
    max_gap: float
    integral: bool = False

    def rates(self, z):
        """The rate of every group under pattern predictions ``z`` (bool)."""
        z = np.asarray(z, dtype=float)
        totals = self.share.sum(axis=1)
        positive = self.share @ z / totals
        return 1.0 - positive if self.rate == "fnr" else positive

    def admissible_cuts(self, order):
        share = self.share[:, order]
        positive_from = np.concatenate(
            [np.cumsum(share[:, ::-1], axis=1)[:, ::-1], np.zeros((len(share), 1))],
            axis=1,
        )
        rates = positive_from / self.share.sum(axis=1)[:, None]
        return rates.max(axis=0) - rates.min(axis=0) <= self.max_gap + TOLERANCE

    def counted_if_positive(self, n_train):
        return self.share[:, :n_train].T

    def excess_of_counts(self, counts):
        # Counts of positives per group; a false negative rate is one minus
        # the positive rate, so its gaps are those of the positive rates.
        rates = counts / self.share.sum(axis=1)
        gap = rates.max(axis=1) - rates.min(axis=1)
        return np.where(gap <= self.max_gap + TOLERANCE, 0.0, gap - self.max_gap)

    def rows(self, layout, aux_offset):
        share = self.share
        if self.integral:
            # In the weights' unit, so that repeated data give the same rows.
            share = share / weight_unit(share)
        totals = share.sum(axis=1)
        pairs = [(g, h) for g in range(len(totals)) for h in range(g + 1, len(totals))]
        if not pairs:
            return None
        coefficients, bounds = [], []
        for g, h in pairs:
            if self.integral:
                # N_h n_g . z - N_g n_h . z, whole when the weights are.
                row = totals[h] * share[g] - totals[g] * share[h]
                bound = np.floor(self.max_gap * totals[g] * totals[h] + TOLERANCE)
            else:
                row = share[g] / totals[g] - share[h] / totals[h]
                bound = self.max_gap + TOLERANCE
            coefficients.append(row)
            bounds.append(bound)
        dense = np.zeros((len(pairs), layout.n_vars))
        dense[:, layout.z_offset : layout.z_offset + layout.n_train] = coefficients
        bounds = np.array(bounds, dtype=float)
        return sp.csr_matrix(dense), -bounds, bounds

    def satisfied(self, enc, model, tolerance):
        rates = self.rates(model.z[: enc.n_train])
        return bool(rates.max() - rates.min() <= self.max_gap + TOLERANCE)

    def describe(self):
        groups = ", ".join(str(g) for g in self.labels)
        return (
            f"{RATES[self.rate]} of groups {groups} within "
            f"{self.max_gap:g} of each other"
        )
