"""Lower bounds on errors from sets of patterns no model can label as given.

Label every pattern by its majority (``P_u >= N_u``, its positive and
negative weight). Any model's errors are ``sum min(P_u, N_u)`` plus
``c_u = |P_u - N_u|`` for each pattern it labels against its majority. If no
model of the hypothesis class realises the majority labelling of a set ``C``
of patterns, every model disagrees with it somewhere in ``C``: the error
patterns of any model *hit* every such ``C``. So the fewest errors are at
least ``sum min(P_u, N_u)`` plus the cheapest hitting set of the sets found,
and at least the value of its LP relaxation (a fractional packing of the
sets), which is what :func:`error_lower_bound` returns. Each set is also the
valid inequality "some pattern of ``C`` is labelled against its majority" (a
combinatorial Benders cut, Codato & Fischetti 2006); as rows of the
minimum-error MIP they slowed its search for good models, so only the bound
is used.

A set is found from a Farkas certificate. With rows ``m_u = s_u (x_u, 1)``
(``s_u = +-1`` the label), thresholds ``theta_u > 0`` (the class's margin)
and the weight box ``|v_j| <= h_j``, the system ``m_u . v >= theta_u`` has no
solution in the box iff some ``y >= 0`` has
``theta . y > sum_j h_j |(M^T y)_j|``. The LP that minimises the right-hand
side with ``theta . y = 1`` has vertex solutions supported on at most
``n_features + 2`` patterns: those are ``C``. Every certificate is checked
again in numpy, with a relative safety margin, before it is used; an LP
solver's tolerance can never make a realisable labelling look infeasible.
"""

import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

#: Relative slack by which a Farkas certificate must hold when re-checked.
CERTIFICATE_SLACK = 1e-6
#: Relative shading of the hitting-set LP value against the LP's tolerances.
SHADE = 1e-6


def majority_labels(problem):
    """The label of each pattern that costs fewer errors, and what the other
    costs more (``|P_u - N_u|``)."""
    positive, negative = problem.positive_weight, problem.negative_weight
    return positive >= negative, np.abs(positive - negative)


class FarkasSystem:
    """The rows ``s_u (x_u, 1) . v >= theta_u`` of one labelling of an encoding.

    Parameters
    ----------
    enc : Encoding
    labels : ndarray of bool, shape (n_train,)
        The labelling whose subsets are tested.
    """

    def __init__(self, enc, labels):
        X = enc.X[: enc.n_train]
        sign = np.where(labels, 1.0, -1.0)
        self.M = sign[:, None] * np.column_stack([X, np.ones(len(X))])
        t_pos, t_neg = enc.hypothesis.thresholds
        self.theta = np.where(labels, t_pos, -t_neg)
        w_lo, w_hi, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
        # The Farkas form below needs a box symmetric about 0.
        self.h = np.maximum(
            np.abs(np.concatenate([w_lo, [b_lo]])),
            np.abs(np.concatenate([w_hi, [b_hi]])),
        )
        self.usable = bool(np.all(self.theta > 0))

    def certificate(self, patterns, time_limit=None):
        """A subset of ``patterns`` with no model realising its labels, or None.

        Returns
        -------
        ndarray of int or None
            The support of a re-checked Farkas certificate.
        """
        if not self.usable or patterns.size == 0:
            return None
        M, theta = self.M[patterns], self.theta[patterns]
        k, q = M.shape
        Mt = sp.csr_matrix(M.T)
        eye = sp.identity(q, format="csr")
        A_ub = sp.vstack([sp.hstack([Mt, -eye]), sp.hstack([-Mt, -eye])], format="csr")
        options = {} if time_limit is None else {"time_limit": max(time_limit, 1e-3)}
        result = linprog(
            np.concatenate([np.zeros(k), self.h]),
            A_ub=A_ub,
            b_ub=np.zeros(2 * q),
            A_eq=np.concatenate([theta, np.zeros(q)])[None, :],
            b_eq=[1.0],
            bounds=(0, None),
            method="highs",
            options=options,
        )
        if result.status != 0 or result.fun >= 1.0:
            return None
        y = result.x[:k]
        keep = y > 1e-12 * y.max()
        if not self.holds(patterns[keep], y[keep]):
            return None
        return patterns[keep]

    def holds(self, patterns, y):
        """Whether ``y >= 0`` proves the labels of ``patterns`` unrealisable."""
        if np.any(y < 0):
            return False
        gain = self.theta[patterns] @ y
        cost = self.h @ np.abs(self.M[patterns].T @ y)
        return bool(gain - cost > CERTIFICATE_SLACK * gain)


def infeasible_subsets(enc, labels, candidates, *, time_limit=None, max_rounds=4):
    """Sets of ``candidates`` whose ``labels`` no model of the class realises.

    A greedy packing: find a set, set it aside, search the rest, until the
    rest is realisable. Later rounds start again from every candidate but
    one member of each set found, so that the sets overlap and the hitting
    set bound can exceed the number of disjoint sets.

    Returns
    -------
    list of ndarray of int
    """
    system = FarkasSystem(enc, labels)
    end = None if time_limit is None else time.perf_counter() + time_limit
    rng = np.random.default_rng(0)
    subsets = []
    candidates = np.asarray(candidates, dtype=np.int64)
    for _ in range(max_rounds):
        banned = {int(rng.choice(s)) for s in subsets}
        alive = candidates[~np.isin(candidates, list(banned))]
        found_any = False
        while alive.size:
            left = None if end is None else end - time.perf_counter()
            if left is not None and left <= 0:
                return subsets
            subset = system.certificate(alive, left)
            if subset is None:
                break
            subsets.append(subset)
            found_any = True
            alive = alive[~np.isin(alive, subset)]
        if not found_any:
            break
    return subsets


def hitting_bound(subsets, costs, time_limit=None):
    """A lower bound on the cheapest set of patterns meeting every subset.

    The LP relaxation ``min costs . e`` with ``sum_{u in C} e_u >= 1`` for
    each subset and ``0 <= e <= 1``, shaded by a relative 1e-6 towards 0.
    """
    if not subsets:
        return 0.0
    n = len(costs)
    rows = np.concatenate([np.full(s.size, i) for i, s in enumerate(subsets)])
    cols = np.concatenate(subsets)
    A = sp.csr_matrix((-np.ones(cols.size), (rows, cols)), shape=(len(subsets), n))
    options = {} if time_limit is None else {"time_limit": max(time_limit, 1e-3)}
    result = linprog(
        np.asarray(costs, float),
        A_ub=A,
        b_ub=-np.ones(len(subsets)),
        bounds=(0, 1),
        method="highs",
        options=options,
    )
    if result.status != 0:
        # A packing of disjoint subsets still bounds (each costs its cheapest).
        return 0.0
    return max(0.0, float(result.fun) * (1 - SHADE))


def error_lower_bound(enc, *, time_limit=None):
    """A certified lower bound on the errors of every model of the class.

    Returns
    -------
    bound : float
        ``sum min(P_u, N_u)`` plus :func:`hitting_bound` of the sets found.
    subsets : list of ndarray of int
        Sets of patterns whose majority labels no model realises.
    labels : ndarray of bool
        The majority labels.
    """
    labels, costs = majority_labels(enc.problem)
    start = time.perf_counter()
    subsets = infeasible_subsets(
        enc, labels, np.flatnonzero(costs > 0), time_limit=time_limit
    )
    left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    # The LP counts in the encoding's unit, as the MIPs do.
    packing = enc.unit * hitting_bound(subsets, costs / enc.unit, left)
    bound = enc.problem.unavoidable_errors + packing
    return bound, subsets, labels
