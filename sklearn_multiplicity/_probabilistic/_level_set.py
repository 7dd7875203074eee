"""The probabilistic level set of a fitted baseline: certified score ranges.

One object per fitted auditor: the objective, the baseline's parameters, the
certified minimiser and, per tolerance, the two closed-form ellipsoids. Score
ranges come from the ellipsoids and, for the ends they leave open, from the
boundary walk (:mod:`._walk`) and then the exact solver.
"""

import time
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial

import numpy as np

from ._bounds import ScoreBounds, closed_form_bounds, inner_ellipsoid, outer_ellipsoid
from ._objective import minimum
from ._solver import prob_gap, solve_ends
from ._walk import BoundaryWalk


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
        self._walks = {}

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
            self._walks[eps] = BoundaryWalk(
                self.objective, self.center, self.level(eps), R
            )
        return self._ellipsoids[eps]

    def ranges(self, rows, eps, refine, tol, deadline, n_jobs=None, progress=None):
        """Certified ranges of the scores ``rows @ theta`` (rows augmented).

        ``refine(bounds)`` returns the masks ``(lower, upper)`` of the ends to
        settle; the rest keep their closed-form brackets. The boundary walk
        settles most of them, the exact solver the rest; both stop at
        ``deadline`` (a :class:`~sklearn_multiplicity._engine.Deadline`;
        ``Deadline(None)``: never), leaving certified brackets.
        ``progress``, when given (a :class:`~.._progress.StageProgress`),
        receives a line per stage and counts the ends settled while a stage
        runs.
        """
        start = time.perf_counter()
        outer, inner = self.ellipsoids(eps)
        b = closed_form_bounds(rows, rows @ self.theta0, outer, inner)
        p, n = rows.shape[1], rows.shape[0]
        if progress is not None:
            need_lo, need_hi = refine(b)
            progress.line(
                f"closed-form bounds of {n} people in "
                f"{time.perf_counter() - start:.2f} s; "
                f"{int(need_lo.sum() + need_hi.sum())} of {2 * n} ends left open"
            )
        models = (np.full((p, n), np.nan), np.full((p, n), np.nan))
        stages = (
            ("boundary walk", self._walks[eps].run, "passed on to the exact solver"),
            ("exact solver", self._exact(eps), "left as certified brackets"),
        )
        for name, solver, open_ends in stages:
            start = time.perf_counter()
            stage = None if progress is None else partial(progress.stage, name)
            asked, left = _settle(
                rows, b, models, refine, solver, tol, n_jobs, deadline, stage
            )
            if progress is not None and asked:
                progress.line(
                    f"{name} settled {asked - left} of {asked} ends in "
                    f"{time.perf_counter() - start:.2f} s"
                    + (f"; {left} {open_ends}" if left else "")
                )
        return Ranges(b, models[0], models[1], complete=left == 0)

    def _exact(self, eps):
        def solve(C, lower, upper, tol, **kwargs):
            return solve_ends(
                self.objective,
                C,
                self.center,
                self.min_upper,
                self.level(eps),
                lower,
                upper,
                tol,
                **kwargs,
            )

        return solve

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

    def maximisers(self, C, eps, tol, deadline, n_jobs=None):
        """Models of the level set (p, K) maximising ``C[:, k] . theta``
        (within ``tol`` on the probability scale, or as close as ``deadline``
        allows)."""
        outer, inner = self.ellipsoids(eps)
        mid_o, half_o = outer.extents(C.T)
        mid_i, half_i = inner.extents(C.T)
        lower, upper, thetas = self._walks[eps].run(
            C, mid_i + half_i, mid_o + half_o, tol, deadline=deadline, n_jobs=n_jobs
        )
        left = np.flatnonzero(prob_gap(lower, upper) > tol)
        _, _, exact = self._exact(eps)(
            C[:, left], lower[left], upper[left], tol, deadline=deadline, n_jobs=n_jobs
        )
        _keep_found(thetas, left, exact)
        missing = np.isnan(thetas).any(axis=0)
        for k in np.flatnonzero(missing):
            thetas[:, k] = inner.extreme(C[:, k])
        return thetas


def _keep_found(models, index, thetas):
    """Record the models found for ``index``, keeping earlier ones where none
    was found (``nan`` columns)."""
    found = ~np.isnan(thetas).any(axis=0)
    models[:, index[found]] = thetas[:, found]


def _settle(rows, b, models, refine, solver, tol, n_jobs, deadline, stage=None):
    """Run ``solver`` on the ends ``refine(b)`` asks for and write its
    brackets and models back; how many ends it was asked to settle and how
    many it left open. ``stage(asked)``, when given, is the context that
    counts the ends settled as the solver runs."""
    lower_models, upper_models = models
    need_lo, need_hi = refine(b)
    lo_idx, hi_idx = np.flatnonzero(need_lo), np.flatnonzero(need_hi)
    C = np.hstack([rows[hi_idx].T, -rows[lo_idx].T])
    known_lo = np.concatenate([b.upper_in[hi_idx], -b.lower_in[lo_idx]])
    known_hi = np.concatenate([b.upper_out[hi_idx], -b.lower_out[lo_idx]])
    asked = lo_idx.size + hi_idx.size
    watching = stage(asked) if stage is not None and asked else nullcontext()
    with watching as settled:
        lo, hi, thetas = solver(
            C,
            known_lo,
            known_hi,
            tol,
            deadline=deadline,
            n_jobs=n_jobs,
            progress=settled,
        )
    k = hi_idx.size
    b.upper_in[hi_idx], b.upper_out[hi_idx] = lo[:k], hi[:k]
    b.lower_in[lo_idx], b.lower_out[lo_idx] = -lo[k:], -hi[k:]
    _keep_found(upper_models, hi_idx, thetas[:, :k])
    _keep_found(lower_models, lo_idx, thetas[:, k:])
    return lo.size, int(np.count_nonzero(prob_gap(lo, hi) > tol))
