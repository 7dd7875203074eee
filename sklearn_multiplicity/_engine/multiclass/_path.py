"""A path of tolerances of a K-class audit: both measures at every tolerance
up to a largest one.

The flip MIPs run once, to optimality, within the largest budget: each
pattern's fewest errors of a model changing its label then answers ambiguity
at every tolerance. Discrepancy is one disagreement MIP per tolerance
(smallest first, each warm-started by every model found so far), or at
``n_discrepancy`` evenly spaced ones. Both measures grow with the tolerance,
so every band is also bounded by its neighbours'. A path is one question
with its own account (:mod:`._accounts`), as for two labels; everything it
learns serves every tolerance's audit.
"""

import numpy as np

from ..._core import Bounds
from ..._core._level_set import LevelSet
from .._records import PathStep
from ..timing._plans import PLANS, Schedule


def multiclass_path(session, max_eps, step, n_discrepancy, limit, per_mip=None):
    """Both measures of a :class:`MulticlassSession` at every tolerance up to
    ``max_eps``, within what the path's account has left of ``limit``
    seconds (``per_mip`` each).

    Parameters
    ----------
    session : MulticlassSession
    max_eps : float
        The largest tolerance.
    step : float or None
        Spacing of the tolerances when weights are not integral (default: a
        tenth of ``max_eps``); with integral weights every whole number of
        extra errors is a tolerance.
    n_discrepancy : int or None
        Tolerances with a disagreement MIP (``None``: all).
    limit, per_mip : float or None

    Returns
    -------
    list of PathStep
    """
    if isinstance(max_eps, tuple):
        return per_label_path(session, max_eps, step, limit, per_mip)
    certifier, problem = session.certifier, session.problem
    integral = problem.weights_are_integral
    level_set = LevelSet(
        certifier.baseline_errors,
        problem.total_weight,
        integral,
        unit=problem.weight_unit if integral else 1.0,
    )
    epsilons, extras, budgets = level_set.grid(max_eps, step)
    asked = np.arange(extras.size)
    if n_discrepancy is not None and n_discrepancy < extras.size:
        spaced = np.linspace(0, extras.size - 1, max(2, n_discrepancy))
        asked = np.unique(np.round(spaced)).astype(int)

    def work(deadline):
        plan = Schedule(PLANS["K-class path"], deadline)
        certifier.fewest_flip_errors(extras[-1], plan.step("ambiguity"))
        discrepancy_deadline = plan.step("discrepancy")
        for i in asked:
            certifier.discrepancy(extras[i], discrepancy_deadline)

    def steps():
        ambiguity, discrepancy = _bands(session, budgets)
        return [
            PathStep(float(eps), float(eps), float(extra), float(budget), amb, dis)
            for eps, extra, budget, amb, dis in zip(
                epsilons, extras, budgets, ambiguity, discrepancy, strict=True
            )
        ]

    key = ("path", float(budgets[-1]), step, n_discrepancy)
    return _spend(session, key, limit, per_mip, work, steps)


def per_label_path(session, max_eps, step, limit, per_mip=None):
    """Both measures along per-label tolerances growing in equal steps of
    ``step`` (default: a tenth of the largest), each capped at its own
    maximum (:meth:`PerClassEpsilon.steps`): the largest first, whose proofs
    hold at every step, then each step in turn. The level sets are nested,
    so the bands are made monotone as for one tolerance."""
    certifier = session.certifier
    steps = max_eps.steps(step)
    budgets = [session.budget(eps) for _, eps in steps]

    def audit(budget, deadline):
        extra = session.extra(budget)
        certifier.ambiguity(extra, deadline)
        certifier.discrepancy(extra, deadline)

    def work(deadline):
        plan = Schedule(PLANS["per-class path"], deadline)
        audit(budgets[-1], plan.step("largest"))
        for budget in budgets:
            audit(budget, plan.step("steps"))

    def path_steps():
        ambiguity, discrepancy = _bands(session, budgets)
        return [
            PathStep(float(common), eps, None, budget, amb, dis)
            for (common, eps), budget, amb, dis in zip(
                steps, budgets, ambiguity, discrepancy, strict=True
            )
        ]

    key = ("path", budgets[-1], step, None)
    return _spend(session, key, limit, per_mip, work, path_steps)


def _bands(session, budgets):
    """The monotone bands of both measures at ``budgets``, from what the
    session knows."""
    readings = [session.reading(budget) for budget in budgets]
    return (
        monotone([r.ambiguity for r in readings]),
        monotone([r.discrepancy for r in readings]),
    )


def _spend(session, key, limit, per_mip, work, path_steps):
    """Run ``work`` on the path's account ``key`` until every step of
    ``path_steps()`` is certified or the account is spent; the steps."""
    session.accounts.spend(
        key,
        limit,
        per_mip,
        work,
        settled=lambda: all(
            s.ambiguity.certified and s.discrepancy.certified for s in path_steps()
        ),
    )
    return path_steps()


def monotone(bands):
    """Bands of a measure that grows with the tolerance, each tightened by
    its neighbours: a lower bound holds at every larger tolerance, an upper
    bound at every smaller one."""
    lower = np.maximum.accumulate([band.lower for band in bands])
    upper = np.minimum.accumulate([band.upper for band in bands][::-1])[::-1]
    return [
        Bounds(float(lo), float(max(lo, up)))
        for lo, up in zip(lower, upper, strict=True)
    ]
