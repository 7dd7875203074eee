"""Closed-form certified bounds on every score of the level set.

For ``{theta : F(theta) <= L}`` around the certified minimiser ``theta_c``
(value ``F_c``, gradient ``g``, ``delta = L - F_c``), both bounds are
ellipsoids ``{v : g . v + v' Q v / 2 <= delta}`` in ``v = theta - theta_c``,
over which the extremes of a score ``x~ . theta`` have a closed form:

- **inner**: the logistic loss has curvature at most 1/4, so ``F`` lies below
  the quadratic with ``Q = X' diag(a / 4) X + diag(penalty)`` everywhere; its
  ellipsoid is inside the level set.
- **outer**: the logistic loss is self-concordant in the generalised sense
  ``|phi'''| <= phi''`` (Bach, 2010): when every training margin moves by at
  most ``R_i``, ``F`` lies above the quadratic with curvature
  ``2 psi(R_i) phi''_i`` per row, ``psi(R) = (exp(-R) + R - 1) / R^2``. A
  vector ``R`` that this ellipsoid's own extents undercut strictly bounds every
  margin of the level set (the set is convex and holds ``theta_c``), so the
  ellipsoid holds the level set; iterating the extents shrinks ``R`` to a
  fixed point. The same quadratic upper model with ``(exp(R) - R - 1) / R^2``
  gives a larger inner ellipsoid when its extents stay within ``R``.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import expit

#: Iterations of the outer fixed point and their stopping rule.
MAX_FIXED_POINT = 60
FIXED_POINT_RTOL = 1e-4


def psi_below(R):
    """``(exp(-R) + R - 1) / R^2``: the lower curvature factor (1/2 at 0)."""
    R = np.asarray(R, dtype=float)
    small = R < 1e-3
    Rs = np.where(small, 1.0, R)
    exact = (np.expm1(-Rs) + Rs) / Rs**2
    return np.where(small, 0.5 - R / 6 + R**2 / 24, exact)


def _psi_above(R):
    """``(exp(R) - R - 1) / R^2``: the upper curvature factor (1/2 at 0)."""
    R = np.minimum(np.asarray(R, dtype=float), 700.0)
    small = R < 1e-3
    Rs = np.where(small, 1.0, R)
    exact = (np.expm1(Rs) - Rs) / Rs**2
    return np.where(small, 0.5 + R / 6 + R**2 / 24, exact)


@dataclass
class Ellipsoid:
    """``{theta_c + v : g . v + v' Q v / 2 <= delta}``, via the Cholesky
    factor of ``Q``; ``center`` is its centre ``theta_c - Q^-1 g``."""

    center: np.ndarray
    factor: tuple
    radius2: float  # 2 delta + g' Q^-1 g

    @classmethod
    def of(cls, theta_c, g, Q, delta):
        factor = cho_factor(Q, lower=True)
        Qg = cho_solve(factor, g)
        radius2 = max(2.0 * delta + float(g @ Qg), 0.0)
        return cls(theta_c - Qg, factor, radius2)

    def extents(self, rows):
        """``(centre scores, half-widths)`` of the scores ``rows @ theta``."""
        L = self.factor[0]
        half = np.empty(rows.shape[0])
        for start in range(0, rows.shape[0], 4096):
            block = rows[start : start + 4096]
            solved = solve_triangular(L, block.T, lower=True, check_finite=False)
            half[start : start + 4096] = np.sqrt(
                self.radius2 * np.einsum("ij,ij->j", solved, solved)
            )
        return rows @ self.center, half

    def extreme(self, c):
        """The point of the ellipsoid maximising ``c . theta``."""
        Qc = cho_solve(self.factor, c)
        norm = np.sqrt(max(float(c @ Qc), 1e-300))
        return self.center + np.sqrt(self.radius2) * Qc / norm


def logistic_curvature(objective, theta_c):
    m = objective.Xs @ theta_c
    return expit(m) * expit(-m)


def quadratic_form(objective, weights):
    """``X' diag(weights) X + diag(penalty)``."""
    X = objective.X
    Q = (X * weights[:, None]).T @ X
    Q[np.diag_indices_from(Q)] += objective.penalty
    return Q


def inner_ellipsoid(objective, theta_c, g, delta, R_outer=None):
    """An ellipsoid inside the level set (closed form).

    The global bound (curvature 1/4 per row) always holds; when the outer
    bounds ``R_outer`` of the training margins are known, the tighter upper
    model on ``{|margin change_i| <= R_outer_i}`` is tried and kept when its
    ellipsoid stays in that region.
    """
    a = objective.a
    safe = Ellipsoid.of(theta_c, g, quadratic_form(objective, a / 4), delta)
    if R_outer is None:
        return safe
    phi2 = logistic_curvature(objective, theta_c)
    local = np.minimum(2 * phi2 * _psi_above(R_outer), 0.25)
    tight = Ellipsoid.of(theta_c, g, quadratic_form(objective, a * local), delta)
    mid, half = tight.extents(objective.X)
    reach = np.abs(mid - objective.X @ theta_c) + half
    return tight if np.all(reach <= R_outer) else safe


def outer_ellipsoid(objective, theta_c, g, delta):
    """An ellipsoid holding the level set, and the margin bounds ``R`` that
    certify it (the self-concordant fixed point of the module docstring)."""
    a, X = objective.a, objective.X
    phi2 = logistic_curvature(objective, theta_c)
    base = X @ theta_c

    def ellipsoid(R):
        Q = quadratic_form(objective, 2 * a * phi2 * psi_below(R))
        return Ellipsoid.of(theta_c, g, Q, delta)

    def reach(ell):
        mid, half = ell.extents(X)
        return np.abs(mid - base) + half

    # A first R the extents undercut strictly: doubling the quadratic guess
    # until they do (the extents grow like sqrt(R)).
    R = 2.0 * reach(ellipsoid(np.zeros(X.shape[0]))) + 1e-12
    for _ in range(200):
        new = reach(ellipsoid(R))
        if np.all(new < R):
            break
        R *= 4.0
    else:  # pragma: no cover - the extents grow sublinearly in R
        raise RuntimeError("No certified outer bound of the level set was found.")
    for _ in range(MAX_FIXED_POINT):
        new = reach(ellipsoid(R)) * (1 + 1e-9) + 1e-15
        # Every new R is valid (the level set lies in the last ellipsoid); it
        # only shrinks, so stop when it barely moves.
        new = np.minimum(new, R)
        moved = np.max((R - new) / np.maximum(R, 1e-12))
        R = new
        if moved < FIXED_POINT_RTOL:
            break
    return ellipsoid(R), R


@dataclass
class ScoreBounds:
    """Certified brackets of the extreme scores (logits) of some people.

    ``lower_in <= baseline`` is attained by a model of the level set and
    ``lower_out`` is below every model's score; likewise ``upper_in`` (attained)
    and ``upper_out`` (never exceeded).
    """

    lower_out: np.ndarray
    lower_in: np.ndarray
    upper_in: np.ndarray
    upper_out: np.ndarray
    baseline: np.ndarray


def closed_form_bounds(rows, baseline_scores, outer, inner):
    """Brackets of every person's score range from the two ellipsoids."""
    mid_o, half_o = outer.extents(rows)
    mid_i, half_i = inner.extents(rows)
    # The baseline is in the level set: the attained range always holds it.
    lower_in = np.minimum(mid_i - half_i, baseline_scores)
    upper_in = np.maximum(mid_i + half_i, baseline_scores)
    lower_out = np.minimum(mid_o - half_o, lower_in)
    upper_out = np.maximum(mid_o + half_o, upper_in)
    return ScoreBounds(
        lower_out, lower_in, upper_in, upper_out, np.asarray(baseline_scores)
    )
