"""Labels reached by walking into the level set, many pairs at once.

The models giving person ``i`` label ``l`` (``s_l - s_m >= shift`` for every
rival ``m``) form a convex cone, and ``l`` is reachable when ``min F`` over
the cone is at most the level ``L``. The walk minimises ``F`` over the cone
by projected Newton steps with one shared metric, the Hessian ``H`` of ``F``
at the minimiser: each step minimises ``g . v + v' H v / 2`` over the cone,
a non-negative quadratic problem in the person's ``K - 1`` multipliers
(``M = D G D'``, ``G`` the covariance of the person's scores under
``H^-1``), solved for every pair at once by coordinate descent and polished
on its support. The first step jumps to the projection of the minimiser; the
next move along the segment to the next projection (both ends in the cone),
halving the step until ``F`` does not increase. No Hessian is formed per
pair: a step costs one evaluation of ``F`` with its gradient (in double
precision) and one product with ``H^-1``.

Every model the walk evaluates inside the set (``F <= L - slack``) settles
*yes* for every (person, label) it gives with a lead of at least ``shift``,
not only the pair it was walking for. At every new point the tangent bound
of :mod:`._label_cone`, with the projection's multipliers, tries to
settle *no*; it is tight where the walk converges.
"""

import threading

import numpy as np

from ._label_cone import directions, tangent_bound
from ._objective import full_scores, level_slack, row_grams
from ._score_ellipsoids import full_covariance

#: Projected Newton steps per pair.
MAX_STEPS = 30
#: Sweeps of the coordinate descent of one projection.
SWEEPS = 25
#: Floats of one (rows x labels x pairs) block of scores.
BLOCK_FLOATS = 6_000_000


class Harvest:
    """The witnesses of the label reach: models of the set and, per
    (person, label), the model giving it (``-1``: none yet).

    Parameters
    ----------
    objective : MultinomialObjective
    rows : ndarray (n_people, q)
        The people's augmented rows.
    shift : float
        Lead of a witness' label over every other.
    """

    def __init__(self, objective, rows, shift):
        self.objective, self.rows, self.shift = objective, rows, shift
        self.index = np.full((rows.shape[0], objective.K), -1)
        self.models = []
        self._evaluated = []  # per model: harvested on every person
        self.n_models = 0
        self._joined = None
        self._lock = threading.Lock()
        # The people are the training rows: one product gives F and labels.
        self._training = rows.shape == objective.X.shape and np.array_equal(
            rows, objective.X
        )

    @property
    def reached(self):
        return self.index >= 0

    def add(self, thetas, limit, values=None, scores=None):
        """Record the models ``thetas`` (p, B) inside the set (``F <=
        limit``): every (person, label) they give with a lead of at least
        ``shift``. ``values``: their ``F`` in double precision (else
        evaluated here); ``scores``: the training rows' scores there (n, K -
        1, B), used when the people are the training rows."""
        if thetas.shape[1] == 0:
            return
        obj = self.objective
        if values is None and self._training:
            values, scores = obj.value_and_scores(thetas)
        elif values is None:
            values = obj.value(thetas)
        z = scores if self._training and scores is not None else None
        keep = values <= limit
        if not keep.any():
            return
        if z is None:
            z = obj.scores(self.rows, thetas)
        people, labels, which = _new_pairs(z, self.index < 0, self.shift, keep)
        with self._lock:
            new = self.index[people, labels] < 0
            people, labels, which = people[new], labels[new], which[new]
            # The first model giving each new pair.
            order = np.lexsort((which, labels, people))
            people, labels, which = people[order], labels[order], which[order]
            first = np.ones(people.size, dtype=bool)
            first[1:] = (people[1:] != people[:-1]) | (labels[1:] != labels[:-1])
            # Only the models giving some new pair are kept.
            used = np.unique(which[first])
            where = self.n_models + np.searchsorted(used, which[first])
            self.index[people[first], labels[first]] = where
            self._store(thetas[:, used], evaluated=True)

    def record(self, people, labels, thetas):
        """Record models certified inside the set by another argument (the
        inner ellipsoid), each the witness of its own pair ``(people[j],
        labels[j])`` only: they are not evaluated on the other people."""
        if len(people) == 0:
            return
        with self._lock:
            self.index[people, labels] = self.n_models + np.arange(len(people))
            self._store(thetas, evaluated=False)

    def _store(self, thetas, evaluated):
        self.models.append(thetas)
        self._evaluated.append(np.full(thetas.shape[1], evaluated))
        self.n_models += thetas.shape[1]
        self._joined = None

    def all_models(self):
        """Every recorded model (p, n_models), in the order of ``index``."""
        with self._lock:
            if self._joined is None or self._joined.shape[1] != self.n_models:
                self._joined = np.hstack(
                    self.models or [np.empty((self.objective.dim, 0))]
                )
                self.models = [self._joined]
            return self._joined

    def sample(self, count):
        """At most ``count`` of the models, evenly spread (p, m); the models
        walked to the set's boundary first, then the recorded ones."""
        models = self.all_models()
        with self._lock:
            evaluated = np.concatenate(self._evaluated or [np.zeros(0, dtype=bool)])
        picked = []
        for pool in (np.flatnonzero(evaluated), np.flatnonzero(~evaluated)):
            room = count - sum(len(p) for p in picked)
            if room <= 0 or pool.size == 0:
                continue
            if pool.size > room:
                pool = pool[np.linspace(0, pool.size - 1, room).astype(int)]
            picked.append(pool)
        return models[:, np.sort(np.concatenate(picked))] if picked else models

    def model(self, person, label):
        """The witness of a reached pair (p,)."""
        k = self.index[person, label]
        if k < 0:
            raise KeyError((person, label))
        return self.all_models()[:, k]


def _new_pairs(z, open_pairs, shift, models):
    """The open pairs some of the ``models`` give.

    Parameters
    ----------
    z : ndarray (n, K - 1, B)
        The people's free scores at the models (class 0 scores 0).
    open_pairs : ndarray (n, K) of bool
    shift : float
        Lead over every other label a model must give.
    models : ndarray (B,) of bool
        The models that may give pairs.

    Returns
    -------
    people, labels, which : ndarray (m,)
        Each pair given, once per model giving it (``which``).

    The top score of every person and model is one pass per label; a
    label is then compared with it only for the people who have it open,
    and the lead over the second score is checked only where it is on top.
    """
    n, k, B = z.shape
    best = np.zeros((n, B))  # class 0 scores 0
    for j in range(k):
        np.maximum(best, z[:, j, :], out=best)
    found = ([], [], [])
    for label in range(k + 1):
        people = np.flatnonzero(open_pairs[:, label])
        if people.size == 0:
            continue
        own = z[people, label - 1, :] if label else np.zeros((people.size, B))
        rows, which = np.nonzero((own >= best[people]) & models[None, :])
        if rows.size == 0:
            continue
        who = people[rows]
        full = np.concatenate(
            [np.zeros((who.size, 1)), z[who, :, which]], axis=1
        )  # (m, K)
        full[:, label] = -np.inf
        ahead = own[rows, which] - full.max(axis=1) >= shift
        found[0].append(who[ahead])
        found[1].append(np.full(int(ahead.sum()), label))
        found[2].append(which[ahead])
    if not found[0]:
        return tuple(np.zeros(0, dtype=int) for _ in range(3))
    return tuple(np.concatenate(part) for part in found)


class LabelWalk:
    """Projected Newton walks to the labels of the level set ``{F <= L}``.

    Parameters
    ----------
    objective, theta_c, H_inv, level
        The level set, as :class:`~._label_cone.ConeProblem` takes it.
    shift : float
        Lead of a witness' label over every other; projections aim at twice
        it.
    outer : Ellipsoid
        Holds the level set (for the certificates of *no*).
    """

    def __init__(self, objective, theta_c, H_inv, level, shift, outer):
        self.objective, self.theta_c, self.H_inv = objective, theta_c, H_inv
        self.level, self.shift, self.outer = level, shift, outer
        self.limit = level - level_slack(level)
        F, g, _ = objective.derivatives(theta_c[:, None])
        self.value_c, self.grad_c = float(F[0]), g[:, 0]

    def run(self, rows, people, labels, harvest, deadline, max_steps=MAX_STEPS):
        """Walk the pairs ``(people[j], labels[j])`` (rows: the people's).

        Reached pairs (of any person) are recorded in ``harvest``.

        Returns
        -------
        refuted : ndarray (J,) of bool
            Pairs certified out of reach (:mod:`._label_cone`).
        """
        obj = self.objective
        J, K = len(people), obj.K
        G = full_covariance(row_grams(obj, rows[people], self.H_inv))
        width = max(8, int(BLOCK_FLOATS // (obj.X.shape[0] * K)))
        refuted = np.zeros(J, dtype=bool)
        for start in range(0, J, width):
            if deadline.expired():
                break
            part = slice(start, start + width)
            refuted[part] = self._walk(
                rows[people[part]],
                labels[part],
                G[part],
                people[part],
                harvest,
                deadline,
                max_steps,
            )
        return refuted

    def _walk(self, rows, labels, G, people, harvest, deadline, max_steps):
        obj = self.objective
        B = len(labels)
        theta = np.repeat(self.theta_c[:, None], B, axis=1)
        F = np.full(B, self.value_c)
        g = np.repeat(self.grad_c[:, None], B, axis=1)
        towards = np.zeros_like(theta)
        length = np.ones(B)  # of the step along ``towards``
        inside = np.zeros(B, dtype=bool)
        fresh = np.ones(B, dtype=bool)  # a new point: project from it
        refuted = np.zeros(B, dtype=bool)
        active = np.flatnonzero(~harvest.reached[people, labels])
        for _ in range(max_steps):
            if active.size == 0 or deadline.expired():
                break
            new = active[fresh[active]]
            if new.size:
                u = theta[:, new] - self.H_inv @ g[:, new]
                target, mu = self._project(u, rows[new], labels[new], G[new])
                out = self._refuted(
                    rows[new], labels[new], theta[:, new], F[new], g[:, new], mu
                )
                refuted[new[out]] = True
                towards[:, new] = target - theta[:, new]
                active = active[~refuted[active]]
            trial = theta[:, active] + length[active] * towards[:, active]
            evaluation = obj.evaluate(trial)
            harvest.add(trial, self.limit, evaluation.value, evaluation.scores)
            still = np.flatnonzero(~harvest.reached[people[active], labels[active]])
            # Settled pairs need no gradient.
            grad = evaluation.gradient(still)
            value = evaluation.value[still]
            active, trial = active[still], trial[:, still]
            del evaluation
            take = ~inside[active] | (value <= F[active])
            idx = active[take]
            theta[:, idx], F[idx], g[:, idx] = (
                trial[:, take],
                value[take],
                grad[:, take],
            )
            moved = length[active] * np.linalg.norm(towards[:, active], axis=0)
            inside[idx] = True
            fresh[active] = take
            length[idx] = np.minimum(2 * length[idx], 1.0)
            length[active[~take]] /= 2
            scale = 1 + np.linalg.norm(theta[:, active], axis=0)
            active = active[moved > 1e-10 * scale]
        return refuted

    def _refuted(self, rows, labels, theta, value, g, mu):
        """Pairs the tangent bound at ``theta`` certifies out of reach."""
        obj, level = self.objective, self.level + level_slack(self.level)
        return tangent_bound(obj, self.outer, rows, labels, theta, value, g, mu) > level

    def _project(self, u, rows, labels, G):
        """The minimiser of ``|theta - u|_H`` over each pair's cone, and its
        multipliers (J, K)."""
        obj = self.objective
        K = obj.K
        J = len(labels)
        z_u = full_scores(np.einsum("jkq,jq->jk", _blocks(u, obj), rows))
        j = np.arange(J)
        # Leads of l over every m and their covariance M = D G D'.
        lead = z_u[j, labels][:, None] - z_u - 2 * self.shift
        Gl = G[j, labels]  # (J, K)
        M = G[j, labels, labels][:, None, None] - Gl[:, :, None] - Gl[:, None, :] + G
        rival = np.ones((J, K), dtype=bool)
        rival[j, labels] = False
        mu = np.zeros((J, K))
        diag = np.maximum(np.einsum("jkk->jk", M), 1e-300)
        for _ in range(SWEEPS):
            for m in range(K):
                grad = np.einsum("jk,jk->j", M[:, m], mu) + lead[:, m]
                mu[:, m] = np.where(
                    rival[:, m], np.maximum(mu[:, m] - grad / diag[:, m], 0.0), 0.0
                )
        mu = _polish(M, lead, mu, rival)
        return u + self.H_inv @ directions(obj, rows, labels, mu), mu


def _blocks(theta, obj):
    """``theta`` (p, J) as (J, K - 1, q)."""
    return theta.T.reshape(theta.shape[1], obj.K - 1, obj.q)


def _polish(M, lead, mu, rival):
    """The exact solution of ``min mu' M mu / 2 + lead . mu`` (``mu >= 0``,
    rivals only) on the support of ``mu``, where it satisfies the optimality
    conditions better than ``mu``."""
    K = mu.shape[1]
    support = (mu > 0) & rival
    eye = np.eye(K, dtype=bool)[None]
    keep = support[:, :, None] & support[:, None, :]
    A = np.where(keep, M, np.where(eye, 1.0, 0.0))
    rhs = np.where(support, -lead, 0.0)
    try:
        exact = np.linalg.solve(A, rhs[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        return mu
    exact = np.where(support, exact, 0.0)

    def violation(m):
        grad = np.einsum("jkl,jl->jk", M, m) + lead
        bad = np.where(m > 0, np.abs(grad), np.maximum(-grad, 0.0))
        return np.where(rival, bad, 0.0).max(axis=1) + np.where(m < 0, -m, 0).max(1)

    better = np.isfinite(exact).all(axis=1) & (violation(exact) < violation(mu))
    return np.where(better[:, None], np.maximum(exact, 0.0), mu)
