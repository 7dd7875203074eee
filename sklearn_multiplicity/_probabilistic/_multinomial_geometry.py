"""Ellipsoids around the multinomial level set and their images per person.

As in :mod:`._bounds`, for ``S = {F <= L}`` around the certified minimiser
``theta_c`` (value ``F_c``, gradient ``g``, ``delta = L - F_c``) every bound
is an ellipsoid ``{g . v + v' Q v / 2 <= delta}``; a row's score range plays
the part of the binary margin (see :mod:`._multinomial_objective`):

- **inner**: the softmax curvature is at most Boehning's bound
  ``B = (I - 11'/K) / 2`` (in the K - 1 free scores), so ``Q = B (x)
  X' diag(a) X + penalty`` lies above ``F``; rows whose score range stays
  within ``R_i`` may use ``2 psi_above(R_i) H_i`` instead.
- **outer**: where the score range of row i moves by at most ``R_i``, ``F``
  lies above the quadratic with curvature ``2 psi_below(R_i) H_i`` per row;
  ``R`` undercut by the ellipsoid's own extents is a fixed point certifying it.

A person's free scores ``z = (I (x) x~') theta`` map an ellipsoid
``{(theta - c)' Q (theta - c) <= r2}`` onto ``{(z - z_c)' G^-1 (z - z_c) <=
r2}``, ``G = x~' [Q^-1]_kl x~``, so each person's questions are small
problems in ``K - 1`` dimensions.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import nnls

from ._bounds import psi_below
from ._multinomial_dual import directions, leads
from ._multinomial_margins import MarginProblem, full_covariance, full_scores
from ._multinomial_objective import row_grams, score_ranges

MAX_FIXED_POINT = 40
FIXED_POINT_RTOL = 1e-2
#: Relative margin of every certified comparison with a radius.
RADIUS_SLACK = 1e-9
#: Pairs per block of the witnesses of :func:`ellipsoid_witnesses`.
WITNESS_BLOCK = 8192


def psi_above(R):
    """``(exp(R) - R - 1) / R^2`` (1/2 at 0)."""
    R = np.minimum(np.asarray(R, dtype=float), 700.0)
    small = R < 1e-3
    Rs = np.where(small, 1.0, R)
    return np.where(small, 0.5 + R / 6 + R**2 / 24, (np.expm1(Rs) - Rs) / Rs**2)


@dataclass
class Ellipsoid:
    """``{theta : (theta - center)' Q (theta - center) <= radius2}``."""

    center: np.ndarray
    Q: np.ndarray
    Q_inv: np.ndarray
    radius2: float

    @classmethod
    def of(cls, theta_c, g, Q, delta):
        factor = cho_factor(Q, lower=True)
        Q_inv = cho_solve(factor, np.eye(Q.shape[0]))
        Qg = Q_inv @ g
        radius2 = max(2.0 * delta + float(g @ Qg), 0.0)
        return cls(theta_c - Qg, Q, Q_inv, radius2)

    def image(self, objective, rows):
        """``(z_c, G)`` of the people ``rows`` (augmented): centres (n, K-1)
        and shapes (n, K-1, K-1) of their score ellipsoids."""
        z_c = objective.scores(rows, self.center[:, None])[:, :, 0]
        return z_c, row_grams(objective, rows, self.Q_inv)

    def point(self, objective, row, z_c, G, z):
        """The point of the ellipsoid's affine hull whose scores of ``row``
        are ``z`` and closest to the centre (in the metric ``Q``)."""
        k, q = objective.K - 1, objective.q
        QE = self.Q_inv.reshape(-1, k, q) @ row  # (p, K-1)
        return self.center + QE @ np.linalg.lstsq(G, z - z_c, rcond=None)[0]


def reach(objective, rows, ell, base):
    """Certified largest change of each row's score range over ``ell`` from
    the scores ``base`` (n, K-1)."""
    z_c, G = ell.image(objective, rows)
    shift = full_scores(z_c - base)
    diff = np.abs(shift[:, :, None] - shift[:, None, :])
    return np.max(diff + np.sqrt(ell.radius2 * score_ranges(G)), axis=(1, 2))


def outer_ellipsoid(objective, theta_c, g, delta):
    """An ellipsoid holding the level set and the range bounds ``R`` (per
    training row) certifying it."""
    prob = objective.probabilities(theta_c)
    base = objective.scores(objective.X, theta_c[:, None])[:, :, 0]

    def ellipsoid(R):
        Q = objective.curvature_form(prob, objective.a * 2 * psi_below(R))
        return Ellipsoid.of(theta_c, g, Q, delta)

    R = 2.0 * reach(objective, objective.X, ellipsoid(np.zeros(len(base))), base)
    R += 1e-12
    for _ in range(100):
        if np.all(reach(objective, objective.X, ellipsoid(R), base) < R):
            break
        R *= 4.0
    else:  # pragma: no cover - extents grow sublinearly in R
        raise RuntimeError("No certified outer bound of the level set was found.")
    for _ in range(MAX_FIXED_POINT):
        new = reach(objective, objective.X, ellipsoid(R), base)
        new = np.minimum(new * (1 + 1e-9) + 1e-15, R)
        moved = np.max((R - new) / np.maximum(R, 1e-12))
        R = new
        if moved < FIXED_POINT_RTOL:
            break
    return ellipsoid(R), R


def inner_ellipsoid(objective, theta_c, g, delta, R_outer):
    """An ellipsoid inside the level set: Boehning's bound on every row, or
    the local bound on the rows where it is smaller, kept when the ellipsoid
    stays within ``R_outer``."""
    k, X, a = objective.K - 1, objective.X, objective.a
    bohning = 0.5 * (np.eye(k) - 1.0 / objective.K)

    def form(local):
        Q = np.kron(bohning, (X * (a * ~local)[:, None]).T @ X)
        scale = np.where(local, 2 * psi_above(R_outer), 0.0)
        return Q + objective.curvature_form(prob, a * scale)

    prob = objective.probabilities(theta_c)
    curv_trace = np.einsum("nk->n", prob - prob**2)
    local = 2 * psi_above(R_outer) * curv_trace < np.trace(bohning)
    safe = Ellipsoid.of(theta_c, g, form(np.zeros(len(a), dtype=bool)), delta)
    if not local.any():
        return safe
    tight = Ellipsoid.of(theta_c, g, form(local), delta)
    base = objective.scores(X, theta_c[:, None])[:, :, 0]
    ok = np.all(reach(objective, X, tight, base)[local] <= R_outer[local])
    return tight if ok else safe


def ellipsoid_witnesses(objective, ell, rows, people, labels, lead, deadline=None):
    """Models of the ellipsoid ``ell`` giving each pair's person its label.

    Per pair, the point of ``ell`` with the largest least margin of the
    label (:class:`MarginProblem`), kept when every rival trails it by at
    least ``lead`` (checked on the model's own scores).

    Parameters
    ----------
    objective : MultinomialObjective
    ell : Ellipsoid
    rows : ndarray (n_people, q)
        The people's augmented rows.
    people, labels : ndarray (J,)
        The pairs.
    lead : float
    deadline : Deadline or None, default=None
        Checked between blocks of pairs; the pairs of the blocks it stops
        are not found.

    Returns
    -------
    found : ndarray (J,) of bool
    models : ndarray (p, found.sum())
        The witnesses of the found pairs, in their order.
    """
    found = np.zeros(len(people), dtype=bool)
    models = [np.empty((objective.dim, 0))]
    radius = np.sqrt(ell.radius2) * (1 - RADIUS_SLACK)
    for start in range(0, len(people), WITNESS_BLOCK):
        if deadline is not None and deadline.expired():
            break
        block = np.arange(start, min(start + WITNESS_BLOCK, len(people)))
        ok, theta = _block_witnesses(
            objective, ell, rows, people[block], labels[block], lead, radius
        )
        found[block[ok]] = True
        models.append(theta)
    return found, np.hstack(models)


def _block_witnesses(objective, ell, rows, people, labels, lead, radius):
    """:func:`ellipsoid_witnesses` of one block of pairs."""
    # One score ellipsoid per person, shared by the person's pairs.
    unique, where = np.unique(people, return_inverse=True)
    z_c, G = ell.image(objective, rows[unique])
    G = full_covariance(G)[where]
    problem = MarginProblem(full_scores(z_c)[where], G, labels, radius)
    pair_rows = rows[people]

    def decided(upper, lower):
        return (upper < 2 * lead) | (lower > 2 * lead)

    _, lower, w = problem.solve(decided=decided)
    tried = np.flatnonzero(lower > 2 * lead)
    w, pair_rows, labels = w[tried], pair_rows[tried], labels[tried]
    mu = -w  # the rivals' multipliers (they sum to 1)
    mu[np.arange(tried.size), labels] = 0.0
    norm = np.sqrt(np.einsum("jk,jkl,jl->j", w, G[tried], w))
    # The maximiser of w . s over the ellipsoid, in parameters.
    step = ell.Q_inv @ directions(objective, pair_rows, labels, mu)
    theta = ell.center[:, None] + step * (radius / norm)
    ahead = leads(objective, pair_rows, theta, labels)
    ahead[np.arange(tried.size), labels] = np.inf
    ok = ahead.min(axis=1) >= lead
    found = np.zeros(len(lower), dtype=bool)
    found[tried[ok]] = True
    return found, theta[:, ok]


def margin_matrix(K, label):
    """``D`` (K-1, K-1) with ``D z = (s_label - s_m)`` over ``m != label``."""
    full = np.zeros((K - 1, K))
    others = [m for m in range(K) if m != label]
    for r, m in enumerate(others):
        full[r, label] += 1.0
        full[r, m] -= 1.0
    return full[:, 1:]


def cone_distance(z_c, G, K, label, shift=0.0):
    """``min (z - z_c)' G^-1 (z - z_c)`` over the scores ``z`` where
    ``label`` leads every other class by at least ``shift``.

    Returns ``(value, lower, z)``: the value of the minimiser ``z`` (NNLS in
    the margins) and a certified lower bound on the minimum (its dual bound,
    up to rounding).
    """
    D = margin_matrix(K, label)
    D_inv = np.linalg.inv(D)
    scale = np.trace(G) / len(G) + 1e-300
    # A ridge can only enlarge the ellipsoid: lower distances stay certified.
    L = np.linalg.cholesky(G + 1e-12 * scale * np.eye(len(G)))
    A = np.linalg.solve(L, D_inv)
    b = np.linalg.solve(L, z_c - shift * D_inv.sum(axis=1))
    w, rnorm = nnls(A, b, maxiter=50 * len(b))
    y = b - A @ w
    dual = 2 * y @ b - y @ y if np.max(A.T @ y) <= 1e-12 * (1 + np.abs(b).max()) else 0
    lower = max(min(rnorm**2, dual), 0.0) * (1 - RADIUS_SLACK)
    return rnorm**2, lower, D_inv @ (w + shift)
