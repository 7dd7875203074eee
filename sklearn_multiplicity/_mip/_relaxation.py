"""LP relaxations with lazily separated affine-identity rows.

With the affine-identity rows, the LP relaxation of the 0-1 loss MIPs is very
tight on categorical data (on COMPAS it equals the integer optimum of the
minimum-error MIP). Two uses follow:

- **Proofs without branching.** The LP value of a flip MIP is a lower bound
  on ``E*_u``, the fewest errors of a model flipping that pattern; when it
  exceeds the error budget, the pattern is proven unflippable.
- **Small MIPs.** Only a few thousand of the identity rows (73,195 on COMPAS)
  are ever tight. A MIP given just the rows its own LP needed keeps (almost)
  the same root bound, and its node LPs are far cheaper
  (``benchmarks/README.rst``). The rows left out are valid inequalities,
  not constraints: the integer solutions are the same with or without them.

:class:`IdentitySeparator` solves the LP of any MIP built on an encoding,
starting from the big-M rows, the MIP's own extra rows and the identity rows
that the unconstrained minimum-error LP needed, and adds the most violated
identity rows until none is violated, which gives the value of the LP with
every identity row. Every intermediate LP is a relaxation as well, so its
value is a valid bound even when the loop is cut short. :func:`lp_bound`
solves the LP of a MIP of any encoding (the K-label one too) with all its
rows at once.

The LP's optimal weights are a linear model too. When its ``z`` is integral
(often, with the identity rows) that model attains the LP value, so one LP
both bounds the MIP and solves it; otherwise its direction still seeds
threshold shifts (:mod:`._heuristics`).
"""

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from . import _formulations

#: Identity rows added per separation round.
ROWS_PER_ROUND = 500
#: Separation rounds per LP (each round's LP is already a valid bound).
MAX_ROUNDS = 30
#: Relative shading of LP values against the LP solver's tolerances.
SHADE = 1e-6


@dataclass
class Relaxation:
    """The separated LP relaxation of one MIP.

    Attributes
    ----------
    bound : float
        Certified bound on the MIP's optimum (lower when minimising, upper
        when maximising), in weights (the LP's value times the MIP's
        ``objective_unit``), shaded by a relative 1e-6 towards the safe side;
        ``+-inf`` when the LP is infeasible (so is the MIP) and the trivial
        ``-+inf`` when the LP solver failed (nothing proven).
    x : ndarray or None
        The last LP solution (unverified).
    rows : ndarray of int
        Identity rows (indices into ``enc.identities``) of the last LP.
    """

    bound: float
    x: np.ndarray
    rows: np.ndarray

    def model(self, enc):
        """``(w, b)`` of the LP solution, or ``None``."""
        if self.x is None:
            return None
        return enc.decode(self.x)[:2]


class IdentitySeparator:
    """Cutting-plane LP relaxations of the MIPs of one encoding.

    Parameters
    ----------
    enc : Encoding
        Variables and rows of the MIPs; its identity rows are separated
        lazily instead of being added at once.
    time_limit : float or None, default=None
        Seconds for the minimum-error LP that every later LP starts from.
    """

    def __init__(self, enc, *, time_limit=None):
        self.enc = enc
        self.identities = (
            enc.identities if enc.identities is not None else np.zeros((0, 4), int)
        )
        self._first_identity = enc.n_big_m_rows
        self._identity_rows = enc.A[
            self._first_identity : self._first_identity + enc.n_identities
        ]
        self.n_lps = 0
        # Every LP starts from the identity rows that the minimum-error LP
        # needed (computed once, before any thread shares the separator).
        self.base_rows = np.zeros(0, dtype=np.int64)
        self.base_rows = self.relax(
            _formulations.min_error(enc), time_limit=time_limit
        ).rows

    # -- MIPs with fewer identity rows ----------------------------------------
    def _row_split(self, mip):
        """Indices of the non-identity rows of ``mip`` (big-M, then extras)."""
        first = self._first_identity
        after = first + self.enc.n_identities
        return np.concatenate([np.arange(first), np.arange(after, mip.n_rows)])

    def restrict(self, mip, rows):
        """``mip`` with only the identity rows ``rows`` (same integer solutions)."""
        other = self._row_split(mip)
        first = self._first_identity
        keep = np.concatenate([other[:first], first + np.sort(rows), other[first:]])
        return mip.with_rows_only(keep)

    def tighten(self, mip, *, time_limit=None, near=None):
        """``(small_mip, relaxation)``: :meth:`relax`, then :meth:`restrict`.

        ``near``: the identity rows of a nearby MIP's relaxation, which the
        separation starts from (see :meth:`relax`)."""
        relaxation = self.relax(mip, time_limit=time_limit, rows=near)
        rows = relaxation.rows
        if rows.size == 0:
            rows = self.base_rows
        return self.restrict(mip, rows), relaxation

    # -- the LP ----------------------------------------------------------------
    def relax(self, mip, *, time_limit=None, rows=None):
        """The LP relaxation of ``mip`` (built on this encoding), separated.

        ``time_limit`` (seconds, ``None``: unlimited) bounds all its rounds;
        when it stops them, the last LP solved still bounds the MIP (the
        trivial bound when none was). ``rows`` (identity rows) join the first
        LP's rows, which saves rounds for a MIP close to one already relaxed.
        """
        end = None if time_limit is None else time.perf_counter() + time_limit
        other = self._row_split(mip)
        A, b = _one_sided(mip.A[other], mip.row_lower[other], mip.row_upper[other])
        sign = -1.0 if mip.maximize else 1.0
        c = sign * mip.objective
        bounds = np.column_stack([mip.var_lower, mip.var_upper])
        active = self.base_rows if rows is None else np.union1d(self.base_rows, rows)
        A, b = self._with_rows(A, b, active)
        trivial = -sign * np.inf  # nothing proven
        value, x = trivial, None
        for _ in range(MAX_ROUNDS):
            options = {}
            if end is not None:
                left = end - time.perf_counter()
                if left <= 0:
                    break
                options["time_limit"] = left
            result = linprog(
                c, A_ub=A, b_ub=b, bounds=bounds, method="highs", options=options
            )
            self.n_lps += 1
            if result.status == 2:  # infeasible: so is the MIP
                return Relaxation(sign * np.inf, None, active)
            if result.status != 0:
                break  # the last solved relaxation still bounds
            x, value = result.x, _shaded(mip, result.fun)
            more = self._violated(x[self.enc.z_offset :])
            more = more[~np.isin(more, active)]
            if more.size == 0:
                break
            A, b = self._with_rows(A, b, more)
            active = np.union1d(active, more)
        return Relaxation(mip.objective_unit * value, x, active)

    def flip_bound(self, pattern, label, *, time_limit=None):
        """Certified lower bound on the fewest errors with ``pattern -> label``."""
        flip = _formulations.flip(self.enc, pattern, label)
        return self.relax(flip, time_limit=time_limit).bound

    def _with_rows(self, A, b, which):
        """``A x <= b`` with the identity rows ``which`` appended (both sides)."""
        if which.size == 0:
            return A, b
        rows = self._identity_rows[which]
        return (
            sp.vstack([A, rows, -rows], format="csr"),
            np.concatenate([b, np.ones(2 * which.size)]),
        )

    def _violated(self, z):
        if not self.identities.shape[0]:
            return np.zeros(0, dtype=np.int64)
        a, b, c, d = self.identities.T
        excess = np.abs(z[a] + z[b] - z[c] - z[d]) - 1.0
        violated = np.flatnonzero(excess > 1e-7)
        order = np.argsort(-excess[violated], kind="stable")
        return violated[order[:ROWS_PER_ROUND]]


def lp_bound(mip, *, time_limit=None):
    """Certified bound on the optimum of ``mip`` (lower when minimising,
    upper when maximising) from its LP relaxation with every row, in weights
    (as :attr:`Relaxation.bound`).

    ``time_limit`` (seconds, ``None``: unlimited) bounds the LP; when it stops
    the LP, nothing is proven: the trivial ``-+inf``.
    """
    A, b = _one_sided(mip.A, mip.row_lower, mip.row_upper)
    sign = -1.0 if mip.maximize else 1.0
    options = {} if time_limit is None else {"time_limit": max(time_limit, 0.0)}
    result = linprog(
        sign * mip.objective,
        A_ub=A,
        b_ub=b,
        bounds=np.column_stack([mip.var_lower, mip.var_upper]),
        method="highs",
        options=options,
    )
    if result.status == 2:  # infeasible: so is the MIP
        return sign * np.inf
    if result.status != 0:
        return -sign * np.inf
    return mip.objective_unit * _shaded(mip, result.fun)


def _one_sided(A, lower, upper):
    """``lower <= A x <= upper`` as ``A_ub x <= b_ub``, the only form of
    linprog's inequalities."""
    finite_upper, finite_lower = np.isfinite(upper), np.isfinite(lower)
    return (
        sp.vstack([A[finite_upper], -A[finite_lower]], format="csr"),
        np.concatenate([upper[finite_upper], -lower[finite_lower]]),
    )


def _shaded(mip, fun):
    """The objective of ``mip`` at an LP optimum of value ``fun`` (of the
    minimised, sign-adjusted objective), shaded towards the safe side."""
    sign = -1.0 if mip.maximize else 1.0
    value = sign * fun + mip.objective_offset
    return value - sign * SHADE * max(1.0, abs(value))
