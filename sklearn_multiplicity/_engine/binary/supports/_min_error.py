"""The minimum error of a sparse class, support by support.

The class is the union of its supports' classes (see :mod:`._supports`), so
its fewest errors are the least over the supports; a support whose
unavoidable errors reach a known model's holds no better one.
"""

import numpy as np

from ...._core import Status, verify
from ...._mip import _formulations


def fewest_errors(enc, split, solve, deadline, incumbent):
    """The minimum error of the sparse class: the least over its supports.

    Parameters
    ----------
    enc : Encoding
        The whole class's encoding (models are verified on it).
    split : SupportSplit
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult`.
    deadline : Deadline
    incumbent : float
        Errors of a known model of the class: a support whose unavoidable
        errors reach it holds no better model and gets no MIP.

    Returns
    -------
    models : list of CanonicalModel
        The verified models the supports' MIPs found.
    lower : float
        Certified lower bound on the minimum error (``-inf`` unless every
        support was searched).
    """
    models, lower, best = [], np.inf, incumbent
    for support in split.supports:
        if support.unavoidable >= best:
            lower = min(lower, support.unavoidable)
            continue
        if deadline.expired():
            return models, -np.inf
        result = solve(_formulations.min_error(support.enc))
        bound = support.unavoidable
        if result.has_solution:
            w, b, _ = support.enc.decode(result.x)
            model = verify(enc, support.lift(w, enc.p), b, source="support min_error")
            models.append(model)
            best = min(best, model.errors)
        if result.status == Status.INFEASIBLE:  # pragma: no cover - a constant fits
            bound = np.inf
        elif result.status != Status.ERROR and np.isfinite(result.bound):
            bound = max(bound, result.bound)
        lower = min(lower, bound)
    return models, lower
