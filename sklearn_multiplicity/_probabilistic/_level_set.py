"""The probabilistic level set of a fitted baseline: certified score ranges.

One object per fitted auditor: the objective, the baseline's parameters, the
certified minimiser and, per tolerance, the two closed-form ellipsoids. Score
ranges come from the ellipsoids and, for the ends they leave open, from the
exact solver.
"""

from dataclasses import dataclass

import numpy as np

from ._bounds import ScoreBounds, closed_form_bounds, inner_ellipsoid, outer_ellipsoid
from ._objective import minimum
from ._solver import prob_gap, solve_ends


@dataclass
class Ranges:
    """Certified score ranges (logits) of some people and the models behind them.

    ``bounds`` brackets each end; ``lower_models``/``upper_models`` (p, n) hold
    a model of the level set attaining ``bounds.lower_in``/``upper_in`` where
    the exact solver found it (``nan`` columns: the inner ellipsoid's extreme
    point or the baseline attains it, see :meth:`LevelSet.attaining`).
    """

    bounds: ScoreBounds
    lower_models: np.ndarray
    upper_models: np.ndarray
    #: Whether the exact solver settled every end asked of it (not stopped
    #: by a time limit).
    complete: bool = True

    def certified(self, tol):
        b = self.bounds
        return (prob_gap(b.lower_out, b.lower_in) <= tol) & (
            prob_gap(b.upper_in, b.upper_out) <= tol
        )


class LevelSet:
    """``{theta : F(theta) <= F(theta_0) + eps}`` for one objective ``F``."""

    def __init__(self, objective, theta0):
        self.objective = objective
        self.theta0 = theta0
        self.baseline_objective = float(objective.value(theta0))
        self.center, self.min_lower, self.min_upper = minimum(objective, theta0)
        _, g, _ = objective.derivatives(self.center[:, None])
        self.center_grad = g[:, 0]
        self._ellipsoids = {}

    def level(self, eps):
        """The largest objective of the level set at ``eps``."""
        return self.baseline_objective + eps

    def ellipsoids(self, eps):
        """``(outer, inner)`` ellipsoids at ``eps`` (cached)."""
        if eps not in self._ellipsoids:
            delta = max(self.level(eps) - self.min_upper, 0.0)
            args = (self.objective, self.center, self.center_grad, delta)
            outer, R = outer_ellipsoid(*args)
            self._ellipsoids[eps] = (outer, inner_ellipsoid(*args, R_outer=R))
        return self._ellipsoids[eps]

    def ranges(self, rows, eps, refine, tol, n_jobs=None, end=None):
        """Certified ranges of the scores ``rows @ theta`` (rows augmented).

        ``refine(bounds)`` returns the masks ``(lower, upper)`` of the ends to
        solve exactly; the rest keep their closed-form brackets. The exact
        solver stops at ``end`` (a ``time.perf_counter()`` value, ``None``:
        never), leaving certified brackets.
        """
        outer, inner = self.ellipsoids(eps)
        baseline = rows @ self.theta0
        b = closed_form_bounds(rows, baseline, outer, inner)
        need_lo, need_hi = refine(b)
        lo_idx, hi_idx = np.flatnonzero(need_lo), np.flatnonzero(need_hi)
        C = np.hstack([rows[hi_idx].T, -rows[lo_idx].T])
        known_lo = np.concatenate([b.upper_in[hi_idx], -b.lower_in[lo_idx]])
        known_hi = np.concatenate([b.upper_out[hi_idx], -b.lower_out[lo_idx]])
        lo, hi, thetas = solve_ends(
            self.objective,
            C,
            self.center,
            self.min_upper,
            self.level(eps),
            known_lo,
            known_hi,
            tol,
            n_jobs=n_jobs,
            end=end,
        )
        complete = not np.any(prob_gap(lo, hi) > tol)
        k = hi_idx.size
        b.upper_in[hi_idx], b.upper_out[hi_idx] = lo[:k], hi[:k]
        b.lower_in[lo_idx], b.lower_out[lo_idx] = -lo[k:], -hi[k:]
        p, n = rows.shape[1], rows.shape[0]
        lower_models, upper_models = np.full((p, n), np.nan), np.full((p, n), np.nan)
        upper_models[:, hi_idx], lower_models[:, lo_idx] = thetas[:, :k], thetas[:, k:]
        return Ranges(b, lower_models, upper_models, complete)

    def attaining(self, ranges, index, row, end, eps):
        """A model of the level set whose score of ``row`` is the attained
        ``end`` ("lower" or "upper") of person ``index``."""
        models = ranges.lower_models if end == "lower" else ranges.upper_models
        theta = models[:, index]
        if not np.isnan(theta).any():
            return theta
        b = ranges.bounds
        attained = b.lower_in[index] if end == "lower" else b.upper_in[index]
        if attained == b.baseline[index]:
            return self.theta0
        _, inner = self.ellipsoids(eps)
        return inner.extreme(row if end == "upper" else -row)

    def maximisers(self, C, eps, tol, n_jobs=None, end=None):
        """Models of the level set (p, K) maximising ``C[:, k] . theta``
        (within ``tol`` on the probability scale)."""
        outer, inner = self.ellipsoids(eps)
        mid_o, half_o = outer.extents(C.T)
        mid_i, half_i = inner.extents(C.T)
        _, _, thetas = solve_ends(
            self.objective,
            C,
            self.center,
            self.min_upper,
            self.level(eps),
            mid_i + half_i,
            mid_o + half_o,
            tol,
            n_jobs=n_jobs,
            end=end,
        )
        missing = np.isnan(thetas).any(axis=0)
        for k in np.flatnonzero(missing):
            thetas[:, k] = inner.extreme(C[:, k])
        return thetas
