"""Exact label reachability: can a model of the level set give person i label l?

The models giving ``l`` (``s_l >= s_m`` for every m) form a convex cone, so
the question is whether ``min F`` over the cone is at most the level ``L``.
Most pairs are settled before (:mod:`._multinomial`): the baseline's labels,
the outer ellipsoid's refutations and the walk (:mod:`._multinomial_walk`).
The pairs they leave are solved here, one at a time, by projected Newton on
the cone: each step minimises the quadratic model of ``F`` over the cone, a
non-negative least squares problem in the person's ``K - 1`` free scores.

- **yes**: an iterate in the cone with ``F <= L`` (evaluated; the cone with a
  small lead ``shift``, so the witness wins strictly);
- **no**: at the converged iterate the model's multipliers ``mu >= 0`` give
  the tangent bound of :mod:`._multinomial_dual`, or else ``min_cone F >=
  min_theta F(theta) - mu . D z(theta)`` (weak duality), a smooth minimum
  certified by :func:`certified_minimum`; above ``L`` either proves the
  label out of reach.

Steps first use the minimiser's Hessian, shared by every pair (one product
per step); pairs that do not settle then take exact Newton steps with their
own Hessian.
"""

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from ._multinomial_dual import tangent_bound
from ._multinomial_geometry import cone_distance, margin_matrix
from ._multinomial_objective import certified_minimum

#: Steps with the shared Hessian, then with the exact one.
COMMON_STEPS = 40
EXACT_STEPS = 12
#: Pairs per batch.
BATCH = 32
#: Reachable, unreachable, open (numerically tied or stopped by a deadline).
YES, NO, OPEN = 1, 0, -1


class ConeProblem:
    """The level set's data every pair needs.

    Parameters
    ----------
    objective : MultinomialObjective
    theta_c : ndarray (p,)
        The certified minimiser.
    H_inv : ndarray (p, p)
        Inverse Hessian at ``theta_c``.
    level : float
    shift : float
        Lead of the witnesses' label over the others.
    outer : Ellipsoid or None
        Holds the level set: the tangent bound of :mod:`._multinomial_dual`
        is tried before the Lagrangian one.
    """

    def __init__(self, objective, theta_c, H_inv, level, shift, outer=None):
        self.objective, self.theta_c, self.H_inv = objective, theta_c, H_inv
        self.outer = outer
        self.level = level
        self.slack = 1e-11 * (1 + abs(level))
        self.shift = shift

    def project(self, theta, g, H_inv, row, label):
        """The minimiser over the cone of the model ``F + g . v + v' H v / 2``
        and the model's multipliers."""
        obj = self.objective
        k, q = obj.K - 1, obj.q
        u = theta - H_inv @ g
        QE = H_inv.reshape(-1, k, q) @ row
        G = (QE.reshape(k, q, k) * row[None, :, None]).sum(axis=1)
        G = 0.5 * (G + G.T)
        z_u = u.reshape(k, q) @ row
        _, _, z = cone_distance(z_u, G, obj.K, label, 2 * self.shift)
        solved = np.linalg.lstsq(G, z - z_u, rcond=None)[0]
        D = margin_matrix(obj.K, label)
        mu = np.maximum(np.linalg.solve(D.T, solved), 0.0)
        return u + QE @ solved, mu, D

    def leads(self, theta, row, label):
        z = theta.reshape(self.objective.K - 1, self.objective.q) @ row
        return margin_matrix(self.objective.K, label) @ z

    def certify_no(self, theta, mu, D, row, label, F=None, g=None):
        """Certified lower bound on ``min_cone F`` (over the set) from
        multipliers ``mu``: the tangent bound at ``theta`` (value ``F``,
        gradient ``g``) when it is above the level, else the Lagrangian one."""
        obj = self.objective
        if self.outer is not None and F is not None:
            full = np.zeros((1, obj.K))
            full[0, [m for m in range(obj.K) if m != label]] = mu
            bound = tangent_bound(
                obj,
                self.outer,
                row[None],
                np.array([label]),
                theta[:, None],
                np.array([F]),
                g[:, None],
                full,
            )[0]
            if bound > self.level + self.slack:
                return bound
        c = np.kron(D.T @ mu, row)
        _, lower, _ = certified_minimum(obj, theta, c, max_iter=8)
        return lower


def settle_pairs(problem, rows, people, labels, *, deadline, n_jobs=None):
    """Status, witnesses and lower bounds of ``min_cone F`` of the pairs
    ``(people[j], labels[j])``; ``rows`` are the people's augmented rows.

    Returns
    -------
    status : ndarray (m,) of YES / NO / OPEN
    witness : ndarray (p, m)
        A model of the set giving the label (``nan`` unless YES).
    bracket : ndarray (m, 2)
        Certified ``(lower, upper)`` of ``min F`` over the cone
        (``upper = inf`` when no model of the cone was evaluated).
    """
    m = len(people)
    chunks = [slice(s, s + BATCH) for s in range(0, m, BATCH)]

    def batch(s):
        return _batch(problem, rows[people[s]], labels[s], deadline)

    with threadpool_limits(1):
        parts = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(batch)(s) for s in chunks
        )
    if not parts:
        p = problem.objective.dim
        return np.empty(0, int), np.empty((p, 0)), np.empty((0, 2))
    status = np.concatenate([p[0] for p in parts])
    witness = np.concatenate([p[1] for p in parts], axis=1)
    bracket = np.concatenate([p[2] for p in parts])
    return status, witness, bracket


def _batch(problem, rows, labels, deadline):
    obj = problem.objective
    B, p = len(labels), obj.dim
    status = np.full(B, OPEN)
    witness = np.full((p, B), np.nan)
    bracket = np.tile([-np.inf, np.inf], (B, 1))
    theta = np.repeat(problem.theta_c[:, None], B, axis=1)
    inside = np.zeros(B, dtype=bool)  # iterate in the cone
    mus = [None] * B
    active = np.arange(B)
    for step in range(COMMON_STEPS + EXACT_STEPS):
        if active.size == 0 or deadline.expired():
            break
        exact = step >= COMMON_STEPS
        F, g = obj.derivatives(theta[:, active])
        done = np.zeros(active.size, dtype=bool)
        for j, b in enumerate(active):
            row, lab = rows[b], labels[b]
            if inside[b]:
                bracket[b, 1] = min(bracket[b, 1], F[j])
                if F[j] <= problem.level - problem.slack:
                    if np.all(problem.leads(theta[:, b], row, lab) >= problem.shift):
                        status[b], witness[:, b], done[j] = YES, theta[:, b], True
                        continue
            H_inv = problem.H_inv if not exact else _inverse(obj, theta[:, b])
            target, mu, D = problem.project(theta[:, b], g[:, j], H_inv, row, lab)
            mus[b] = (mu, D)
            point = theta[:, b].copy()  # where F[j] and g[:, j] were taken
            if inside[b]:
                theta[:, b], moved = _descend(obj, theta[:, b], target, F[j])
            else:
                theta[:, b], moved, inside[b] = target, np.inf, True
            converged = moved <= 1e-9 * (1 + np.linalg.norm(theta[:, b]))
            if converged or step in (COMMON_STEPS - 1, COMMON_STEPS + EXACT_STEPS - 1):
                if F[j] > problem.level + problem.slack or not inside[b]:
                    lower = problem.certify_no(point, mu, D, row, lab, F[j], g[:, j])
                    bracket[b, 0] = max(bracket[b, 0], lower)
                    if lower > problem.level + problem.slack:
                        status[b], done[j] = NO, True
                if converged and not done[j] and step >= COMMON_STEPS:
                    done[j] = True  # tied with the level: left open
        active = active[~done]
    return status, witness, bracket


def _descend(obj, theta, target, F0):
    """``theta + s (target - theta)`` with the largest ``s`` in 1, 1/2, ...
    not increasing ``F`` (both ends in the cone, so the point stays in it);
    the point and how far it moved."""
    step = target - theta
    s = 1.0
    for _ in range(30):
        trial = theta + s * step
        with np.errstate(over="ignore", invalid="ignore"):
            if obj.value(trial[:, None])[0] <= F0:
                return trial, s * np.linalg.norm(step)
        s /= 2
    return theta, 0.0


def _inverse(obj, theta):
    H = obj.hessian(theta)
    try:
        return np.linalg.inv(H)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(H)
