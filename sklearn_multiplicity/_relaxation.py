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
        self._A = sp.vstack([big_m[upper], -big_m[lower]], format="csr")
        self._b = np.concatenate([hi[upper], -lo[lower]])
        self._c, self._offset = enc.error_objective()
        self.n_lps = 0
        # Identity rows of the LP without a fixed label: every later LP
        # starts from them (computed once, before any thread shares them).
        self._base = np.zeros(0, dtype=np.int64)
        _, self._base = self._solve(enc.var_lower, enc.var_upper)

    def _identity_block(self, which):
        quads = self.identities[which]
        m = quads.shape[0]
        rows = np.repeat(np.arange(m), 4)
        cols = (quads + self.enc.z_offset).ravel()
        vals = np.tile([1.0, 1.0, -1.0, -1.0], m)
        block = sp.csr_matrix((vals, (rows, cols)), shape=(m, self.enc.n_vars))
        return sp.vstack([block, -block], format="csr"), np.ones(2 * m)

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
        lower, upper = self.enc.var_lower.copy(), self.enc.var_upper.copy()
        column = self.enc.z_offset + int(pattern)
        lower[column] = upper[column] = float(label)
        value, _ = self._solve(lower, upper)
        return value

    def _solve(self, lower, upper):
        """Cutting-plane loop from the base rows; ``(bound, rows used)``."""
        bounds = np.column_stack([lower, upper])
        active = self._base
        value = -np.inf
        for _ in range(MAX_ROUNDS):
            A, b = self._A, self._b
            if active.size:
                block, rhs = self._identity_block(active)
                A, b = sp.vstack([A, block], format="csr"), np.concatenate([b, rhs])
            result = linprog(self._c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
            self.n_lps += 1
            if result.status == 2:  # infeasible: no model gives this label
                return np.inf, active
            if result.status != 0:
                return value, active  # the last solved relaxation still bounds
            value = result.fun + self._offset
            value -= 1e-6 * max(1.0, abs(value))
            more = self._violated(result.x[self.enc.z_offset :])
            more = more[~np.isin(more, active)]
            if more.size == 0:
                break
            active = np.union1d(active, more)
        return value, active
