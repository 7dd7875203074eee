"""The cone of a (person, label) pair: can a model of the level set give
person i label l?

The models giving ``l`` (``s_l >= s_m`` for every m) form a convex cone, so
the question is whether ``min F`` over the cone is at most the level ``L``.
Most pairs are settled before (:mod:`._label_reach`): the baseline's labels,
the outer ellipsoid's refutations and the walk (:mod:`._label_walk`).
The pairs they leave are solved here, one at a time, by projected Newton on
the cone: each step minimises the quadratic model of ``F`` over the cone, a
non-negative least squares problem in the person's ``K - 1`` free scores.

- **yes**: an iterate in the cone with ``F <= L`` (evaluated; the cone with a
  small lead ``shift``, so the witness wins strictly);
- **no**: at the converged iterate the model's multipliers ``mu >= 0`` give
  the tangent bound below, or else ``min_cone F >=
  min_theta F(theta) - mu . D z(theta)`` (weak duality), a smooth minimum
  certified by :func:`certified_minimum`; above ``L`` either proves the
  label out of reach.

Steps first use the minimiser's Hessian, shared by every pair (one product
per step); pairs that do not settle then take exact Newton steps with their
own Hessian.

**The tangent bound** (certified *no*, also used by the walk). ``F`` is
convex, so at any point ``b`` (inside the set or not) with value ``F_b`` and
gradient ``g``, ``F(theta) >= F_b + g . (theta - b)`` for every
``theta``. Write ``g = E' D' mu + r`` with multipliers ``mu >= 0`` of the
rivals of label ``l`` (``E' D' mu . theta = mu . lead(theta)``, the leads
``s_l - s_m`` of the person's scores). Every model of the cone giving ``l``
has ``mu . lead(theta) >= 0``, and every model of the set lies in the outer
ellipsoid ``{(theta - c)' Q (theta - c) <= rho^2}``, so on both

    F(theta) >= F_b - mu . lead(b) + r . (c - b) - rho ||r||_{Q^-1}.

When that exceeds the level ``L`` the label is out of reach. At the minimiser
of ``F`` over the cone ``g`` lies in the cone's normal directions (``r = 0``)
and the bound is ``min_cone F`` itself, so the walk's points, which approach
it, settle every label whose minimum is above the level.
"""

import numpy as np
from scipy.optimize import nnls

from ._objective import certified_minimum, full_scores, level_slack
from ._threads import in_threads

#: Steps with the shared Hessian, then with the exact one.
COMMON_STEPS = 40
EXACT_STEPS = 12
#: Pairs per batch.
BATCH = 32
#: Relative margin of every certified comparison with a radius.
RADIUS_SLACK = 1e-9
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
        Holds the level set: the tangent bound (:func:`tangent_bound`) is
        tried before the Lagrangian one.
    """

    def __init__(self, objective, theta_c, H_inv, level, shift, outer=None):
        self.objective, self.theta_c, self.H_inv = objective, theta_c, H_inv
        self.outer = outer
        self.level = level
        self.slack = level_slack(level)
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

    def batch(s):
        return _batch(problem, rows[people[s]], labels[s], deadline)

    parts = in_threads(batch, len(people), BATCH, n_jobs)
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
        F, g, _ = obj.derivatives(theta[:, active])
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


def leads(objective, rows, theta, labels):
    """Leads ``s_l - s_m`` (J, K) of each pair's label at its model
    ``theta[:, j]`` (``0`` at ``m = l``)."""
    V = theta.T.reshape(theta.shape[1], objective.K - 1, objective.q)
    s = full_scores(np.einsum("jkq,jq->jk", V, rows))
    j = np.arange(len(labels))
    return s[j, labels][:, None] - s


def directions(objective, rows, labels, mu):
    """``E' D' mu`` (p, J): the gradient of ``mu . lead(theta)``."""
    w = -mu.copy()
    w[np.arange(len(labels)), labels] = mu.sum(axis=1)
    return (w[:, 1:, None] * rows[:, None, :]).reshape(len(labels), objective.dim).T


def tangent_bound(objective, outer, rows, labels, theta, F, g, mu):
    """Certified lower bounds (J,) on ``F`` over the models of the outer
    ellipsoid ``outer`` giving each pair's label (module docstring), from
    the points ``theta`` (p, J), their values ``F`` and gradients ``g`` (in
    double precision) and multipliers ``mu`` (J, K)."""
    mu = np.maximum(mu, 0.0)
    r = g - directions(objective, rows, labels, mu)
    lead = leads(objective, rows, theta, labels)
    Qr = outer.Q_inv @ r
    norm = np.sqrt(np.maximum(np.einsum("pj,pj->j", r, Qr), 0.0))
    shift = np.einsum("pj,pj->j", r, outer.center[:, None] - theta)
    linear = np.einsum("jk,jk->j", mu, lead)
    bound = F - linear + shift - np.sqrt(outer.radius2) * norm
    # Rounding of the terms (each computed in double precision).
    size = np.abs(F) + np.abs(linear) + np.abs(shift) + np.sqrt(outer.radius2) * norm
    return bound - 1e-10 * (1.0 + size)


def margin_matrix(K, label):
    """``D`` (K-1, K-1) with ``D z = (s_label - s_m)`` over ``m != label``."""
    full = np.zeros((K - 1, K))
    others = [m for m in range(K) if m != label]
    for r, m in enumerate(others):
        full[r, label] += 1.0
        full[r, m] -= 1.0
    return full[:, 1:]


def cone_distance(z_c, G, K, label, shift=0.0):
    """``min (z - z_c)' G^-1 (z - z_c)`` over the scores ``z`` where
    ``label`` leads every other class by at least ``shift``.

    Returns ``(value, lower, z)``: the value of the minimiser ``z`` (NNLS in
    the margins) and a certified lower bound on the minimum (its dual bound,
    up to rounding).
    """
    D = margin_matrix(K, label)
    D_inv = np.linalg.inv(D)
    scale = np.trace(G) / len(G) + 1e-300
    # A ridge can only enlarge the ellipsoid: lower distances stay certified.
    L = np.linalg.cholesky(G + 1e-12 * scale * np.eye(len(G)))
    A = np.linalg.solve(L, D_inv)
    b = np.linalg.solve(L, z_c - shift * D_inv.sum(axis=1))
    w, rnorm = nnls(A, b, maxiter=50 * len(b))
    y = b - A @ w
    dual = 2 * y @ b - y @ y if np.max(A.T @ y) <= 1e-12 * (1 + np.abs(b).max()) else 0
    lower = max(min(rnorm**2, dual), 0.0) * (1 - RADIUS_SLACK)
    return rnorm**2, lower, D_inv @ (w + shift)
