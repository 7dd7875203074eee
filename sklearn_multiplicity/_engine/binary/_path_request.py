"""A path of tolerances: both measures at every tolerance up to a largest one.

A path is one question with its own account (:mod:`._accounts`), keyed by
its largest budget, ``step`` and ``n_discrepancy``: asked again, it reads what
it certified, and everything it learns serves every tolerance's audit.
"""

import numpy as np

from ..._core import ClassBudget
from .._records import PathStep
from ._audit import per_class_path


def path_request(session, max_eps, step, n_discrepancy, limit, per_mip, progress):
    """Both measures along the tolerances up to ``max_eps``, within what the
    path's account has left of ``limit`` seconds.

    Parameters
    ----------
    session : AuditSession
    max_eps : float or PerClassEpsilon
        The largest tolerance.
    step : float or None
        Spacing of the tolerances (non-integral weights, or per class).
    n_discrepancy : int or None
        Tolerances with a discrepancy MIP (``None``: all).
    limit, per_mip : float or None
        Seconds of the path, and of one MIP.
    progress : callable or None
        ``progress(total, desc, unit)``: the ``update(remaining)`` of a
        progress bar, or None.

    Returns
    -------
    list of PathStep
    """
    top = session.level_set.budget(max_eps)
    per_class = isinstance(top, ClassBudget)

    def work(deadline):
        if per_class:
            return per_class_steps(session, max_eps, step, deadline)
        return scalar_steps(session, max_eps, step, n_discrepancy, deadline, progress)

    return session.accounts.spend(
        ("path", top, step, n_discrepancy),
        limit,
        per_mip,
        work,
        settled=lambda: False,  # a second run would repeat this one
    )


def scalar_steps(session, max_eps, step, n_discrepancy, deadline, progress=None):
    """The path of one overall tolerance: flip MIPs once at the largest
    budget (which answers ambiguity at every budget), then discrepancy per
    budget, or at ``n_discrepancy`` evenly spaced ones."""
    progress = progress or (lambda total, desc, unit="pattern": None)
    discrepancy = session.discrepancy
    epsilons, extras, budgets = session.level_set.grid(max_eps, step)
    n_open = session.n_undetermined(budgets[-1], exact=True)
    session.certify_ambiguity(
        budgets[-1],
        deadline,
        exact=True,
        progress=progress(n_open, "ambiguity path"),
    )
    if n_discrepancy is not None and n_discrepancy < budgets.size:
        spaced = np.linspace(0, budgets.size - 1, max(2, n_discrepancy))
        for i in np.unique(np.round(spaced)).astype(int):
            discrepancy.discrepancy(budgets[i], deadline=deadline)
    else:
        n_open = discrepancy.open_budgets(budgets).size
        bar = progress(n_open, "discrepancy path", "tolerance")
        discrepancy.path(budgets, deadline=deadline, progress=bar)
    ambiguity, disc = session.path_bounds(budgets, discrepancy.envelope(budgets))
    return [
        PathStep(eps, eps, extra, budget, amb, dis)
        for eps, extra, budget, amb, dis in zip(
            epsilons, extras, budgets, ambiguity, disc, strict=True
        )
    ]


def per_class_steps(session, max_eps, step, deadline):
    """The path of equal steps on both rates, each capped at its own maximum
    (:func:`~._audit.per_class_path`)."""
    steps = max_eps.steps(step)
    budgets = [session.level_set.budget(eps) for _, eps in steps]
    ambiguity, discrepancy = per_class_path(session, budgets, deadline)
    return [
        PathStep(common, eps, None, budget, amb, disc)
        for (common, eps), budget, amb, disc in zip(
            steps, budgets, ambiguity, discrepancy, strict=True
        )
    ]
