"""Supporting points of the level set, found without a Hessian per end.

The highest score ``max c . theta`` over ``S = {F <= L}`` is attained on the
boundary of ``S``, where the gradient of ``F`` points along ``c``. The walk
approaches that point in rounds that cost two products of the rows with the
ends' points (``rows x p`` operations per end) instead of the exact solver's
Hessians (``rows x p^2``):

- **a model of the set**: a target point is pulled back to the boundary along
  the ray from the minimiser ``theta_c`` (where the chord of ``F`` crosses
  the level, certified by evaluating ``F``); its score is attained.
- **a bound**: at a point ``b`` of the set with gradient ``g``, every model
  ``theta`` of the set has ``F(theta) >= F(b) + g . v + v' Q v / 2``
  (``v = theta - b``), with one matrix ``Q`` for all ends: the training
  margins of the set stay within ``R_i`` of the minimiser's (the outer
  ellipsoid's certificate), so along ``[b, theta]`` they move by at most
  ``2 R_i`` and the curvature of row ``i`` at ``b`` is at least
  ``phi''_i(theta_c) exp(-R_i)`` (self-concordance, ``|phi'''| <= phi''``);
  with the Taylor bound of :mod:`._ellipsoids`, ``Q = X' diag(2 a phi''(theta_c)
  exp(-R) psi(2 R)) X + diag(penalty)``. The extreme of ``c`` over that
  ellipsoid bounds every score from above; it is exact when ``g`` is along
  ``c`` and its error shrinks with the square of their misalignment, so a
  loose ``Q`` costs little once ``b`` is close.
- **the next target**: the extreme of ``c`` over the quadratic model of ``F``
  at ``b`` with the Hessian at ``theta_c`` (it only steers; the first target
  is that model's extreme at ``theta_c`` itself).

Ends the walk leaves open keep their brackets for the exact solver.
"""

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ._ellipsoids import logistic_curvature, psi_below, quadratic_form
from ._objective import level_slack
from ._solver import in_batches, prob_gap

#: Rounds of the walk per end.
MAX_ROUNDS = 8
#: An end whose bracket shrinks by less than this share in a round is left to
#: the exact solver.
MIN_PROGRESS = 0.1
#: Floats of a (rows x ends) block: bounds the memory of a batch.
BLOCK_FLOATS = 4_000_000


class BoundaryWalk:
    """The walk on one level set ``{F <= level}``.

    Parameters
    ----------
    objective : LogisticObjective
    theta_c : ndarray of shape (p,)
        The certified minimiser.
    level : float
    R : ndarray of shape (n_rows,)
        Certified bounds on how far each training margin of the set moves
        from the minimiser's.
    """

    def __init__(self, objective, theta_c, level, R):
        self.objective, self.theta_c = objective, theta_c
        self.level = level
        self.slack = level_slack(level)
        F, g, h = objective.derivatives(theta_c[:, None])
        self.value_c, self.grad_c = float(F[0]), g[:, 0]
        try:
            self.steer_factor = cho_factor(objective.hessians(h)[0], lower=True)
            floor = 2 * objective.a * logistic_curvature(objective, theta_c)
            floor *= np.exp(-R) * psi_below(2 * R)
            self.lower_factor = cho_factor(quadratic_form(objective, floor), lower=True)
        except (LinAlgError, ValueError):  # singular curvature: no walk
            self.steer_factor = self.lower_factor = None

    @property
    def usable(self):
        return self.lower_factor is not None and self.steer_factor is not None

    def run(self, C, lower, upper, tol, *, deadline, n_jobs=None, progress=None):
        """Improve certified brackets of ``max C[:, k] . theta``.

        Same contract as :func:`._solver.solve_ends`: stops at ``deadline``
        (a :class:`~sklearn_multiplicity._engine.Deadline`), and returns the
        improved ``lower, upper`` and the models (p, K) attaining each
        improved ``lower`` (``nan`` columns where it was not improved).
        """
        K = C.shape[1]
        if K == 0 or not self.usable:
            return lower.copy(), upper.copy(), np.full(C.shape, np.nan)
        width = max(1, min(256, BLOCK_FLOATS // self.objective.X.shape[0]))
        return in_batches(
            self._walk,
            C,
            lower,
            upper,
            tol,
            width,
            n_jobs,
            progress=progress,
            deadline=deadline,
        )

    def _walk(self, C, lower, upper, tol, deadline):
        lower, upper = lower.astype(float).copy(), upper.astype(float).copy()
        found = np.full(C.shape, np.nan)
        active = np.flatnonzero(prob_gap(lower, upper) > tol)
        k = active.size
        # Where each target was steered from, and the curvature scale of the
        # steering model along the way (learnt from F at the targets).
        origin = np.repeat(self.theta_c[:, None], k, axis=1)
        F_o = np.full(k, self.value_c)
        g_o = np.repeat(self.grad_c[:, None], k, axis=1)
        scale = np.ones(k)
        target = self._steer(origin, F_o, g_o, C[:, active], scale)
        for step in range(MAX_ROUNDS):
            if active.size == 0 or deadline.expired():
                break
            c = C[:, active]
            before = upper[active] - lower[active]
            points, F, g, F_t = self._pull_back(target)
            scale = self._learn_scale(origin, F_o, g_o, target, F_t, scale)
            value = np.einsum("pk,pk->k", c, points)
            better = value > lower[active]
            lower[active[better]] = value[better]
            found[:, active[better]] = points[:, better]
            upper[active] = np.minimum(upper[active], self._bound(points, F, g, c))
            origin, F_o, g_o = points, F, g
            target = self._steer(points, F, g, c, scale)
            after = upper[active] - lower[active]
            keep = prob_gap(lower[active], upper[active]) > tol
            # Stalled ends (brackets that barely shrink) go to the exact
            # solver; the first round always counts as progress.
            if step > 0:
                keep &= ~(after > (1 - MIN_PROGRESS) * before)
            active, target = active[keep], target[:, keep]
            origin, F_o, g_o, scale = (
                origin[:, keep],
                F_o[keep],
                g_o[:, keep],
                scale[keep],
            )
        return lower, upper, found

    def _learn_scale(self, origin, F_o, g_o, target, F_t, scale):
        v = target - origin
        Lv = np.tril(self.steer_factor[0]).T @ v
        quad = 0.5 * np.einsum("pk,pk->k", Lv, Lv)
        with np.errstate(invalid="ignore", divide="ignore"):
            seen = (F_t - F_o - np.einsum("pk,pk->k", g_o, v)) / quad
        ok = np.isfinite(seen) & (quad > 1e-12)
        return np.where(ok, np.clip(seen, 0.05, 50.0), scale)

    def _pull_back(self, target):
        """Models of the set on the segments from ``theta_c`` to ``target``,
        at or just inside the boundary, with their objective values and
        gradients."""
        theta_c = self.theta_c
        U = target - theta_c[:, None]
        ray = _Ray(self.objective, theta_c, U)
        limit = self.level - self.slack
        value = at_target = ray.value_at_targets()
        # F is convex along the ray, so the chord from theta_c lies above it:
        # where the chord crosses the level the ray is in the set (checked by
        # evaluating F, rounding included). Targets steer close to the
        # boundary, so the chord lands close to it too.
        with np.errstate(invalid="ignore", divide="ignore"):
            shrink = (limit - self.value_c) / (value - self.value_c)
        shrink = np.where(value > limit, np.nan_to_num(shrink), 1.0)
        alpha = np.clip(shrink, 0.0, 1.0) * (1 - 1e-12)
        points = theta_c[:, None] + alpha * U
        value, grad = ray.value_and_gradient(alpha, points)
        outside = value > limit
        if outside.any():  # rounding: fall back on theta_c itself
            points[:, outside] = theta_c[:, None]
            value[outside] = self.value_c
            grad[:, outside] = self.grad_c[:, None]
        return points, value, grad, at_target

    def _bound(self, points, F, g, c):
        """``max c . theta`` over ``{F(b) + g . v + v' Q v / 2 <= level}``."""
        Qg = cho_solve(self.lower_factor, g)
        Qc = cho_solve(self.lower_factor, c)
        radius2 = 2 * (self.level + self.slack - F) + np.einsum("pk,pk->k", g, Qg)
        radius2 = np.maximum(radius2, 0.0)
        value = np.einsum("pk,pk->k", c, points - Qg) + np.sqrt(
            radius2 * np.maximum(np.einsum("pk,pk->k", c, Qc), 0.0)
        )
        return value + 1e-9 * (1 + np.abs(value))

    def _steer(self, points, F, g, c, scale):
        Hg = cho_solve(self.steer_factor, g)
        Hc = cho_solve(self.steer_factor, c)
        radius2 = 2 * (self.level - F) * scale + np.einsum("pk,pk->k", g, Hg)
        curv = np.maximum(np.einsum("pk,pk->k", c, Hc), 1e-300)
        return points + (-Hg + np.sqrt(np.maximum(radius2, 0) / curv) * Hc) / scale


class _Ray:
    """``F`` along ``theta_c + alpha u`` for many ``u`` at once, from the
    margins at ``theta_c`` and their rates (one product); the element-wise
    work runs over blocks of rows that stay in cache."""

    ROWS = 256

    def __init__(self, objective, theta_c, U):
        self.objective = objective
        self.a = objective.a
        self.m0 = objective.Xs @ theta_c
        self.rate = objective.Xs @ U
        self.theta_c, self.U = theta_c, U

    def value_at_targets(self):
        """``F`` at ``alpha = 1``, the targets themselves."""
        value = np.zeros(self.U.shape[1])
        for rows, m, e in self._blocks(None):
            value += self.a[rows] @ _loss(m, e)
        return value + self._penalty(self.theta_c[:, None] + self.U)

    def value_and_gradient(self, alpha, theta):
        """``F`` and its gradient at the points ``theta`` (columns) of ``alpha``."""
        value = np.zeros(alpha.size)
        weights = np.empty_like(self.rate)
        for rows, m, e in self._blocks(alpha):
            value += self.a[rows] @ _loss(m, e)
            # -a * expit(-m), from e = exp(-|m|) without overflow
            out = weights[rows]
            np.divide(-self.a[rows, None], 1.0 + e, out=out)
            out *= np.where(m >= 0, e, 1.0)
        penalty = self.objective.penalty[:, None] * theta
        grad = self.objective.Xs.T @ weights + penalty
        return value + self._penalty(theta), grad

    def _penalty(self, theta):
        return 0.5 * np.einsum("p,pk,pk->k", self.objective.penalty, theta, theta)

    def _blocks(self, alpha):
        """Margins ``m`` and ``exp(-|m|)`` block by block (buffers reused);
        ``alpha`` None: at the targets."""
        m_buf = np.empty((self.ROWS, self.U.shape[1]))
        e_buf = np.empty_like(m_buf)
        for start in range(0, self.m0.size, self.ROWS):
            rows = slice(start, start + self.ROWS)
            rate = self.rate[rows]
            m, e = m_buf[: rate.shape[0]], e_buf[: rate.shape[0]]
            if alpha is None:  # alpha = 1
                np.add(rate, self.m0[rows, None], out=m)
            else:
                np.multiply(rate, alpha, out=m)
                m += self.m0[rows, None]
            np.abs(m, out=e)
            np.negative(e, out=e)
            np.exp(e, out=e)
            yield rows, m, e


def _loss(m, e):
    """``log(1 + exp(-m))`` from ``m`` and ``e = exp(-|m|)``."""
    loss = np.log1p(e)
    loss -= np.minimum(m, 0.0)
    return loss
