"""Flips of a sparse class settled support by support.

A pattern is flippable within a budget iff some support's class flips it
within that budget, and its fewest errors with a flip are the least over the
supports (see :mod:`._supports`). :func:`certify_flips` searches every
support for the undecided patterns of an audit and raises their flip lower
bounds to that least.
"""

import numpy as np

from ...._core import ClassBudget, LevelSet, Status, verify
from ...._mip import _formulations


def certify_flips(state, split, budget, solve, deadline, *, exact=False):
    """Settle the undecided patterns of ``state`` at ``budget``, support by support.

    Every model found is added to ``state`` (its flips are witnessed). When
    every support has been searched, each undecided pattern's flip lower
    bound is raised to the least over the supports: the exact fewest errors
    where a support's flip MIP found it, else what that support proved.

    Parameters
    ----------
    state : AuditState
    split : SupportSplit
    budget : float
        Weighted error budget (a :class:`ClassBudget` is not split).
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult` within the request's time.
    deadline : Deadline
    exact : bool
        Also pin the fewest errors of flips within ``budget`` (paths).

    Returns
    -------
    bool
        Whether every support was searched (the lower bounds were raised).
    """
    if isinstance(budget, ClassBudget):
        return False
    todo = state.undetermined(budget, exact=exact)
    if todo.size == 0:
        return True
    flip_label = ~state.baseline[todo]
    lower = np.full(todo.size, np.inf)
    above = state.level_set.above(budget)
    for support in split.supports:
        groups = support.group_of[todo]
        bound = support.label_lower(groups, flip_label)
        needed = LevelSet.within(bound, budget)
        for group, label in _pairs(groups[needed], flip_label[needed]):
            if deadline.expired():
                return False
            mine = needed & (groups == group) & (flip_label == label)
            known = state.flip_upper[todo[mine]]
            if np.all(bound[mine] >= known):
                continue  # no better flip here: the screen's bound stands
            if not exact and np.all(LevelSet.within(known, budget)):
                # Already witnessed: the pair's fewest errors are not needed
                # at this budget, but then its bound is unknown.
                bound[mine] = -np.inf
                continue
            result = solve(
                _formulations.flip(support.enc, group, int(label), budget=budget)
            )
            bound[mine] = _learn(state, support, result, above)
        lower = np.minimum(lower, bound)
    state.raise_flip_lower(todo, lower)
    return True


def _pairs(groups, labels):
    """The distinct ``(group, label)`` pairs, in order of first appearance."""
    seen = {}
    for group, label in zip(groups.tolist(), labels.tolist(), strict=True):
        seen.setdefault((group, label), None)
    return list(seen)


def _learn(state, support, result, above):
    """Add the model of a support's flip MIP; the bound it proves."""
    if result.has_solution:
        w, b, _ = support.enc.decode(result.x)
        full = support.lift(w, state.enc.p)
        state.add_model(verify(state.enc, full, b, source="support flip"))
    if result.status == Status.INFEASIBLE:
        return above
    if result.status != Status.ERROR and np.isfinite(result.bound):
        return result.bound
    return -np.inf
