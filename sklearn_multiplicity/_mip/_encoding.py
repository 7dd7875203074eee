"""The two-label encoding: where the variables of the MIPs on one pattern
problem live, and their shared rows (K = 2 of :mod:`._assembly`).

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

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .._core import logistic_fit
from ._assembly import PatternEncoding, model_box, score_bounds, score_entries
from ._constraints import Layout
from ._cuts import affine_identities, identity_rows


@dataclass
class Encoding(PatternEncoding):
    """Where the variables of one two-label pattern problem live, and their
    shared rows; ``X`` holds the training patterns, then any extra ones."""

    n_train: int = 0  # rows of X that are training patterns
    n_identities: int = 0
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
    def z_offset(self):
        return self.p + 1

    def z_slice(self):
        return slice(self.z_offset, self.z_offset + self.X.shape[0])

    # -- weights in the unit of the solvers ---------------------------------
    @cached_property
    def positive_weight(self):
        """Positive weight of every training pattern, in :attr:`unit`."""
        return self.problem.positive_weight / self.unit

    @cached_property
    def negative_weight(self):
        """Negative weight of every training pattern, in :attr:`unit`."""
        return self.problem.negative_weight / self.unit

    def error_objective(self):
        """Objective vector and offset of the weighted training error, in
        :attr:`unit`."""
        c = np.zeros(self.n_vars)
        c[self.z_offset : self.z_offset + self.n_train] = (
            self.negative_weight - self.positive_weight
        )
        return c, float(self.positive_weight.sum())

    def label_budget_rows(self, budget):
        """False positives and false negatives within the two ceilings of
        ``budget`` (a :class:`~.._core.ClassBudget`), a row each."""
        z = self.z_slice()
        rows = np.zeros((2, self.n_vars))
        train = slice(z.start, z.start + self.n_train)
        rows[0, train] = self.negative_weight  # false positives: sum neg z
        rows[1, train] = -self.positive_weight  # false negatives: pos (1 - z)
        fp = self.budget_in_units(budget.false_positives)
        fn = self.budget_in_units(budget.false_negatives)
        upper = np.array([fp, fn - self.positive_weight.sum()])
        return sp.csr_matrix(rows), np.full(2, -np.inf), upper

    # -- solutions -----------------------------------------------------------
    def decode(self, x):
        """``(w, b, z)`` of a MIP solution vector."""
        x = np.asarray(x, dtype=float)
        z = np.round(x[self.z_slice()]).astype(bool)
        return x[: self.p], float(x[self.p]), z

    def encode(self, w, b):
        """Full solution vector of the canonical model ``(w, b)``."""
        w, b = np.asarray(w, float), float(b)
        z = (self.X @ w + b) > 0
        aux = [c.aux_values(w) for c in self.constraints]
        return np.concatenate([w, [b], z.astype(float), *aux])


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
    L, U = score_bounds(X, w_lo, w_hi, b_lo, b_hi)
    z_offset = p + 1
    n_vars = z_offset + k
    aux_offsets = []
    for constraint in constraints:
        aux_offsets.append(n_vars)
        n_vars += constraint.n_aux

    rows, cols, vals = score_entries(X, np.arange(k), 0, p)
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
    lower, upper, integer = model_box(w_lo, w_hi, b_lo, b_hi, 1, k, hypothesis.integer)
    aux = [c.aux_bounds() for c in constraints]
    return Encoding(
        problem,
        hypothesis,
        X,
        A,
        row_lower,
        row_upper,
        np.concatenate([lower, *(a[0] for a in aux)]),
        np.concatenate([upper, *(a[1] for a in aux)]),
        np.concatenate([integer, *(a[2] for a in aux)]),
        n_train,
        n_identities,
        quads,
        constraints,
        w_lo,
        w_hi,
    )
