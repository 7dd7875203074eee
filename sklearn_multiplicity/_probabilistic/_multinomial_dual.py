"""Certified *no*: a label no model of the level set gives a person.

``F`` is convex, so at any point ``b`` (inside the set or not) with value
``F_b`` and gradient ``g``, ``F(theta) >= F_b + g . (theta - b)`` for every
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

from ._multinomial_margins import full_scores


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
    J = len(labels)
    return (w[:, 1:, None] * rows[:, None, :]).reshape(J, -1).T


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
