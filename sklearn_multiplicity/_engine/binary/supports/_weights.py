"""The range of one weight of a sparse class, support by support.

A weight's largest (or least) value within a budget is the most (least) over
the supports (see :mod:`._supports`): 0 on a support without it, when that
support holds a model within the budget, and its own MIP on the others.
"""

import numpy as np

from ...._core import TOLERANCE, ClassBudget, LevelSet, Status, admits, verify
from ...._mip import _formulations


def weight_end(state, split, budget, j, maximize, solve, deadline):
    """A certified bound on the largest (or least) weight ``j`` of a model
    within ``budget``, support by support.

    On a support without ``j`` the weight is 0, attained when the support
    holds a model within the budget; on the others, the weight's own MIP on
    the support's groups. Supports are skipped once a known model reaches
    what they could give.

    Returns
    -------
    float or None
        The bound on the end (models found are added to ``state``); None when
        time ran out or the budget is a :class:`ClassBudget`.
    """
    if isinstance(budget, ClassBudget):
        return None
    sign = 1.0 if maximize else -1.0
    w_lo, w_hi, _, _ = state.enc.weight_bounds()
    edge = sign * float(w_hi[j] if maximize else w_lo[j])

    # The best known end, kept up to date as models are found (the pool is
    # scanned once, not at every support).
    best = max((sign * m.w[j] for m in state.pool.within(budget)), default=-np.inf)
    outer = -np.inf  # bound on sign * w_j over the supports searched
    for support in split.supports:
        if not LevelSet.within(support.unavoidable, budget):
            continue
        inside = np.flatnonzero(support.columns == j)
        if best >= edge - TOLERANCE:
            return float(sign * edge)  # a known model reaches the box
        if not inside.size and best >= 0:
            outer = max(outer, 0.0)  # zero is known to be attained
            continue
        if deadline.expired():
            return None
        if inside.size:
            mip = _formulations.coefficient(
                support.enc, int(inside[0]), budget, maximize=maximize
            )
        else:
            mip = _formulations.min_error(support.enc)
        result = solve(mip)
        if result.has_solution:
            w, b, _ = support.enc.decode(result.x)
            full = support.lift(w, state.enc.p)
            model = state.add_model(verify(state.enc, full, b, source="support weight"))
            if model is not None and admits(model, budget):
                best = max(best, sign * model.w[j])
        if result.status == Status.INFEASIBLE:
            continue
        if not inside.size:
            # Zero is attained iff the support's fewest errors fit the budget.
            feasible = result.status == Status.ERROR or not np.isfinite(result.bound)
            if feasible or LevelSet.within(result.bound, budget):
                outer = max(outer, 0.0)
            continue
        claim = edge
        if result.status != Status.ERROR and np.isfinite(result.bound):
            claim = min(edge, sign * float(result.bound))
        outer = max(outer, claim)
    return float(sign * max(outer, best))
