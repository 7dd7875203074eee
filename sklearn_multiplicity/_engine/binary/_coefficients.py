"""Coefficient ranges: the least and largest value of each canonical weight
over a level set.

Per weight, two MIPs (minimise, maximise the weight within the budget), then
bisection probes (:mod:`._weight_probes`) on the ends they leave open. A
verified model of the level set bounds each end from the inside; the
solver's (and the LP relaxation's) bound, an infeasible probe and the weight
box bound it from the outside, so the reported intervals hold whatever the
limits stop.
"""

from dataclasses import dataclass

import numpy as np

from ..._core import TOLERANCE, Bounds, Status, admits, verify
from ..._mip import _formulations
from ..timing._plans import PLANS, Schedule
from ._weight_probes import PROBE_RESOLUTION, WeightEnd, known_reaches, probe_ends
from .supports._weights import weight_end


@dataclass
class CoefficientRange:
    """Certified ends of one canonical weight over a level set.

    Attributes
    ----------
    feature : int
        Index of the weight among the canonical (kept) columns.
    least, largest : Bounds
        Certified bounds on the least and on the largest value.
    least_model, largest_model : CanonicalModel or None
        Verified models of the level set at the inner ends of those bounds.

    Notes
    -----
    A weight is continuous, and a solver's model counts as one of the class
    within a tolerance of 1e-6 on its scores and weights; an end counts as
    certified when its certified bounds are at most
    :data:`WEIGHT_RESOLUTION` apart (the bounds themselves are reported as
    they are proven).
    """

    feature: int
    least: Bounds
    largest: Bounds
    least_model: object
    largest_model: object

    @property
    def certified(self):
        """Whether both ends are pinned to :data:`WEIGHT_RESOLUTION`."""
        return all(
            end.upper - end.lower <= WEIGHT_RESOLUTION
            for end in (self.least, self.largest)
        )

    @property
    def sign(self):
        """``"non-negative"``, ``"non-positive"``, ``"either"`` or ``"unknown"``."""
        if self.least.lower >= -TOLERANCE:
            return "non-negative"
        if self.largest.upper <= TOLERANCE:
            return "non-positive"
        if self.least.upper < -TOLERANCE and self.largest.lower > TOLERANCE:
            return "either"
        return "unknown"


#: Width of certified bounds within which a weight's end counts as
#: certified: where probes stop, ten times the tolerance of the class.
WEIGHT_RESOLUTION = PROBE_RESOLUTION


def coefficient_ranges(state, solvers, budget, deadline, unflippable=None):
    """The :class:`CoefficientRange` of every canonical weight at ``budget``.

    ``unflippable`` (a mask of patterns proven unflippable within
    ``budget``) fixes those patterns to the baseline's label in every MIP:
    every model of the level set predicts them so. Signs come first: where
    no known model of the level set gives a weight some sign, one
    :func:`~.._mip._formulations.sign_test` MIP looks for one and, when
    infeasible, proves the sign stable; then two MIPs per weight bound its
    ends, and probes narrow the ends those leave open.
    """
    enc = state.enc
    if unflippable is None:
        unflippable = np.zeros(state.problem.n_patterns, dtype=bool)
    fixed = np.flatnonzero(unflippable)
    w_lo, w_hi, _, _ = enc.weight_bounds()
    w_lo, w_hi = w_lo.astype(float), w_hi.astype(float)  # copies
    split = solvers.support_split
    # A sparse class's ends are exact support by support: no sign tests.
    tests = [] if split is not None else _open_signs(state, budget)
    plan = Schedule(
        PLANS["coefficient ranges"], deadline, {"sign tests"} if tests else ()
    )
    signs = plan.step("signs") if tests else None
    for i, (j, nonpositive) in enumerate(tests):
        if not _sign_attained(state, budget, j, nonpositive):
            share = signs.share(1.0 / (len(tests) - i))
            if _sign_test(state, solvers, budget, share, j, nonpositive, fixed):
                # No model within the budget has w_j <= 0 (or >= 0).
                if nonpositive:
                    w_lo[j] = max(w_lo[j], 0.0)
                else:
                    w_hi[j] = min(w_hi[j], 0.0)
    weight_mips = plan.step("weight mips")
    integer = bool(enc.hypothesis.integer)
    ends = []
    for j in range(enc.p):
        for maximize in (False, True):
            # Each MIP gets an equal share of the time left, so that one
            # hard end does not starve the others.
            n_left = 2 * (enc.p - j) - int(maximize)
            share = weight_mips.share(1.0 / n_left)
            bounds, model = _end(
                state, solvers, budget, share, j, maximize, fixed, (w_lo, w_hi)
            )
            ends.append(
                WeightEnd.from_bounds(
                    j, maximize, bounds, model, (w_lo[j], w_hi[j]), integer=integer
                )
            )
    probe_ends(state, solvers, budget, ends, fixed, plan.step("probes"))
    return [
        CoefficientRange(
            least.feature, least.bounds(), largest.bounds(), least.model, largest.model
        )
        for least, largest in zip(ends[::2], ends[1::2], strict=True)
    ]


def _sign_attained(state, budget, j, nonpositive):
    """Whether a known model within ``budget`` has ``w_j <= 0`` (or ``>= 0``)."""
    return known_reaches(state, budget, j, -1.0 if nonpositive else 1.0, 0.0)


def _open_signs(state, budget):
    """``(j, nonpositive)`` for every sign of a weight no known model of the
    level set attains."""
    return [
        (j, nonpositive)
        for j in range(state.enc.p)
        for nonpositive in (True, False)
        if not _sign_attained(state, budget, j, nonpositive)
    ]


def _sign_test(state, solvers, budget, deadline, j, nonpositive, fixed):
    """Whether no model within ``budget`` has ``w_j <= 0`` (``nonpositive``)
    or ``w_j >= 0``: proven by an infeasible sign-test MIP. A model it finds
    is pooled."""
    if deadline.expired():
        return False
    mip = _formulations.sign_test(state.enc, j, budget, nonpositive=nonpositive)
    result, entry, _, _ = _solve_and_pool(state, solvers, mip, fixed, deadline)
    if result.status != Status.INFEASIBLE:
        return False
    if _sign_attained(state, budget, j, nonpositive):
        entry.refute("infeasibility refuted by a verified model")
        return False
    return True


def _solve_and_pool(state, solvers, mip, fixed, deadline):
    """Solve ``mip`` with the patterns ``fixed`` at the baseline's label; log
    it and pool the model it finds.

    Returns
    -------
    result, entry, relaxation, found
        The solver's result, its log entry, the LP relaxation (or None) and
        the verified model pooled (or None).
    """
    enc = state.enc
    mip = _formulations.fix_labels(enc, mip, fixed, state.baseline[fixed])
    mip, relaxation = solvers.small(mip, deadline=deadline)
    result = solvers.solve(mip, deadline)
    entry = state.record(mip, result)
    found = None
    if result.has_solution:
        w, b, _ = enc.decode(result.x)
        found = state.add_model(verify(enc, w, b, source=mip.name))
    return result, entry, relaxation, found


def _end(state, solvers, budget, deadline, j, maximize, fixed, box):
    """Bounds (as ``lower <= value <= upper``) on one end of weight ``j``,
    within ``box`` (the weights' bounds, with the signs proven)."""
    enc = state.enc
    sign = 1.0 if maximize else -1.0
    best = max(state.pool.within(budget), key=lambda m: sign * m.w[j], default=None)
    w_lo, w_hi = box
    outer = w_hi[j] if maximize else w_lo[j]
    # A pooled model at the edge of the weight box attains this end already.
    attained = best is not None and abs(best.w[j] - outer) <= TOLERANCE
    if not attained and not deadline.expired() and solvers.support_split is not None:
        end = weight_end(
            state,
            solvers.support_split,
            budget,
            j,
            maximize,
            lambda mip: solvers.solve(mip, deadline),
            deadline,
        )
        if end is not None:
            best = max(
                state.pool.within(budget), key=lambda m: sign * m.w[j], default=None
            )
            outer = min(outer, end) if maximize else max(outer, end)
            attained = True  # settled support by support: no joint MIP
    if not attained and not deadline.expired():
        hint = None if best is None else enc.hint_from((best.w, best.b))
        mip = _formulations.coefficient(enc, j, budget, maximize=maximize, hint=hint)
        result, entry, relaxation, found = _solve_and_pool(
            state, solvers, mip, fixed, deadline
        )
        if found is not None and admits(found, budget):
            if best is None or sign * found.w[j] > sign * best.w[j]:
                best = found
        claims = []
        if result.status not in (Status.ERROR, Status.INFEASIBLE) and np.isfinite(
            result.bound
        ):
            claims.append(result.bound)
        if relaxation is not None and np.isfinite(relaxation.bound):
            claims.append(relaxation.bound)
        for claim in claims:
            if best is not None and sign * claim < sign * best.w[j] - TOLERANCE:
                entry.refute("bound refuted by a verified model")
                continue
            outer = min(outer, claim) if maximize else max(outer, claim)
    if best is None:
        return _unknown(outer, maximize), None
    inner = float(best.w[j])
    if maximize:
        return Bounds(inner, max(inner, float(outer))), best
    return Bounds(min(inner, float(outer)), inner), best


def _unknown(outer, maximize):
    """Bounds on an end when no model of the level set is known."""
    return Bounds(-np.inf, float(outer)) if maximize else Bounds(float(outer), np.inf)
