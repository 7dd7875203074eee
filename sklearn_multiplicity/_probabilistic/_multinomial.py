"""The multinomial level set of a fitted K-label logistic regression.

``{theta : F(theta) <= F(baseline) + eps}`` (see
:mod:`._multinomial_objective`) and, per person, which labels its models can
give (exactly: closed forms, the walk of :mod:`._multinomial_walk` and the
per-pair solver of :mod:`._multinomial_labels`), the viable range of each label's
probability (certified brackets) and the Rashomon capacity (a certified
bracket: Blahut-Arimoto over models of the set below, the sum of the
largest probabilities above).
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import softmax
from threadpoolctl import threadpool_limits

from ._multinomial_geometry import inner_ellipsoid, outer_ellipsoid
from ._multinomial_labels import NO
from ._multinomial_margins import MarginProblem, full_covariance, full_scores
from ._multinomial_objective import (
    minimum,
    multinomial_objective,
    score_ranges,
)
from ._multinomial_reach import reach_labels

#: Models of the harvest (at most) whose probabilities bracket the ranges.
RANGE_MODELS = 512


@dataclass
class ProbabilityRanges:
    """Certified brackets of each person's probability of each label over the
    level set: ``lower_out <= min p <= lower_in`` and ``upper_in <= max p <=
    upper_out`` (the ``_in`` ends are attained by models of the set)."""

    lower_out: np.ndarray
    lower_in: np.ndarray
    upper_in: np.ndarray
    upper_out: np.ndarray
    baseline: np.ndarray


class MultinomialLevelSet:
    """The level set of a fitted ``LogisticRegression`` on ``K >= 2`` labels.

    Parameters
    ----------
    estimator : LogisticRegression
        Fitted on ``(X, y)``, with an L2 penalty or none.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Attributes
    ----------
    objective : MultinomialObjective
    theta0 : ndarray (p,)
        The baseline in reference coordinates.
    center : ndarray (p,)
        The certified minimiser.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> lr = LogisticRegression(max_iter=1000).fit(X, y)
    >>> level_set = MultinomialLevelSet(lr, X, y)
    >>> reach = level_set.label_reach(X, eps=0.01)
    >>> bool(reach.ambiguity().lower <= reach.ambiguity().upper)
    True
    """

    def __init__(self, estimator, X, y, sample_weight=None):
        # The dense algebra (a few hundred columns) runs on one BLAS thread:
        # on a shared machine more threads mostly wait for each other.
        with threadpool_limits(1):
            self._fit(estimator, X, y, sample_weight)
        self._sets = {}

    def _fit(self, estimator, X, y, sample_weight):
        X = np.asarray(X, dtype=float)
        self.objective, self.theta0 = multinomial_objective(
            estimator, X, y, sample_weight
        )
        self.baseline_objective = float(self.objective.value(self.theta0[:, None])[0])
        self.center, self.min_lower, self.min_upper = minimum(
            self.objective, self.theta0
        )
        _, g = self.objective.derivatives(self.center[:, None])
        self.center_grad = g[:, 0]
        H = self.objective.hessian(self.center)
        self.H_inv = cho_solve(cho_factor(H, lower=True), np.eye(H.shape[0]))

    def level(self, eps):
        """The largest objective of the level set at ``eps``."""
        return self.baseline_objective + eps

    def outer(self, eps):
        """The ellipsoid holding the level set at ``eps`` (cached)."""
        if eps not in self._sets:
            # The quadratic models are exact at the minimiser (F = min_upper).
            delta = max(self.level(eps) - self.min_upper, 0.0)
            args = (self.objective, self.center, self.center_grad, delta)
            with threadpool_limits(1):
                outer, R = outer_ellipsoid(*args)
            self._sets[eps] = [outer, R, None]
        return self._sets[eps][0]

    def inner(self, eps):
        """An ellipsoid inside the level set at ``eps`` (cached)."""
        self.outer(eps)
        cached = self._sets[eps]
        if cached[2] is None:
            delta = max(self.level(eps) - self.min_upper, 0.0)
            args = (self.objective, self.center, self.center_grad, delta)
            with threadpool_limits(1):
                cached[2] = inner_ellipsoid(*args, cached[1])
        return cached[2]

    def baseline_scores(self, rows):
        z = self.objective.scores(rows, self.theta0[:, None])[:, :, 0]
        return full_scores(z)

    def label_reach(self, X, eps, *, deadline=None, n_jobs=None, progress=None):
        """Exact label reachability of the people ``X``.

        Stages (:mod:`._multinomial_reach`): the baseline's labels; the
        outer ellipsoid's certified *no* (:mod:`._multinomial_margins`); the
        inner ellipsoid's points, models of the set without evaluating
        ``F``; the walk (:mod:`._multinomial_walk`), whose models settle
        *yes* for every pair they give and whose tangent bounds settle *no*
        (:mod:`._multinomial_dual`); the exact per-pair solver
        (:mod:`._multinomial_labels`) on what is left.

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
        ProbabilityRanges
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
        return ProbabilityRanges(
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
