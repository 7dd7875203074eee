"""Disagreement with the baseline of a sparse class, support by support.

The most disagreement within a budget is the most over the supports (see
:mod:`._supports`); on each support it is a step function of the budget,
walked down by the support's disagreement MIPs on its groups
(:func:`disagreement_frontier`). :func:`best_within_each` reads the pooled
models of most disagreement at each budget, the lower bounds the walk has
to beat.
"""

import numpy as np

from ...._core import TOLERANCE, ClassBudget, LevelSet, Status, verify
from ...._mip import _formulations


def most_disagreement(state, split, budget, weights, solve, deadline):
    """An upper bound on the most ``weights`` a model within ``budget`` flips
    (see :func:`disagreement_frontier`, at one budget).

    Returns
    -------
    float
        The bound (``inf`` unless every support was searched, or when the
        budget is a :class:`ClassBudget`).
    """
    if isinstance(budget, ClassBudget):
        return np.inf
    budgets = np.array([float(budget)])
    upper = disagreement_frontier(state, split, budgets, weights, solve, deadline)
    return np.inf if upper is None else float(upper[0])


def disagreement_frontier(state, split, budgets, weights, solve, deadline):
    """The most ``weights`` of disagreement at every one of ``budgets``,
    support by support.

    Each support's disagreement MIP runs on its groups, whose members may
    have different baseline labels: a group labelled positive disagrees
    with the weight of its members the baseline predicts negative, and the
    other way round. Supports are taken by the most they could flip.

    On each support the most disagreement is a step function of the budget.
    Its steps are walked down from the largest budget: the disagreement MIP
    at budget ``B`` finds a model of ``e <= B`` errors and the most
    disagreement ``d`` of the support at ``B``, which is then also the most
    at every budget from ``e`` to ``B``; the walk goes on at ``e - 1``. A
    support stops when it cannot beat the models known at the budgets left.

    Parameters
    ----------
    state : AuditState
    split : SupportSplit
    budgets : ndarray
        Weighted error budgets, ascending.
    weights : ndarray of shape (n_patterns,)
        Weight of disagreeing on each pattern.
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult`.
    deadline : Deadline

    Returns
    -------
    ndarray or None
        Certified upper bounds on the disagreement at each budget; models
        found are added to ``state``. None when time ran out.
    """
    _, lower = best_within_each(state, budgets, weights)
    upper = np.zeros(budgets.size)
    baseline = state.baseline
    options = []
    for support in split.supports:
        if not LevelSet.within(support.unavoidable, budgets[-1]):
            continue
        n = support.problem.n_patterns
        to_positive = np.bincount(support.group_of, weights * ~baseline, minlength=n)
        to_negative = np.bincount(support.group_of, weights * baseline, minlength=n)
        most = float(np.maximum(to_positive, to_negative).sum())
        options.append((most, support, to_positive, to_negative))
    options.sort(key=lambda option: -option[0])
    for most, support, to_positive, to_negative in options:
        has_model = LevelSet.within(support.unavoidable, budgets)
        kept = float(np.minimum(to_positive, to_negative).sum())
        bound, top = most, budgets.size - 1  # ``bound`` holds at budgets[: top + 1]
        while top >= 0 and has_model[top]:
            beaten = has_model[: top + 1] & (lower[: top + 1] < bound - TOLERANCE)
            if not beaten.any():
                break  # the models known are as good at every budget left
            top = int(np.flatnonzero(beaten)[-1])
            if deadline.expired():
                return None
            result = solve(
                _formulations.max_disagreement(
                    support.enc,
                    to_negative > to_positive,
                    budgets[top],
                    weights=np.abs(to_positive - to_negative),
                    name=f"max_disagreement[support {support.columns.tolist()}]",
                )
            )
            if result.status == Status.INFEASIBLE:
                break  # no model within this budget, nor within smaller ones
            if result.status != Status.ERROR and np.isfinite(result.bound):
                bound = min(bound, float(result.bound + kept))
            step = _learn_step(state, support, result, bound, budgets, weights, lower)
            if step is None:  # a limit stopped the MIP: its bound holds below too
                upper[: top + 1] = np.maximum(upper[: top + 1], bound)
                break
            # The model attains the bound from its own errors up to ``top``.
            reached = np.arange(budgets.size) <= top
            reached &= budgets >= step - TOLERANCE
            upper[reached] = np.maximum(upper[reached], bound)
            top = int(np.flatnonzero(reached)[0]) - 1
    return np.maximum(upper, lower)


def _learn_step(state, support, result, bound, budgets, weights, lower):
    """Add the model of a support's disagreement MIP; its errors if it
    attains ``bound`` (else None). ``lower`` is raised where it is within."""
    if not result.has_solution:
        return None
    w, b, _ = support.enc.decode(result.x)
    full = support.lift(w, state.enc.p)
    model = state.add_model(verify(state.enc, full, b, source="support disagreement"))
    if model is None:
        return None
    value = state.disagreement(model, weights)
    within = budgets >= model.errors - TOLERANCE
    lower[within] = np.maximum(lower[within], value)
    return model.errors if value >= bound - TOLERANCE else None


def best_within_each(state, budgets, weights):
    """The pooled model of most ``weights`` of disagreement within each budget.

    Returns
    -------
    models : list
        One model per budget (None where no pooled model is within it).
    values : ndarray
        Their disagreement (0 where there is none).
    """
    models = state.pool.models
    values = np.zeros(budgets.size)
    if not models:
        return [None] * budgets.size, values
    errors = np.array([m.errors for m in models])
    disagreement = np.array([state.disagreement(m, weights) for m in models])
    order = np.argsort(errors, kind="stable")
    running = np.maximum.accumulate(disagreement[order])
    # Position in ``order`` of the best model among the first i + 1.
    new_best = np.r_[True, disagreement[order][1:] > running[:-1]]
    where_best = np.maximum.accumulate(np.where(new_best, np.arange(order.size), 0))
    n_within = np.searchsorted(errors[order], budgets + TOLERANCE, side="right")
    some = n_within > 0
    values[some] = running[n_within[some] - 1]
    best = [models[order[where_best[n - 1]]] if n > 0 else None for n in n_within]
    return best, values
