"""Coefficient ranges: the least and largest value of each canonical weight
over a level set.

Per weight, two MIPs (minimise, maximise the weight within the budget). A
verified model of the level set bounds each end from the inside, the
solver's (and the LP relaxation's) bound from the outside, and the weight
box bounds both when nothing else is known, so the reported intervals hold
whatever the limits stop.
"""

from dataclasses import dataclass

import numpy as np

from .._core import TOLERANCE, Bounds, Status, admits, verify
from .._mip import _formulations


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
    """

    feature: int
    least: Bounds
    largest: Bounds
    least_model: object
    largest_model: object

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


def coefficient_ranges(state, solvers, budget, deadline, unflippable=None):
    """The :class:`CoefficientRange` of every canonical weight at ``budget``.

    ``unflippable`` (a mask of patterns proven unflippable within
    ``budget``) fixes those patterns to the baseline's label in every MIP:
    every model of the level set predicts them so.
    """
    if unflippable is None:
        unflippable = np.zeros(state.problem.n_patterns, dtype=bool)
    enc = state.enc
    w_lo, w_hi, _, _ = enc.weight_bounds()
    ranges = []
    for j in range(enc.p):
        ends = []
        for maximize in (False, True):
            # Each MIP gets an equal share of the time left, so that one
            # hard end does not starve the others.
            n_left = 2 * (enc.p - j) - int(maximize)
            share = deadline.share(1.0 / n_left)
            ends.append(_end(state, solvers, budget, share, j, maximize, unflippable))
        (least, low_model), (largest, high_model) = ends
        least = Bounds(max(least.lower, w_lo[j]), least.upper)
        largest = Bounds(largest.lower, min(largest.upper, w_hi[j]))
        ranges.append(CoefficientRange(j, least, largest, low_model, high_model))
    return ranges


def _end(state, solvers, budget, deadline, j, maximize, unflippable):
    """Bounds (as ``lower <= value <= upper``) on one end of weight ``j``."""
    enc = state.enc
    sign = 1.0 if maximize else -1.0
    best = max(state.pool.within(budget), key=lambda m: sign * m.w[j], default=None)
    w_lo, w_hi, _, _ = enc.weight_bounds()
    outer = w_hi[j] if maximize else w_lo[j]
    # A pooled model at the edge of the weight box attains this end already.
    attained = best is not None and abs(best.w[j] - outer) <= TOLERANCE
    if not attained and not deadline.expired():
        hint = None if best is None else enc.hint_from((best.w, best.b))
        mip = _formulations.coefficient(enc, j, budget, maximize=maximize, hint=hint)
        fixed = np.flatnonzero(unflippable)
        mip = _formulations.fix_labels(enc, mip, fixed, state.baseline[fixed])
        mip, relaxation = solvers.small(mip, deadline=deadline)
        result = solvers.solve(mip, deadline)
        entry = state.record(mip, result)
        if result.has_solution:
            w, b, _ = enc.decode(result.x)
            found = state.add_model(verify(enc, w, b, source=mip.name))
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
