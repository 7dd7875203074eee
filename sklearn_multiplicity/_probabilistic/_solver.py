"""The exact extreme scores of the level set, one convex problem per end.

``max c . theta`` subject to ``F(theta) <= L`` is solved through its
Lagrangian: for ``t > 0`` let ``theta(t)`` minimise ``F(theta) - t c . theta``
with certified minimum ``m(t) >= m_lo(t)``; then

- **upper bound** (weak duality): every ``theta`` of the set has
  ``c . theta <= (L - m(t)) / t <= (L - m_lo(t)) / t``;
- **lower bound**: a model of the set, ``theta(t)`` itself when
  ``F(theta(t)) <= L``, else its shrinkage towards the minimiser ``theta_c``
  to ``F = L`` (convexity), checked by evaluating ``F``.

A 1-D Newton search moves ``t`` to ``F(theta(t)) = L`` (where both bounds
meet), warm-started along the path's tangent ``d theta / d t = H^-1 c``.
Every end runs in lockstep with the others of its batch (one matrix product
for all their gradients) and keeps its Hessian while its margins move little
(``_StaleHessians``); batches run in parallel with joblib.
"""

from functools import partial

import numpy as np
from scipy.special import expit

from ._objective import level_slack, line_search
from ._threads import in_threads

#: Iterations of the joint Newton/Lagrangian search per end.
MAX_ITER = 200
#: Ends per batch.
BATCH = 64


def prob_gap(lower, upper):
    """Width of ``[lower, upper]`` (logits) on the probability scale."""
    return expit(upper) - expit(lower)


def solve_ends(objective, C, theta_c, F_c, level, lower, upper, tol, **kwargs):
    """Certified ``max C[:, k] . theta`` over ``{F <= level}`` for every k.

    Parameters
    ----------
    objective : LogisticObjective
    C : ndarray (p, K)
        Directions (a person's row, or its negative for the lowest score).
    theta_c, F_c : the certified minimiser and ``F(theta_c)``.
    level : float
        ``L``, the largest objective of the level set.
    lower, upper : ndarray (K,)
        Known certified brackets (attained / never exceeded) to improve.
    tol : float
        Stop when the bracket is this narrow on the probability scale.
    deadline : Deadline, keyword
        When every batch stops where it is (``Deadline(None)``: never); the
        brackets stay certified, only wider.
    n_jobs : int or None, keyword
        Parallel batches (joblib).
    progress : callable or None, keyword
        Hears the ends each batch settled (see :func:`in_batches`).

    Returns
    -------
    lower, upper : ndarray (K,)
        Improved brackets.
    thetas : ndarray (p, K)
        The model attaining each ``lower`` found here (``nan`` columns where
        the known ``lower`` was not improved).
    """
    n_jobs = kwargs.pop("n_jobs", None)
    K = C.shape[1]
    if K == 0:
        return lower.copy(), upper.copy(), np.empty((C.shape[0], 0))
    solve = partial(_solve_batch, objective, theta_c=theta_c, F_c=F_c, level=level)
    return in_batches(solve, C, lower, upper, tol, BATCH, n_jobs, **kwargs)


def in_batches(solve, C, lower, upper, tol, width, n_jobs, *, progress=None, **kwargs):
    """``solve(C, lower, upper, tol, **kwargs)`` over batches of ``width``
    columns in threads (:func:`._threads.in_threads`), joined.

    ``progress(settled)``, when given, hears how many ends each finished
    batch settled (brackets at most ``tol`` wide).
    """

    def batch(s):
        part = solve(C[:, s], lower[s], upper[s], tol, **kwargs)
        if progress is not None:
            progress(int(np.count_nonzero(prob_gap(part[0], part[1]) <= tol)))
        return part

    parts = in_threads(batch, C.shape[1], width, n_jobs)
    lo = np.concatenate([p[0] for p in parts])
    hi = np.concatenate([p[1] for p in parts])
    return lo, hi, np.concatenate([p[2] for p in parts], axis=1)


def _solve_batch(
    objective, C, lower, upper, tol, *, theta_c, F_c, level, deadline, max_iter=MAX_ITER
):
    p, K = C.shape
    lower, upper = lower.astype(float).copy(), upper.astype(float).copy()
    found = np.full((p, K), np.nan)
    slack = level_slack(level)
    delta = level - F_c
    outer = objective.outer_products()
    _, _, h = objective.derivatives(theta_c[:, None])
    Hc_c = _solve(objective.hessians(h, outer), C.T[:, :, None])[:, :, 0].T
    curv = np.maximum(np.einsum("pk,pk->k", C, Hc_c), 1e-300)
    # The quadratic model's multiplier, and its tangent predictor.
    t = np.sqrt(2 * max(delta, 0.0) / curv)
    theta = theta_c[:, None] + t * Hc_c
    t_lo, t_hi = np.zeros(K), np.full(K, np.inf)
    # The last solved point below the level: where a failed ``t`` restarts.
    anchor = np.repeat(theta_c[:, None], K, axis=1)
    inner = np.zeros(K, dtype=int)
    stale = _StaleHessians(objective, outer, K)
    active = np.flatnonzero(prob_gap(lower, upper) > tol)
    if delta <= 0:
        active = active[:0]
    for _ in range(max_iter):
        if active.size == 0 or deadline.expired():
            break
        th, cc, tt = theta[:, active], C[:, active], t[active]
        F, g, hh = objective.derivatives(th)
        score = np.einsum("pk,pk->k", cc, th)
        G = F - tt * score
        gG = g - tt * cc
        H, shrink, lam, Hinv = stale(active, th, hh)
        m_lo = objective.certify(G, gG, H * shrink[:, None, None], shrink * lam)
        with np.errstate(invalid="ignore", over="ignore"):
            bound = (level + slack - m_lo) / tt
        upper[active] = np.minimum(
            upper[active], np.where(np.isfinite(m_lo), bound, np.inf)
        )
        _attain(objective, active, th, cc, F, score, theta_c, F_c, level, slack)(
            lower, found
        )
        with np.errstate(invalid="ignore", over="ignore"):
            # Overflowed iterates give non-finite steps: ``stalled`` below.
            solved = Hinv @ np.stack([gG, cc], axis=2).transpose(1, 0, 2)
        step, w = solved[:, :, 0].T, solved[:, :, 1].T
        converged = np.isfinite(m_lo) & (G - m_lo <= 1e-10 * (1 + np.abs(G)))
        inner[active] = np.where(converged, 0, inner[active] + 1)
        # Without a penalty, min F - t c.theta is unbounded above some t: a
        # Newton search that stalls means t is too large.
        stalled = (inner[active] > 60) | ~np.all(np.isfinite(step), axis=0)
        if stalled.any():
            idx = active[stalled]
            t_hi[idx] = np.minimum(t_hi[idx], t[idx])
            t[idx] = 0.5 * (t_lo[idx] + t_hi[idx])
            theta[:, idx], inner[idx] = anchor[:, idx], 0
        moving = ~converged & ~stalled
        if moving.any():  # Newton in theta where theta(t) is not reached yet
            theta[:, active[moving]] = line_search(
                objective,
                th[:, moving],
                step[:, moving],
                cc[:, moving],
                tt[moving],
                G[moving],
            )
        if converged.any():  # a Newton step in t, on sqrt(2 (F - F_c))
            idx = active[converged]
            Fk, wk, tk = F[converged], w[:, converged], tt[converged]
            over = Fk > level
            t_hi[idx] = np.where(over, np.minimum(t_hi[idx], tk), t_hi[idx])
            t_lo[idx] = np.where(over, t_lo[idx], np.maximum(t_lo[idx], tk))
            anchor[:, idx[~over]] = th[:, converged][:, ~over]
            q = np.sqrt(2 * np.maximum(Fk - F_c, 1e-300))
            slope = tk * np.einsum("pk,pk->k", cc[:, converged], wk) / q
            t_new = tk + (np.sqrt(2 * delta) - q) / np.maximum(slope, 1e-300)
            outside = ~((t_new > t_lo[idx]) & (t_new < t_hi[idx]))
            fallback = np.where(
                np.isfinite(t_hi[idx]), 0.5 * (t_lo[idx] + t_hi[idx]), 2 * tk
            )
            t_new = np.where(outside, fallback, t_new)
            theta[:, idx] = theta[:, idx] + (t_new - tk) * wk
            t[idx] = t_new
        keep = prob_gap(lower[active], upper[active]) > tol
        keep &= t[active] > 0
        active = active[keep]
    return lower, upper, found


class _StaleHessians:
    """Hessians reused while the margins barely move.

    A Hessian (``rows x p^2`` operations) costs about ``p`` gradients, so each
    end keeps the last one and its margins, and recomputes it only when some
    margin has moved by more than ``DRIFT`` since. Newton steps with the kept
    Hessian still descend (line search); the certificate uses it scaled by
    ``exp(-drift)``, a valid lower bound on the current Hessian since the
    logistic loss is self-concordant (``phi''`` changes by at most a factor
    ``exp(|change|)`` when its argument moves).
    """

    DRIFT = 0.5

    def __init__(self, objective, outer, K):
        self.objective, self.outer = objective, outer
        n, p = objective.X.shape
        self.H = np.zeros((K, p, p))
        self.lam = np.zeros(K)  # their smallest eigenvalues
        self.inverse = np.zeros((K, p, p))
        self.margins = np.full((n, K), np.nan)

    def __call__(self, active, theta, h):
        """``(Hessians, their certified scale, their smallest eigenvalues,
        their inverses)`` of ``active``."""
        margins = self.objective.Xs @ theta
        with np.errstate(invalid="ignore"):
            drift = np.max(np.abs(margins - self.margins[:, active]), axis=0)
        refresh = ~(drift <= self.DRIFT)
        if refresh.any():
            idx = active[refresh]
            self.H[idx] = self.objective.hessians(h[:, refresh], self.outer)
            self.lam[idx] = np.linalg.eigvalsh(self.H[idx])[:, 0]
            eye = np.broadcast_to(np.eye(self.H.shape[1]), self.H[idx].shape)
            self.inverse[idx] = _solve(self.H[idx], eye)
            self.margins[:, idx] = margins[:, refresh]
            drift[refresh] = 0.0
        return self.H[active], np.exp(-drift), self.lam[active], self.inverse[active]


def _solve(H, rhs):
    """``H^-1 rhs`` per item; a tiny ridge where ``H`` is numerically
    singular (saturated rows without a penalty): it only steers the search,
    the certificates use the true Hessian."""
    try:
        return np.linalg.solve(H, rhs)
    except np.linalg.LinAlgError:
        scale = np.abs(H).max(axis=(1, 2), keepdims=True) + 1e-300
        ridge = 1e-10 * scale * np.eye(H.shape[1])
        with np.errstate(all="ignore"):
            return np.stack(
                [
                    np.linalg.lstsq(Hk, rk, rcond=None)[0]
                    for Hk, rk in zip(H + ridge, rhs, strict=True)
                ]
            )


def _attain(objective, active, th, cc, F, score, theta_c, F_c, level, slack):
    """A function raising ``lower`` with the models of the set found at this
    iterate (and recording them in ``found``)."""
    feasible = F <= level - slack
    candidate = th.copy()
    value = score.copy()
    shrink = ~feasible & (F > F_c)
    if shrink.any():
        s = (level - slack - F_c) / (F[shrink] - F_c) * (1 - 1e-9)
        pulled = theta_c[:, None] + s * (th[:, shrink] - theta_c[:, None])
        ok = objective.value(pulled) <= level - slack
        candidate[:, shrink] = pulled
        value[shrink] = np.einsum("pk,pk->k", cc[:, shrink], pulled)
        feasible[np.flatnonzero(shrink)[ok]] = True

    def update(lower, found):
        better = feasible & (value > lower[active])
        lower[active[better]] = value[better]
        found[:, active[better]] = candidate[:, better]

    return update
