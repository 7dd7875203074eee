"""The one assembly of the MIPs on a pattern problem, for two labels and K.

Every MIP's variables are a linear model in the box of its hypothesis class
(weights, then intercepts), then binaries that say how the model labels
each pattern, tied to its scores by rows over each pattern's score bounds
in the box. Two labels (K = 2) have one score ``w . x + b`` and one binary
per pattern, set by a pair of big-M rows (:mod:`._encoding`); K labels have
``K - 1`` scores (class 0 scores 0) and a binary per pattern and label, set
by the score-difference rows of :mod:`._multiclass`, the extension that for
K = 2 would only double the binaries a big-M pair decides.

Written here once for both: the bounds of the variables (:func:`model_box`),
each pattern's score bounds over the box (:func:`score_bounds`), a score's
entries in a row (:func:`score_entries`) and, on :class:`PatternEncoding`,
the weights in the solvers' unit, the rows of an error budget, the
objective of the fewest errors and the assembly of a
:class:`~._program.MIP` on the shared rows.
"""

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .._core import TOLERANCE, LabelCeilings, error_ceiling
from ._program import MIP


def score_bounds(X, w_lo, w_hi, b_lo, b_hi):
    """``(L, U)``: the least and largest score ``w . x_u + b`` of every
    pattern ``x_u`` (a row of ``X``) over the weight box."""
    L = b_lo + np.minimum(X * w_lo, X * w_hi).sum(axis=1)
    U = b_hi + np.maximum(X * w_lo, X * w_hi).sum(axis=1)
    return L, U


def score_entries(X, rows, first_weight, intercept, sign=1.0):
    """``(rows, columns, values)`` of ``sign * (w . x_u + b)`` on row
    ``rows[u]`` for every pattern ``x_u`` of ``X``, with ``w`` in the columns
    from ``first_weight`` on and ``b`` in column ``intercept``; zero
    features get no entry."""
    n, p = X.shape
    dense = np.column_stack([X, np.ones(n)])
    columns = np.append(first_weight + np.arange(p), intercept)
    row_ids = np.repeat(rows, p + 1)
    col_ids = np.tile(columns, n)
    values = sign * dense.ravel()
    keep = values != 0
    return row_ids[keep], col_ids[keep], values[keep]


def model_box(w_lo, w_hi, b_lo, b_hi, n_scores, n_binaries, integer):
    """``(var_lower, var_upper, is_integer)`` of ``n_scores`` models of the
    box (all weights, then all intercepts) followed by ``n_binaries``
    binaries."""
    p = np.asarray(w_lo).size
    lower = np.concatenate(
        [np.tile(w_lo, n_scores), np.full(n_scores, b_lo), np.zeros(n_binaries)]
    )
    upper = np.concatenate(
        [np.tile(w_hi, n_scores), np.full(n_scores, b_hi), np.ones(n_binaries)]
    )
    is_integer = np.concatenate(
        [np.full(n_scores * (p + 1), integer), np.ones(n_binaries, bool)]
    )
    return lower, upper, is_integer


@dataclass
class PatternEncoding:
    """Where the variables of the MIPs on one pattern problem live, and their
    shared rows: what the two-label and the K-label encodings share.

    A family's encoding adds where its binaries are, how its labels cost
    errors (``error_objective``, returning the objective vector and its
    offset in :attr:`unit`), the rows of per-label ceilings
    (``label_budget_rows``), and ``encode`` / ``decode`` of a model.
    """

    problem: object
    hypothesis: object
    X: np.ndarray  # canonical patterns
    A: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    var_lower: np.ndarray
    var_upper: np.ndarray
    is_integer: np.ndarray

    @property
    def p(self):
        """Canonical columns: the weights of one score."""
        return self.X.shape[1]

    @property
    def n_vars(self):
        """Columns of the shared rows: the model, binaries, auxiliaries."""
        return self.A.shape[1]

    # -- weights in the unit of the solvers ---------------------------------
    @cached_property
    def unit(self):
        """The weight that every MIP on the encoding counts as one."""
        return self.problem.weight_unit

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

    def budget_rows(self, budget):
        """``errors <= budget`` as ``(A, lower, upper)`` in :attr:`unit`
        (rounded down for integral weights); a row per label for
        :class:`~.._core.LabelCeilings`."""
        if isinstance(budget, LabelCeilings):
            return self.label_budget_rows(budget)
        c, offset = self.error_objective()
        ceiling = self.budget_in_units(budget)
        return (
            sp.csr_matrix(c.reshape(1, -1)),
            np.array([-np.inf]),
            np.array([ceiling - offset]),
        )

    # -- MIPs on the shared rows --------------------------------------------
    def hint_from(self, model):
        """A hint vector from a canonical model, or ``None``."""
        return None if model is None else self.encode(*model)

    def heaviest_first(self, weights, columns=None):
        """Branching priorities deciding the binaries ``columns`` (default:
        one per pattern) in decreasing order of ``weights``.

        A strict order (of equal weights, the later pattern first); the
        model's coefficients and intercepts are continuous and get none.
        """
        priority = np.zeros(self.n_vars, dtype=np.int32)
        order = np.argsort(np.asarray(weights, dtype=float), kind="stable")
        if columns is None:
            columns = self.z_offset + np.arange(order.size)
        priority[columns[order]] = np.arange(1, order.size + 1)
        return priority

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
        (plus ``extra_rows``, an ``(A, lower, upper)``), whose objective
        counts in ``unit``."""
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

    def fewest_errors(self, name, kind, **extra):
        """The MIP of the fewest weighted training errors on the shared rows
        (``extra`` as in :meth:`mip`)."""
        c, offset = self.error_objective()
        return self.mip(
            c,
            offset,
            maximize=False,
            integral=self.problem.weights_are_integral,
            name=name,
            kind=kind,
            unit=self.unit,
            **extra,
        )
