"""Lower bounds on flip errors from the LP relaxation, by cutting planes.

With the affine-identity rows, the LP relaxation of the 0-1 loss MIP is very
tight on categorical data (on COMPAS it equals the integer optimum). Its value
with one pattern's label fixed is a lower bound on ``E*_u``, the fewest errors
of a model flipping that pattern; when it exceeds the error budget, the
pattern is proven unflippable without any branching.

The full LP has one row per identity (73,195 on COMPAS), but only a few
thousand are ever tight. :class:`FlipRelaxation` starts from the big-M rows
and the identity rows that the unconstrained LP needed, and adds the most
violated identity rows until none is violated, which gives the value of the
full LP; every intermediate LP is a relaxation as well, so its value is a
valid bound even when the loop is cut short. Rows added for one pattern are
dropped afterwards: different patterns violate different identities, and
keeping them all would slow every later LP.

The LP's optimal weights are a linear model too. When its ``z`` is integral
(often, with the identity rows) that model realises the LP value, so one LP
both proves ``E*_u`` from below and attains it; otherwise its direction still
seeds threshold shifts (:mod:`._heuristics`).
"""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

#: Identity rows added per separation round.
ROWS_PER_ROUND = 500
#: Separation rounds per bound (each round's LP is already a valid bound).
MAX_ROUNDS = 30


class FlipRelaxation:
    """LP lower bounds on the fewest errors of a model giving a pattern a label.

    Parameters
    ----------
    enc : Encoding
        Variables and rows of the MIPs; its identity rows are separated
        lazily instead of being added at once.
    """

    def __init__(self, enc):
        self.enc = enc
        self.identities = (
            enc.identities if enc.identities is not None else np.zeros((0, 4), int)
        )
        big_m = enc.A[: enc.n_big_m_rows]
        lo, hi = enc.row_lower[: enc.n_big_m_rows], enc.row_upper[: enc.n_big_m_rows]
        upper, lower = np.isfinite(hi), np.isfinite(lo)
        # linprog wants A_ub x <= b_ub only.
        A = sp.vstack([big_m[upper], -big_m[lower]], format="csr")
        b = np.concatenate([hi[upper], -lo[lower]])
        # The encoding's identity rows, in the order of ``enc.identities``.
        self._identity_rows = enc.A[enc.n_big_m_rows :]
        self._c, self._offset = enc.error_objective()
        self.n_lps = 0
        # Every later LP starts from the identity rows that the LP without a
        # fixed label needed (computed once, before any thread shares them).
        none = np.zeros(0, dtype=np.int64)
        _, _, base = self._solve(enc.var_lower, enc.var_upper, (A, b, none))
        self._start = (*self._with_rows(A, b, base), base)

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

    def lower_bound(self, pattern, label):
        """A certified lower bound on the fewest errors with ``pattern -> label``.

        Returns ``inf`` when no model of the class (even fractionally) gives
        the pattern that label and ``-inf`` when the LP solver fails (nothing
        proven). The value is shaded down by a relative 1e-6 against the LP
        solver's tolerances.
        """
        return self.relax(pattern, label)[0]

    def relax(self, pattern, label):
        """``(bound, (w, b))``: :meth:`lower_bound` and the LP's own model.

        The model is the last LP solution's weights and intercept (``None``
        when no LP was solved); it is unverified, callers check it.
        """
        lower, upper = self.enc.var_lower.copy(), self.enc.var_upper.copy()
        column = self.enc.z_offset + int(pattern)
        lower[column] = upper[column] = float(label)
        value, x, _ = self._solve(lower, upper, self._start)
        model = None if x is None else (x[: self.enc.p], float(x[self.enc.p]))
        return value, model

    def _solve(self, lower, upper, start):
        """Cutting-plane loop from ``start = (A, b, rows)``.

        Returns ``(bound, x, rows)`` with ``x`` the last LP solution.
        """
        A, b, active = start
        bounds = np.column_stack([lower, upper])
        value, x = -np.inf, None
        for _ in range(MAX_ROUNDS):
            result = linprog(self._c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
            self.n_lps += 1
            if result.status == 2:  # infeasible: no model gives this label
                return np.inf, None, active
            if result.status != 0:
                return value, x, active  # the last solved relaxation still bounds
            x = result.x
            value = result.fun + self._offset
            value -= 1e-6 * max(1.0, abs(value))
            more = self._violated(x[self.enc.z_offset :])
            more = more[~np.isin(more, active)]
            if more.size == 0:
                break
            A, b = self._with_rows(A, b, more)
            active = np.union1d(active, more)
        return value, x, active
