"""Where the variables of the MIPs on one pattern problem live, and their shared rows.

Variables are ordered ``[w (p), b, z (k)]``: canonical weights, intercept and
one binary per pattern (``z_u = 1``: pattern ``u`` predicted positive). For a
hypothesis class with thresholds ``(t_pos, t_neg)`` and per-pattern score
bounds ``L_u <= s_u <= U_u`` implied by the weight box, the big-M rows are

    s_u - (t_pos - L_u) z_u >= L_u      (z_u = 1  =>  s_u >= t_pos)
    s_u - (U_u - t_neg) z_u <= t_neg    (z_u = 0  =>  s_u <= t_neg)

so ``z`` is exactly the dichotomy of a model of the class. Every formulation
(:mod:`._formulations`) starts from these rows. Constraints on the class
(:mod:`._constraints`) tighten the weight box, put variables of their own
after ``z`` and add their rows after the affine-identity rows.

Weights reach a solver in units of the problem's
:attr:`~.._core.PatternProblem.weight_unit` (:attr:`Encoding.unit`): the
error objective, the budget rows and the flags of integral objectives all
read :attr:`Encoding.positive_weight` and :attr:`Encoding.negative_weight`
and :meth:`Encoding.budget_in_units`, so repeating the data changes no
solver input. Each MIP records its unit (:attr:`~._program.MIP.objective_unit`)
and every value or bound read back is multiplied by it.
"""

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .._core import TOLERANCE, error_ceiling, logistic_fit
from ._constraints import Layout
from ._cuts import affine_identities, identity_rows
from ._program import MIP


@dataclass
class Encoding:
    """Where the variables of one pattern problem live, and their shared rows."""

    problem: object
    hypothesis: object
    X: np.ndarray  # canonical patterns (plus extra patterns, if any)
    n_train: int  # rows of X that are training patterns
    A: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    var_lower: np.ndarray
    var_upper: np.ndarray
    is_integer: np.ndarray
    n_identities: int
    #: The affine identities ``(a, b, c, d)`` behind the identity rows.
    identities: np.ndarray = None
    #: Bound constraints on the class (:mod:`._constraints`).
    constraints: tuple = ()
    #: The weight box, as tightened by the constraints.
    w_lower: np.ndarray = None
    w_upper: np.ndarray = None

    @cached_property
    def logistic(self):
        """``(w, b)`` of the logistic regression (``C=1``) on the weighted
        training patterns, or None (:func:`~.._core.logistic_fit`): fitted
        once, for the warm starts and for the assessment."""
        return logistic_fit(self)

    def weight_bounds(self):
        """``(w_lo, w_hi, b_lo, b_hi)`` of the (constrained) class."""
        _, _, b_lo, b_hi = self.hypothesis.weight_bounds(self.problem)
        return self.w_lower, self.w_upper, b_lo, b_hi

    @property
    def n_big_m_rows(self):
        """Rows ``0 .. 2 k - 1`` tie ``z`` to the scores; identity rows follow."""
        return 2 * self.X.shape[0]

    @property
    def p(self):
        return self.X.shape[1]

    @property
    def z_offset(self):
        return self.p + 1

    @property
    def n_vars(self):
        return self.A.shape[1]

    def z_slice(self):
        return slice(self.z_offset, self.z_offset + self.X.shape[0])

    # -- weights in the unit of the solvers ---------------------------------
    @cached_property
    def unit(self):
        """The weight that every MIP on the encoding counts as one."""
        return self.problem.weight_unit

    @cached_property
    def positive_weight(self):
        """Positive weight of every training pattern, in :attr:`unit`."""
        return self.problem.positive_weight / self.unit

    @cached_property
    def negative_weight(self):
        """Negative weight of every training pattern, in :attr:`unit`."""
        return self.problem.negative_weight / self.unit

    def budget_in_units(self, budget):
        """The largest error within ``budget`` (a weight), in :attr:`unit`.

        With integral weights every error is a whole number of units, so the
        ceiling is rounded down to one: ``budget`` and ``k`` times the data's
        with ``k`` times ``budget`` give the same row.
        """
        problem = self.problem
        integral = problem.weights_are_integral
        ceiling = error_ceiling(budget, problem.total_weight, integral) / self.unit
        return float(math.floor(ceiling + TOLERANCE)) if integral else ceiling

    def error_objective(self):
        """Objective vector and offset of the weighted training error, in
        :attr:`unit`."""
        c = np.zeros(self.n_vars)
        c[self.z_offset : self.z_offset + self.n_train] = (
            self.negative_weight - self.positive_weight
        )
        return c, float(self.positive_weight.sum())

    def decode(self, x):
        """``(w, b, z)`` of a MIP solution vector."""
        x = np.asarray(x, dtype=float)
        z = np.round(x[self.z_slice()]).astype(bool)
        return x[: self.p], float(x[self.p]), z

    def encode(self, w, b):
        """Full solution vector of the canonical model ``(w, b)``."""
        z = (self.X @ w + b) > 0
        aux = [c.aux_values(w) for c in self.constraints]
        return np.concatenate([w, [b], z.astype(float), *aux])

    def hint_from(self, model):
        """A hint vector from a canonical model ``(w, b)`` or ``None``."""
        if model is None:
            return None
        w, b = model
        return self.encode(np.asarray(w, float), float(b))

    def mip(
        self,
        objective,
        offset,
        *,
        maximize,
        integral,
        name,
        kind,
        hint=None,
        var_lower=None,
        var_upper=None,
        extra_rows=None,
        branching_priority=None,
        unit=1.0,
    ):
        """The :class:`~._program.MIP` of ``objective`` on the shared rows
        (plus ``extra_rows``), whose objective counts in ``unit``."""
        A, lo, hi = self.A, self.row_lower, self.row_upper
        if extra_rows is not None:
            rows_A, rows_lo, rows_hi = extra_rows
            A = sp.vstack([A, sp.csr_matrix(rows_A)], format="csr")
            lo = np.concatenate([lo, rows_lo])
            hi = np.concatenate([hi, rows_hi])
        return MIP(
            objective=objective,
            A=A,
            row_lower=lo,
            row_upper=hi,
            var_lower=self.var_lower if var_lower is None else var_lower,
            var_upper=self.var_upper if var_upper is None else var_upper,
            is_integer=self.is_integer,
            maximize=maximize,
            objective_offset=offset,
            objective_is_integral=integral,
            objective_unit=unit,
            hint=hint,
            branching_priority=branching_priority,
            name=name,
            kind=kind,
        )

    def heaviest_first(self, weights):
        """Branching priorities: the patterns in decreasing order of ``weights``.

        A strict order (of equal weights, the later pattern first); the
        model's coefficients and intercept are continuous and get none.
        """
        priority = np.zeros(self.n_vars, dtype=np.int32)
        order = np.argsort(np.asarray(weights, dtype=float), kind="stable")
        priority[self.z_offset + order] = np.arange(1, order.size + 1)
        return priority


def encode(problem, hypothesis, *, extra_patterns=None, cuts=True, constraints=()):
    """The variables and shared rows of every MIP on ``problem``.

    Parameters
    ----------
    problem : PatternProblem
    hypothesis : BoxMargin or IntegerWeights
    extra_patterns : ndarray of shape (m, n_features) or None
        Patterns with no training weight that get a binary of their own (new
        people whose prediction a flip MIP asks about).
    cuts : bool
        Add the affine-identity inequalities among training patterns.
    constraints : sequence of ConstraintRows
        Constraints on the class, bound to ``problem``.
    """
    X = problem.canonical(scaled=hypothesis.scaled)
    n_train = X.shape[0]
    if extra_patterns is not None and len(extra_patterns):
        X = np.vstack([X, problem.canonical(extra_patterns, scaled=hypothesis.scaled)])
    k, p = X.shape
    w_lo, w_hi, b_lo, b_hi = hypothesis.weight_bounds(problem)
    constraints = tuple(constraints)
    for constraint in constraints:
        w_lo, w_hi = constraint.weight_bounds(w_lo, w_hi)
    t_pos, t_neg = hypothesis.thresholds
    # Score bounds of each pattern over the weight box.
    L = b_lo + np.minimum(X * w_lo, X * w_hi).sum(axis=1)
    U = b_hi + np.maximum(X * w_lo, X * w_hi).sum(axis=1)
    z_offset = p + 1
    n_vars = z_offset + k
    aux_offsets = []
    for constraint in constraints:
        aux_offsets.append(n_vars)
        n_vars += constraint.n_aux

    dense = np.column_stack([X, np.ones(k)])
    rows = np.repeat(np.arange(k), p + 1)
    cols = np.tile(np.arange(p + 1), k)
    vals = dense.ravel()
    keep = vals != 0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    z_cols = z_offset + np.arange(k)
    big_m = sp.coo_matrix(
        (
            np.concatenate([vals, -(t_pos - L), vals, -(U - t_neg)]),
            (
                np.concatenate([rows, np.arange(k), rows + k, np.arange(k) + k]),
                np.concatenate([cols, z_cols, cols, z_cols]),
            ),
        ),
        shape=(2 * k, n_vars),
    )
    row_lower = np.concatenate([L, np.full(k, -np.inf)])
    row_upper = np.concatenate([np.full(k, np.inf), np.full(k, t_neg)])
    blocks = [big_m]
    n_identities = 0
    quads = np.zeros((0, 4), dtype=np.int64)
    if cuts:
        quads = affine_identities(problem.patterns, weights=problem.pattern_weight)
        if quads.shape[0]:
            r, c, v = identity_rows(quads, z_offset, n_vars)
            # Coincident entries (a == b) add up to 2 in COO -> CSR.
            blocks.append(sp.coo_matrix((v, (r, c)), shape=(quads.shape[0], n_vars)))
            row_lower = np.concatenate([row_lower, -np.ones(quads.shape[0])])
            row_upper = np.concatenate([row_upper, np.ones(quads.shape[0])])
            n_identities = quads.shape[0]
    layout = Layout(p, k, n_train, n_vars, w_lo, w_hi)
    for constraint, offset in zip(constraints, aux_offsets, strict=True):
        rows = constraint.rows(layout, offset)
        if rows is not None:
            blocks.append(sp.csr_matrix(rows[0]))
            row_lower = np.concatenate([row_lower, rows[1]])
            row_upper = np.concatenate([row_upper, rows[2]])
    A = sp.vstack(blocks, format="csr")
    aux = [c.aux_bounds() for c in constraints]
    var_lower = np.concatenate([w_lo, [b_lo], np.zeros(k), *(a[0] for a in aux)])
    var_upper = np.concatenate([w_hi, [b_hi], np.ones(k), *(a[1] for a in aux)])
    is_integer = np.concatenate(
        [np.full(p + 1, hypothesis.integer), np.ones(k, bool), *(a[2] for a in aux)]
    )
    return Encoding(
        problem,
        hypothesis,
        X,
        n_train,
        A,
        row_lower,
        row_upper,
        var_lower,
        var_upper,
        is_integer,
        n_identities,
        quads,
        constraints,
        w_lo,
        w_hi,
    )
