"""Two ellipsoids around the level set, in closed form, for two and K labels.

For ``S = {theta : F(theta) <= L}`` around the certified minimiser
``theta_c`` (value ``F_c``, gradient ``g``, ``delta = L - F_c``), both bounds
are ellipsoids ``{theta_c + v : g . v + v' Q v / 2 <= delta}``, over which
the extremes of a score have a closed form:

- **inner**: the loss has bounded curvature (1/4 per row for two labels,
  Boehning's ``B = (I - 11'/K) / 2`` in the K - 1 free scores), so ``F`` lies
  below the quadratic with ``Q = X' diag(a / 4) X + penalty`` (``B (x) X'
  diag(a) X + penalty``) everywhere; its ellipsoid is inside the level set.
- **outer**: by self-concordance (Bach, 2010; :mod:`._objective`), where
  every training row's margin (K labels: score range) moves by at most
  ``R_i``, ``F`` lies above the quadratic with curvature ``2 psi(R_i) H_i``
  per row, ``psi(R) = (exp(-R) + R - 1) / R^2``. A vector ``R`` that this
  ellipsoid's own extents undercut strictly bounds every margin of the level
  set (the set is convex and holds ``theta_c``), so the ellipsoid holds the
  level set; iterating the extents shrinks ``R`` to a fixed point. The
  quadratic upper model with ``(exp(R) - R - 1) / R^2`` gives a larger inner
  ellipsoid on the rows where it is smaller, kept when its extents stay
  within ``R``.

A K-label person's free scores ``z = (I (x) x~') theta`` map an ellipsoid
``{(theta - c)' Q (theta - c) <= r2}`` onto ``{(z - z_c)' G^-1 (z - z_c) <=
r2}``, ``G = x~' [Q^-1]_kl x~`` (:meth:`Ellipsoid.image`), so each person's
questions are small problems in ``K - 1`` dimensions.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import expit

from ._objective import full_scores, row_grams, score_ranges

#: Iterations of the outer fixed point and their stopping rule (two labels,
#: K labels).
MAX_FIXED_POINT = {False: 60, True: 40}
FIXED_POINT_RTOL = {False: 1e-4, True: 1e-2}
#: Doublings (times four) of the first ``R`` of the outer fixed point.
MAX_GROWTH = {False: 200, True: 100}


def psi_below(R):
    """``(exp(-R) + R - 1) / R^2``: the lower curvature factor (1/2 at 0)."""
    R = np.asarray(R, dtype=float)
    small = R < 1e-3
    Rs = np.where(small, 1.0, R)
    exact = (np.expm1(-Rs) + Rs) / Rs**2
    return np.where(small, 0.5 - R / 6 + R**2 / 24, exact)


def psi_above(R):
    """``(exp(R) - R - 1) / R^2``: the upper curvature factor (1/2 at 0)."""
    R = np.minimum(np.asarray(R, dtype=float), 700.0)
    small = R < 1e-3
    Rs = np.where(small, 1.0, R)
    exact = (np.expm1(Rs) - Rs) / Rs**2
    return np.where(small, 0.5 + R / 6 + R**2 / 24, exact)


@dataclass
class Ellipsoid:
    """``{theta : (theta - center)' Q (theta - center) <= radius2}``, with
    the Cholesky factor of ``Q`` and ``Q^-1`` (from the start for K labels,
    on demand for two)."""

    center: np.ndarray
    Q: np.ndarray
    factor: tuple
    radius2: float  # 2 delta + g' Q^-1 g
    Q_inv: np.ndarray = None

    @classmethod
    def of(cls, theta_c, g, Q, delta, inverse=False):
        """``{theta_c + v : g . v + v' Q v / 2 <= delta}``; ``inverse``: keep
        ``Q^-1`` (for the images of :meth:`image`)."""
        factor = cho_factor(Q, lower=True)
        Q_inv = None
        if inverse:
            Q_inv = cho_solve(factor, np.eye(Q.shape[0]))
            Qg = Q_inv @ g
        else:
            Qg = cho_solve(factor, g)
        radius2 = max(2.0 * delta + float(g @ Qg), 0.0)
        return cls(theta_c - Qg, Q, factor, radius2, Q_inv)

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

    def image(self, objective, rows):
        """``(z_c, G)`` of the people ``rows`` (augmented): centres (n, K-1)
        and shapes (n, K-1, K-1) of their score ellipsoids."""
        if self.Q_inv is None:
            self.Q_inv = cho_solve(self.factor, np.eye(len(self.center)))
        z_c = objective.scores(rows, self.center[:, None])[:, :, 0]
        return z_c, row_grams(objective, rows, self.Q_inv)


def logistic_curvature(objective, theta_c):
    """Two labels: ``phi''`` of every training margin at ``theta_c``."""
    m = objective.Xs @ theta_c
    return expit(m) * expit(-m)


def quadratic_form(objective, weights):
    """Two labels: ``X' diag(weights) X + diag(penalty)``."""
    X = objective.X
    Q = (X * weights[:, None]).T @ X
    Q[np.diag_indices_from(Q)] += objective.penalty
    return Q


def _training_scores(objective, theta_c):
    """The training rows' margins (two labels) or free scores (K labels) at
    ``theta_c``."""
    if objective.is_multiclass:
        return objective.scores(objective.X, theta_c[:, None])[:, :, 0]
    return objective.X @ theta_c


def _reach(objective, ell, base):
    """Certified largest change over ``ell`` of every training row's margin
    (K labels: score range) from ``base``, its value at ``theta_c``."""
    if not objective.is_multiclass:
        mid, half = ell.extents(objective.X)
        return np.abs(mid - base) + half
    z_c, G = ell.image(objective, objective.X)
    shift = full_scores(z_c - base)
    diff = np.abs(shift[:, :, None] - shift[:, None, :])
    return np.max(diff + np.sqrt(ell.radius2 * score_ranges(G)), axis=(1, 2))


def outer_ellipsoid(objective, theta_c, g, delta):
    """An ellipsoid holding the level set, and the margin bounds ``R`` (per
    training row) that certify it (the fixed point of the module docstring)."""
    multiclass, a = objective.is_multiclass, objective.a
    if multiclass:
        prob = objective.probabilities(theta_c)

        def quadratic(R):
            return objective.curvature_form(prob, a * 2 * psi_below(R))

    else:
        phi2 = logistic_curvature(objective, theta_c)

        def quadratic(R):
            return quadratic_form(objective, 2 * a * phi2 * psi_below(R))

    def ellipsoid(R):
        return Ellipsoid.of(theta_c, g, quadratic(R), delta, inverse=multiclass)

    base = _training_scores(objective, theta_c)
    # A first R the extents undercut strictly: growing the quadratic guess
    # until they do (the extents grow like sqrt(R)).
    R = 2.0 * _reach(objective, ellipsoid(np.zeros(len(a))), base) + 1e-12
    for _ in range(MAX_GROWTH[multiclass]):
        if np.all(_reach(objective, ellipsoid(R), base) < R):
            break
        R *= 4.0
    else:  # pragma: no cover - the extents grow sublinearly in R
        raise RuntimeError("No certified outer bound of the level set was found.")
    for _ in range(MAX_FIXED_POINT[multiclass]):
        new = _reach(objective, ellipsoid(R), base) * (1 + 1e-9) + 1e-15
        # Every new R is valid (the level set lies in the last ellipsoid); it
        # only shrinks, so stop when it barely moves.
        new = np.minimum(new, R)
        moved = np.max((R - new) / np.maximum(R, 1e-12))
        R = new
        if moved < FIXED_POINT_RTOL[multiclass]:
            break
    return ellipsoid(R), R


def inner_ellipsoid(objective, theta_c, g, delta, R_outer=None):
    """An ellipsoid inside the level set (closed form).

    The global curvature bound always holds; when the outer bounds
    ``R_outer`` of the training margins are known, the tighter upper model on
    ``{|margin change_i| <= R_outer_i}`` is tried on the rows where it is
    smaller (two labels: every row) and kept when its ellipsoid stays in
    that region.
    """
    multiclass, a, X = objective.is_multiclass, objective.a, objective.X
    if multiclass:
        bohning = 0.5 * (np.eye(objective.K - 1) - 1.0 / objective.K)

        def form(local):
            Q = np.kron(bohning, (X * (a * ~local)[:, None]).T @ X)
            scale = np.where(local, 2 * psi_above(R_outer), 0.0)
            return Q + objective.curvature_form(prob, a * scale)

        prob = objective.probabilities(theta_c)
        curv_trace = np.einsum("nk->n", prob - prob**2)
        local = 2 * psi_above(R_outer) * curv_trace < np.trace(bohning)
        safe_Q = form(np.zeros(len(a), dtype=bool))
    else:
        safe_Q = quadratic_form(objective, a / 4)
        local = np.ones(len(a), dtype=bool)
    safe = Ellipsoid.of(theta_c, g, safe_Q, delta, inverse=multiclass)
    if R_outer is None or not local.any():
        return safe
    if multiclass:
        tight_Q = form(local)
    else:
        phi2 = logistic_curvature(objective, theta_c)
        scale = np.minimum(2 * phi2 * psi_above(R_outer), 0.25)
        tight_Q = quadratic_form(objective, a * scale)
    tight = Ellipsoid.of(theta_c, g, tight_Q, delta, inverse=multiclass)
    reach = _reach(objective, tight, _training_scores(objective, theta_c))
    return tight if np.all(reach[local] <= R_outer[local]) else safe
