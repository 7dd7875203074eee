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

#: Iterations of the projected gradient descent.
MAX_ITER = 150


def full_covariance(G):
    """Covariances (n, K, K) of all K scores from those of the K - 1 free
    ones (n, K - 1, K - 1); the reference class scores 0."""
    n, k, _ = G.shape
    full = np.zeros((n, k + 1, k + 1))
    full[:, 1:, 1:] = G
    return full


def full_scores(z):
    """Scores of all K classes, class 0 at 0: (..., K)."""
    return np.concatenate([np.zeros(z.shape[:-1] + (1,)), z], axis=-1)


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
