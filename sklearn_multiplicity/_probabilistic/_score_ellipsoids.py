"""The largest least margin of a label over an ellipsoid of scores.

For one person and one label ``l``, an ellipsoid of models maps onto an
ellipsoid of the person's ``K`` scores ``{s_c + r G u : u' G u <= 1}`` (``G``
the covariance of the scores, row and column of the reference class zero).
The largest least margin of ``l`` over it,

    v = max_s min_{m != l} (s_l - s_m),

is, by minimax duality, the smallest of ``phi(mu) = w . s_c + r sqrt(w' G
w)`` over the multipliers ``mu >= 0`` of the rivals with ``sum mu = 1``
(``w = e_l - mu``). So every ``mu`` gives a certified upper bound
``phi(mu) >= v`` (the ellipsoid never gives ``l`` when it is negative) and
the scores ``s_c + r G w / sqrt(w' G w)``, a point of the ellipsoid, a lower
bound (its least margin). Both are computed for many (person, label) pairs
at once by projected gradient descent on ``phi`` over the simplex.
"""

import numpy as np

from ._label_cone import RADIUS_SLACK, directions, leads
from ._objective import full_scores

#: Iterations of the projected gradient descent.
MAX_ITER = 150
#: Pairs per block of the witnesses of :func:`ellipsoid_witnesses`.
WITNESS_BLOCK = 8192


def full_covariance(G):
    """Covariances (n, K, K) of all K scores from those of the K - 1 free
    ones (n, K - 1, K - 1); the reference class scores 0."""
    n, k, _ = G.shape
    full = np.zeros((n, k + 1, k + 1))
    full[:, 1:, 1:] = G
    return full


def _project_simplex(v, allowed):
    """Euclidean projection of each row of ``v`` onto the simplex of the
    ``allowed`` coordinates (the others are set to 0)."""
    big = np.where(allowed, v, -np.inf)
    u = -np.sort(-big, axis=1)
    finite = np.isfinite(u)
    u0 = np.where(finite, u, 0.0)
    css = np.cumsum(u0, axis=1) - 1.0
    ind = np.arange(1, v.shape[1] + 1)
    cond = finite & (u0 - css / ind > 0)
    rho = np.maximum(cond.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1), 0)
    tau = css[np.arange(len(v)), rho] / (rho + 1)
    return np.where(allowed, np.maximum(v - tau[:, None], 0.0), 0.0)


class MarginProblem:
    """``max min_{m != l} (s_l - s_m)`` over score ellipsoids, per pair.

    Parameters
    ----------
    scores : ndarray of shape (J, K)
        Centre scores ``s_c`` (all classes).
    cov : ndarray of shape (J, K, K)
        Score covariances ``G`` of the ellipsoids' shapes.
    labels : ndarray of shape (J,)
    radius : ndarray of shape (J,)
        ``r``: the ellipsoid is ``{s_c + r G u : u' G u <= 1}``.
    """

    def __init__(self, scores, cov, labels, radius):
        self.s, self.G = scores, cov
        self.labels = np.asarray(labels, dtype=int)
        self.r = np.broadcast_to(np.asarray(radius, dtype=float), self.labels.shape)
        J, K = scores.shape
        self.allowed = np.ones((J, K), dtype=bool)
        self.allowed[np.arange(J), self.labels] = False
        self.e = ~self.allowed

    def _phi(self, mu, idx):
        w = self.e[idx] - mu
        Gw = np.einsum("jkl,jl->jk", self.G[idx], w)
        norm = np.sqrt(np.maximum(np.einsum("jk,jk->j", w, Gw), 0.0))
        value = np.einsum("jk,jk->j", w, self.s[idx]) + self.r[idx] * norm
        return value, w, Gw, norm

    def solve(self, max_iter=MAX_ITER, decided=None):
        """Multipliers, certified upper bounds and attained lower bounds.

        Parameters
        ----------
        max_iter : int
        decided : callable or None
            ``decided(upper, lower)`` of some pairs: masks of those whose
            bounds say enough (they stop early).

        Returns
        -------
        upper : ndarray (J,)
            ``phi(mu) >= v``.
        lower : ndarray (J,)
            The least margin of the point found, ``<= v``.
        w : ndarray (J, K)
            ``e_l - mu`` of the multipliers whose point attains ``lower``:
            ``s_c + r G w / sqrt(w' G w)``.
        """
        J, K = self.s.shape
        mu = np.where(self.allowed, 1.0 / max(K - 1, 1), 0.0)
        upper, w, Gw, norm = self._phi(mu, np.arange(J))
        lower = self._lower(np.arange(J), w, Gw, norm)
        best_w = w.copy()  # of the point attaining ``lower``
        scale = np.einsum("jkk->j", self.G) * self.r / K + np.abs(self.s).max(1)
        step = 1.0 / np.maximum(scale, 1e-12)
        active = np.arange(J)
        for _ in range(max_iter):
            if decided is not None:
                active = active[~decided(upper[active], lower[active])]
            if active.size == 0:
                break
            _, w, Gw, norm = self._phi(mu[active], active)
            with np.errstate(invalid="ignore", divide="ignore"):
                grad = -self.s[active] - self.r[active, None] * Gw / norm[:, None]
            grad = np.nan_to_num(grad)
            trial = _project_simplex(
                mu[active] - step[active, None] * grad, self.allowed[active]
            )
            value, w_t, Gw_t, norm_t = self._phi(trial, active)
            better = value < upper[active]
            idx = active[better]
            mu[idx], upper[idx] = trial[better], value[better]
            found = self._lower(active, w_t, Gw_t, norm_t)
            rise = found > lower[active]
            lower[active[rise]], best_w[active[rise]] = found[rise], w_t[rise]
            step[active] = np.where(better, step[active] * 1.5, step[active] * 0.3)
            # Steps too small to move: converged.
            active = active[step[active] * scale[active] > 1e-12]
        return upper, lower, best_w

    def _lower(self, idx, w, Gw, norm):
        with np.errstate(invalid="ignore", divide="ignore"):
            point = self.s[idx] + self.r[idx, None] * Gw / norm[:, None]
        point = np.where(np.isfinite(point), point, self.s[idx])
        lead = point[np.arange(len(idx)), self.labels[idx]][:, None] - point
        return np.where(self.allowed[idx], lead, np.inf).min(axis=1)


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
