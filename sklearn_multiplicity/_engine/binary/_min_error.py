"""The certified minimum error of a hypothesis class, with a warm start."""

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..._core import (
    LevelSet,
    Status,
    constant_models,
    in_class,
    logistic_model,
    verify,
)
from ..._mip import IdentitySeparator, MIPResult, _formulations
from ..._mip._infeasible import error_lower_bound
from ..timing._plans import PLANS, Schedule
from ._state import in_class_or_repaired
from .search._descent import Descent, applies
from .search._heuristics import best_thresholds
from .supports._min_error import fewest_errors

#: The error when no model of the class meets the constraints.
NO_MODEL = (
    "No model of the hypothesis class meets these constraints; relax them "
    "(a larger max_gap or k, fewer fixed signs)."
)

#: Slack of the check that a solver's bound does not exceed a verified model.
BOUND_SLACK = 1e-6
#: How many descents from the best warm start may fail in a row.
DESCENT_TRIES = 3


@dataclass
class MinErrorResult:
    """The fewest errors of a class: a verified model and a certified bound.

    Attributes
    ----------
    model : CanonicalModel
        A verified model of the class (the solver's, or the warm start).
    lower_bound : float
        Certified lower bound on the fewest errors of the class.
    status : Status
        ``OPTIMAL`` when ``model.errors`` equals ``lower_bound``, else
        ``FEASIBLE``.
    gap : float
        ``(model.errors - lower_bound) / model.errors`` (0 when optimal).
    warm_start : CanonicalModel
        The starting model handed to the solver.
    candidates : list of CanonicalModel
        Every warm-start candidate (the constant models, a logistic
        regression scaled into the class, and the best of those improved by
        descents when they found fewer errors), the best of which is
        ``warm_start``.
    mip : MIP
    result : MIPResult
        The raw solver result.
    """

    model: object
    lower_bound: float
    status: Status
    gap: float
    warm_start: object
    candidates: list
    mip: object
    result: object

    @property
    def solve_time(self):
        return self.result.solve_time

    @property
    def solver_status(self):
        return Status(self.result.status)


def _unheard(lower, upper):
    """The progress of a minimisation nobody follows."""


def _descended(enc, model, deadline):
    """``model`` improved by descents (:meth:`~._descent.Descent.fewest_errors`)
    until ``deadline`` or :data:`DESCENT_TRIES` fail in a row."""
    descent = Descent(enc, deadline=deadline)
    failures = 0
    while failures < DESCENT_TRIES and not deadline.expired():
        better = descent.fewest_errors(model)
        if better is None:
            failures += 1
        else:
            model, failures = better, 0
    return model


def _by_support(enc, split, backend, deadline, warm, candidates, mip):
    """The :class:`MinErrorResult` of a sparse class solved support by
    support (:func:`~._support_min_error.fewest_errors`), or None if time ran out."""
    start = time.perf_counter()

    def solve(small):
        backend.time_limit = deadline.limit()
        return backend.solve(small)

    found, lower = fewest_errors(enc, split, solve, deadline, warm.errors)
    found = [m for m in (in_class_or_repaired(enc, m) for m in found) if m is not None]
    candidates.extend(found)
    model = min([warm, *found], key=lambda m: m.errors)
    if not np.isfinite(lower):
        return None
    status = Status.OPTIMAL if LevelSet.within(model.errors, lower) else Status.FEASIBLE
    result = MIPResult(
        status=status,
        x=None,
        objective=model.errors,
        bound=lower,
        solve_time=time.perf_counter() - start,
        solver=backend.name,
        message=f"solved support by support ({len(split.supports)} supports)",
    )
    return MinErrorResult(
        model=model,
        lower_bound=float(lower),
        status=status,
        gap=(model.errors - lower) / model.errors if model.errors > 0 else 0.0,
        warm_start=warm,
        candidates=candidates,
        mip=mip,
        result=result,
    )


def solve_min_error(
    enc,
    backend,
    deadline,
    *,
    separator=None,
    split=None,
    progress=None,
):
    """Certified minimum error over the class of ``enc``, with a warm start.

    The MIP gets only the affine-identity rows its LP relaxation needs
    (``separator``, an :class:`~.._mip.IdentitySeparator` of ``enc``, built
    here when not given), and the time left of ``deadline`` once the warm
    start is found. Before it, a share of the time looks for sets of
    patterns whose majority labels no model realises
    (:mod:`.._mip._infeasible`): their hitting-set bound is a lower bound of
    its own. A sparse class that splits by support (``split``, a
    :class:`~._supports.SupportSplit`) is solved support by support instead,
    the joint MIP only if time runs out first.

    ``progress(lower, upper)``, when given, hears the band as it narrows:
    after each step, and from the solver while the MIP runs (its incumbent,
    not yet verified, as the upper end).

    Returns
    -------
    MinErrorResult
    """
    candidates = constant_models(enc)
    fit = enc.logistic
    logistic = None if fit is None else logistic_model(enc, fit=fit)
    candidates.append(logistic)
    if logistic is None and fit is not None and not enc.hypothesis.integer:
        # A pattern too close to its hyperplane for the class's margin: the
        # max-margin model of the same labelling, or else the best threshold
        # of its direction that keeps the margin.
        source = "logistic regression (max margin)"
        repaired = in_class_or_repaired(enc, verify(enc, *fit, source=source))
        if repaired is None:
            found = best_thresholds(enc, [fit[0]], source="logistic threshold")
            repaired = in_class_or_repaired(enc, found[0]) if found else None
        candidates.append(repaired)
    # Only models of the (constrained) class may start the search.
    candidates = [m for m in candidates if m is not None and in_class(enc, m)]
    if not candidates:
        raise ValueError(NO_MODEL)
    warm = min(candidates, key=lambda m: m.errors)
    progress = progress or _unheard
    progress(enc.problem.unavoidable_errors, warm.errors)
    descends = applies(enc) and not enc.constraints
    holds = {
        condition
        for condition, held in (
            ("descents", descends),
            ("support split", split is not None),
            ("real weights", not enc.hypothesis.integer),
        )
        if held
    }
    plan = Schedule(PLANS["minimum error"], deadline, holds)
    # Not under constraints: on COMPAS with race selection rates within 5
    # points the descended warm start left the MIP at [2064, 2091] errors
    # after 300 s; without it the MIP proved 2082 in 80.6 s.
    if descends:
        descended = _descended(enc, warm, plan.step("descent"))
        if descended is not warm:
            candidates.append(descended)
            warm = descended
            progress(np.nan, warm.errors)
    mip = _formulations.min_error(enc, hint=enc.hint_from((warm.w, warm.b)))
    if split is not None:
        by_support = _by_support(
            enc, split, backend, plan.step("support"), warm, candidates, mip
        )
        if by_support is not None:
            progress(by_support.lower_bound, by_support.model.errors)
            return by_support
        # Out of time: the joint MIP starts from the best support's model.
        warm = min(candidates, key=lambda m: m.errors)
        mip = _formulations.min_error(enc, hint=enc.hint_from((warm.w, warm.b)))
    if enc.n_identities:
        separator = separator or IdentitySeparator(enc, time_limit=deadline.limit())
        mip = separator.restrict(mip, separator.base_rows)
    subsets_bound = -np.inf
    if not enc.hypothesis.integer:
        # As MIP rows the sets slowed HiGHS's search for good models on
        # German credit (152 errors in 30 s against 136): only the bound.
        subsets = plan.step("subsets")
        subsets_bound, _, _ = error_lower_bound(enc, time_limit=subsets.limit())
        if enc.problem.weights_are_integral:
            subsets_bound = np.ceil(subsets_bound - BOUND_SLACK)
        progress(subsets_bound, np.nan)
    backend.time_limit = plan.step("mip").limit()
    backend.observer = lambda primal, dual: progress(dual, primal)
    try:
        result = backend.solve(mip)
    finally:
        backend.observer = None

    model = warm
    if result.has_solution:
        w, b, _ = enc.decode(result.x)
        found = in_class_or_repaired(enc, verify(enc, w, b, source=mip.name))
        if found is not None and found.errors <= warm.errors:
            model = found
    claimed = result.bound if np.isfinite(result.bound) else -np.inf
    if claimed > model.errors + BOUND_SLACK:
        # A verified model of the class beats the solver's "proof": the solver
        # is wrong, so its bound certifies nothing.
        warnings.warn(
            f"The {backend.name} solver claimed no model has fewer than "
            f"{claimed:g} errors, but a verified model has {model.errors:g}; "
            "its bound is discarded.",
            RuntimeWarning,
            stacklevel=4,
        )
        claimed = -np.inf
    if subsets_bound > model.errors + BOUND_SLACK:  # pragma: no cover - a proof
        raise AssertionError(
            f"infeasible subsets bound {subsets_bound:g} errors, but a verified "
            f"model has {model.errors:g}"
        )
    lower = max(enc.problem.unavoidable_errors, claimed, subsets_bound)
    if result.status not in (Status.OPTIMAL, Status.FEASIBLE, Status.NO_SOLUTION):
        warnings.warn(
            f"The {backend.name} solver did not solve {mip.name} ({result.status}: "
            f"{result.message}); returning the warm start ({warm.source}).",
            RuntimeWarning,
            stacklevel=4,
        )
    progress(lower, model.errors)
    optimal = bool(LevelSet.within(model.errors, lower))
    gap = (model.errors - lower) / model.errors if model.errors > 0 else 0.0
    return MinErrorResult(
        model=model,
        lower_bound=float(lower),
        status=Status.OPTIMAL if optimal else Status.FEASIBLE,
        gap=float(gap),
        warm_start=warm,
        candidates=candidates,
        mip=mip,
        result=result,
    )
