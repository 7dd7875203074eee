"""The level set of a fitted baseline, for two and K labels, and what it
answers.

``{theta : F(theta) <= F(baseline) + eps}`` for the objective ``F`` of
:mod:`._objective`: one object per fitted auditor holds the objective, the
baseline's parameters, the certified minimiser and, per tolerance, the two
closed-form ellipsoids of :mod:`._ellipsoids`. It answers

- **score ranges** (two labels, where a person's probability is one score):
  the ellipsoids bracket every range in closed form; the ends they leave open
  go to the boundary walk (:mod:`._walk`) and then the exact solver
  (:mod:`._solver`);
- **label reach** (K labels, where a decision is the most probable label):
  which labels models of the set give each person (:mod:`._label_reach`),
  each label's probability range (certified brackets) and the Rashomon
  capacity (Blahut-Arimoto over models of the set below, the sum of the
  largest probabilities above).
"""

import time
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import softmax
from threadpoolctl import threadpool_limits

from ._ellipsoids import inner_ellipsoid, outer_ellipsoid
from ._label_cone import NO
from ._label_reach import reach_labels
from ._objective import full_scores, minimum, objective_of, score_ranges
from ._score_ellipsoids import MarginProblem, full_covariance
from ._solver import prob_gap, solve_ends
from ._walk import BoundaryWalk

#: K labels: models of the harvest (at most) whose probabilities bracket the
#: ranges.
RANGE_MODELS = 512


@dataclass
class Brackets:
    """Certified brackets of the extremes of a value of some people over the
    level set: ``lower_out <= min <= lower_in <= baseline <= upper_in <= max
    <= upper_out``; the ``_in`` ends are attained by models of the set.

    The values are scores (logits, shape (n,)) for two labels, each label's
    probability (n, K) for K labels.
    """

    lower_out: np.ndarray
    lower_in: np.ndarray
    upper_in: np.ndarray
    upper_out: np.ndarray
    baseline: np.ndarray


@dataclass
class Ranges:
    """Certified score ranges (logits) of some people and the models behind them.

    ``bounds`` brackets each end; ``lower_models``/``upper_models`` (p, n) hold
    a model of the level set attaining ``bounds.lower_in``/``upper_in`` where
    the exact solver found it (``nan`` columns: the inner ellipsoid's extreme
    point or the baseline attains it, see :meth:`LevelSet.attaining`).
    """

    bounds: Brackets
    lower_models: np.ndarray
    upper_models: np.ndarray
    #: Whether the exact solver settled every end asked of it (not stopped
    #: by a time limit).
    complete: bool = True


class LevelSet:
    """``{theta : F(theta) <= F(theta0) + eps}`` for one objective ``F``.

    Parameters
    ----------
    objective : LogisticObjective
    theta0 : ndarray of shape (dim,)
        The baseline's parameters.

    Attributes
    ----------
    center : ndarray of shape (dim,)
        The certified minimiser.
    min_lower, min_upper : float
        Certified bounds on the minimum of ``F``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> lr = LogisticRegression(max_iter=1000).fit(X, y)
    >>> level_set = LevelSet.of(lr, X, y)
    >>> reach = level_set.label_reach(X, eps=0.01)
    >>> bool(reach.ambiguity().lower <= reach.ambiguity().upper)
    True
    """

    def __init__(self, objective, theta0):
        self.objective, self.theta0 = objective, theta0
        with self._dense():
            self.baseline_objective = float(objective.value(theta0))
            self.center, self.min_lower, self.min_upper = minimum(objective, theta0)
            _, g, _ = objective.derivatives(self.center[:, None])
        self.center_grad = g[:, 0]
        self._ellipsoid_cache = {}
        self._walks = {}

    @classmethod
    def of(cls, estimator, X, y, sample_weight=None):
        """The level set of a fitted ``LogisticRegression`` on ``(X, y)``."""
        return cls(*objective_of(estimator, X, y, sample_weight))

    def _dense(self):
        """K labels: the dense algebra (a few hundred columns) runs on one
        BLAS thread; on a shared machine more threads mostly wait for each
        other."""
        return threadpool_limits(1) if self.objective.is_multiclass else nullcontext()

    def level(self, eps):
        """The largest objective of the level set at ``eps``."""
        return self.baseline_objective + eps

    def _ellipsoids(self, eps):
        """``[outer, R, inner]`` at ``eps`` (cached; ``inner`` on demand)."""
        if eps not in self._ellipsoid_cache:
            # The quadratic models are exact at the minimiser (F = min_upper).
            delta = max(self.level(eps) - self.min_upper, 0.0)
            with self._dense():
                outer, R = outer_ellipsoid(
                    self.objective, self.center, self.center_grad, delta
                )
            self._ellipsoid_cache[eps] = [outer, R, None]
        return self._ellipsoid_cache[eps]

    def outer(self, eps):
        """The ellipsoid holding the level set at ``eps``."""
        return self._ellipsoids(eps)[0]

    def inner(self, eps):
        """An ellipsoid inside the level set at ``eps``."""
        cached = self._ellipsoids(eps)
        if cached[2] is None:
            delta = max(self.level(eps) - self.min_upper, 0.0)
            args = (self.objective, self.center, self.center_grad, delta)
            with self._dense():
                cached[2] = inner_ellipsoid(*args, R_outer=cached[1])
        return cached[2]

    def walk(self, eps):
        """Two labels: the boundary walk at ``eps``."""
        if eps not in self._walks:
            R = self._ellipsoids(eps)[1]
            self._walks[eps] = BoundaryWalk(
                self.objective, self.center, self.level(eps), R
            )
        return self._walks[eps]

    @cached_property
    def H_inv(self):
        """The inverse Hessian of ``F`` at the minimiser."""
        with threadpool_limits(1):
            H = self.objective.hessian(self.center)
            return cho_solve(cho_factor(H, lower=True), np.eye(H.shape[0]))

    # -------------------------------------------- score ranges (two labels)
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
        outer, inner = self.outer(eps), self.inner(eps)
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
            ("boundary walk", self.walk(eps).run, "passed on to the exact solver"),
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
        return self.inner(eps).extreme(row if end == "upper" else -row)

    def maximisers(self, C, eps, tol, deadline, n_jobs=None):
        """Models of the level set (p, K) maximising ``C[:, k] . theta``
        (within ``tol`` on the probability scale, or as close as ``deadline``
        allows)."""
        outer, inner = self.outer(eps), self.inner(eps)
        mid_o, half_o = outer.extents(C.T)
        mid_i, half_i = inner.extents(C.T)
        lower, upper, thetas = self.walk(eps).run(
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

    # ------------------------------------------------ label reach (K labels)
    def baseline_scores(self, rows):
        z = self.objective.scores(rows, self.theta0[:, None])[:, :, 0]
        return full_scores(z)

    def label_reach(self, X, eps, *, deadline=None, n_jobs=None, progress=None):
        """Exact label reachability of the people ``X``.

        Stages (:mod:`._label_reach`): the baseline's labels; the
        outer ellipsoid's certified *no* (:mod:`._score_ellipsoids`); the
        inner ellipsoid's points, models of the set without evaluating
        ``F``; the walk (:mod:`._label_walk`), whose models settle
        *yes* for every pair they give and whose tangent bounds settle *no*
        (:mod:`._label_cone`); the exact per-pair solver
        (:mod:`._label_cone`) on what is left.

        Parameters
        ----------
        X : array-like of shape (n_people, n_features)
        eps : float
            Tolerance of the level set (nats per unit of weight).
        deadline : Deadline or None, default=None
            When the walk and the exact stage stop (``None``: never); pairs
            they leave are ``OPEN``.
        n_jobs : int or None, default=None
            Threads of the walk and the exact stage (joblib).
        progress : StageProgress or None, default=None
            Receives a line per stage, and a bar of the pairs the walk
            settles while it runs.

        Returns
        -------
        LabelReach
        """
        return reach_labels(
            self, X, eps, deadline=deadline, n_jobs=n_jobs, progress=progress
        )

    def outer_refutes(self, rows, people, labels, eps):
        """Pairs whose label the outer ellipsoid never gives (certified by
        the multipliers of :class:`MarginProblem`)."""
        outer = self.outer(eps)
        if people.size == 0:
            return np.zeros(0, dtype=bool)
        unique, where = np.unique(people, return_inverse=True)
        z_c, G = outer.image(self.objective, rows[unique])
        problem = MarginProblem(
            full_scores(z_c)[where],
            full_covariance(G)[where],
            labels,
            np.sqrt(outer.radius2 * (1 + 1e-9)),
        )
        upper, _, _ = problem.solve(decided=lambda up, lo: (up < 0) | (lo > 0))
        margin = 1e-9 * (1 + np.abs(full_scores(z_c)).max(initial=0.0))
        return upper < -margin

    def probability_ranges(self, X, eps, reach=None):
        """Certified brackets of every label's probability for the people ``X``.

        The outer ends bound each rival's lead over the outer ellipsoid (and
        a label no model gives has probability at most 1/2); the attained
        ends come from :meth:`attained`.

        Returns
        -------
        Brackets
        """
        rows = self.objective.augment(np.asarray(X, dtype=float))
        low, high = self.attained(rows, eps, reach)
        return self._ranges(rows, eps, reach, low, high)

    def _ranges(self, rows, eps, reach, low, high):
        """The ranges of ``rows`` from the attained ends ``low`` and ``high``,
        with the outer ends of :meth:`probability_ranges`."""
        outer = self.outer(eps)
        zo, Go = outer.image(self.objective, rows)
        lead = _largest_leads(zo, Go, outer.radius2)  # max (s_l - s_m)
        K = self.objective.K
        off = ~np.eye(K, dtype=bool)[None]
        # p_l = 1 / (1 + sum_m exp(s_m - s_l)), each exponent bounded apart.
        with np.errstate(over="ignore"):
            upper_out = 1 / (1 + np.sum(np.where(off, np.exp(-lead), 0.0), axis=2))
            rival = np.swapaxes(lead, 1, 2)
            lower_out = 1 / (1 + np.sum(np.where(off, np.exp(rival), 0.0), axis=2))
        if reach is not None:
            upper_out = np.where(
                reach.status == NO, np.minimum(upper_out, 0.5), upper_out
            )
        return Brackets(
            np.minimum(lower_out, low),
            low,
            high,
            np.maximum(upper_out, high),
            softmax(self.baseline_scores(rows), axis=1),
        )

    def attained(self, rows, eps, reach=None, distributions=False):
        """Smallest and largest probabilities (n, K) of each label over
        models of the set: the baseline, each label's most probable point of
        the inner ellipsoid, the witnesses of ``reach`` (each person's own,
        and a sample of the others). ``distributions``: also the predicted
        distributions (n, M, K) of the person's own models."""
        K, obj = self.objective.K, self.objective
        inner = self.inner(eps)
        zi, Gi = inner.image(obj, rows)
        points = [self.baseline_scores(rows)]
        for lab in range(K):
            points.append(full_scores(_max_log_prob(zi, Gi, inner.radius2, lab)))
        own = np.stack([softmax(p, axis=1) for p in points], axis=1)
        if reach is not None:
            index = reach.harvest.index
            found = index >= 0
            extra = np.repeat(own[:, :1], K, axis=1)
            for lab in range(K):
                people = np.flatnonzero(found[:, lab])
                thetas = reach.harvest.all_models()[:, index[people, lab]]
                V = thetas.T.reshape(people.size, K - 1, obj.q)
                z = np.einsum("jkq,jq->jk", V, rows[people])
                extra[people, lab] = softmax(full_scores(z), axis=1)
            own = np.concatenate([own, extra], axis=1)
        low, high = own.min(axis=1), own.max(axis=1)
        if reach is not None:
            models = reach.harvest.sample(RANGE_MODELS)
            for start in range(0, models.shape[1], 64):
                z = obj.scores(rows, models[:, start : start + 64])
                p = softmax(full_scores(np.moveaxis(z, 1, 2)), axis=2)
                low, high = (
                    np.minimum(low, p.min(axis=1)),
                    np.maximum(high, p.max(axis=1)),
                )
        return (low, high, own) if distributions else (low, high)

    def rashomon_capacity(self, X, eps, reach=None, iterations=300):
        """Certified bracket of each person's Rashomon capacity ``2 ** C``.

        Below: the mutual information of the Blahut-Arimoto input
        distribution over the person's models of :meth:`attained` (a channel
        with fewer inputs has no more capacity). Above: ``sum_l max p_l``
        over the set (``2 ** C`` never exceeds it), at most ``K``.

        Returns
        -------
        lower, upper : ndarray (n_people,)
        """
        rows = self.objective.augment(np.asarray(X, dtype=float))
        low, high, W = self.attained(rows, eps, reach, distributions=True)
        ranges = self._ranges(rows, eps, reach, low, high)
        lower = np.exp2(blahut_arimoto(W, iterations))
        upper = np.minimum(ranges.upper_out.sum(axis=1), self.objective.K)
        return np.minimum(lower, upper), upper


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


def closed_form_bounds(rows, baseline_scores, outer, inner):
    """Brackets of every person's score range from the two ellipsoids."""
    mid_o, half_o = outer.extents(rows)
    mid_i, half_i = inner.extents(rows)
    # The baseline is in the level set: the attained range always holds it.
    lower_in = np.minimum(mid_i - half_i, baseline_scores)
    upper_in = np.maximum(mid_i + half_i, baseline_scores)
    lower_out = np.minimum(mid_o - half_o, lower_in)
    upper_out = np.maximum(mid_o + half_o, upper_in)
    return Brackets(
        lower_out, lower_in, upper_in, upper_out, np.asarray(baseline_scores)
    )


def _largest_leads(z_c, G, radius2):
    """``max (s_l - s_m)`` over the ellipsoids: (n, K, K)."""
    zf = full_scores(z_c)
    return zf[:, :, None] - zf[:, None, :] + np.sqrt(radius2 * score_ranges(G))


def _max_log_prob(z_c, G, radius2, label, iterations=200):
    """Points of the score ellipsoids near the highest ``log p_label``
    (projected gradient ascent in whitened coordinates, every person at once;
    any point of the ellipsoid is a model's scores). ``log p_label`` is
    concave in the scores, so a person whose ascent stops moving is at its
    maximum and leaves the iteration."""
    n, k = z_c.shape
    scale = np.trace(G, axis1=1, axis2=2)[:, None, None] / k + 1e-300
    L = np.linalg.cholesky(G + 1e-12 * scale * np.eye(k))
    r = np.sqrt(radius2)
    u = np.zeros((n, k))
    step = np.full(n, 1.0)
    onehot = np.eye(k + 1)[label]

    def value_grad(u, at):
        z = z_c[at] + r * np.einsum("nij,nj->ni", L[at], u)
        s = full_scores(z)
        p = softmax(s, axis=1)
        value = s[:, label] - np.log(np.sum(np.exp(s - s.max(1, keepdims=True)), 1))
        value -= s.max(1)
        grad_z = (onehot - p)[:, 1:]
        return value, r * np.einsum("nij,ni->nj", L[at], grad_z)

    active = np.arange(n)
    value, grad = value_grad(u, active)
    for _ in range(iterations):
        if active.size == 0:
            break
        trial = u[active] + step[active, None] * grad
        norm = np.linalg.norm(trial, axis=1, keepdims=True)
        trial = trial / np.maximum(norm, 1.0) * (1 - 1e-9)
        v_t, g_t = value_grad(trial, active)
        better = v_t >= value
        moved = np.linalg.norm(trial - u[active], axis=1)
        kept = active[better]
        u[kept], value[better], grad[better] = trial[better], v_t[better], g_t[better]
        step[active] = np.where(better, step[active] * 1.5, step[active] * 0.3)
        going = np.where(better, moved > 1e-12, step[active] > 1e-12)
        active, value, grad = active[going], value[going], grad[going]
    return z_c + r * np.einsum("nij,nj->ni", L, u)


def blahut_arimoto(W, iterations=300, tol=1e-5):
    """Lower bounds (bits) on the capacity of the channels ``W`` (n, M, K):
    the mutual information of the input distribution reached (any input
    distribution's information is at most the capacity). A channel leaves
    the iteration once the capacity's bracket ``[I(p), max_m D(W_m || q)]``
    is narrower than ``tol`` nats."""
    n, M, _ = W.shape
    logW = np.log(np.maximum(W, 1e-300))
    p = np.full((n, M), 1.0 / M)

    def divergences(at):
        out = np.einsum("nm,nmk->nk", p[at], W[at])
        log_out = np.log(np.maximum(out, 1e-300))[:, None]
        return np.sum(W[at] * (logW[at] - log_out), axis=2)

    active = np.arange(n)
    for _ in range(iterations):
        if active.size == 0:
            break
        div = divergences(active)
        going = div.max(axis=1) - np.sum(p[active] * div, axis=1) > tol
        active, div = active[going], div[going]
        q = p[active] * np.exp(div - div.max(axis=1, keepdims=True))
        p[active] = q / q.sum(axis=1, keepdims=True)
    div = divergences(np.arange(n))
    return np.maximum(np.sum(p * div, axis=1), 0.0) / np.log(2)
