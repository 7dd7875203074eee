"""Discrepancy: the most predictions one model of the level set flips.

:class:`DiscrepancyCertifier` maximises disagreement with the baseline at one
budget (overall or within a group), and along a path of budgets. Discrepancy
is non-decreasing in the budget, so every result bounds the others: a
verified model within a budget is a lower bound at every larger one, a bound
proven at a budget an upper bound at every smaller one.

This module holds the certifier and its answer at one budget (the search
for models, the LP proofs and the disagreement MIP of each request); its
bounds from what is already known are in :mod:`._discrepancy_envelope`, its
paths in :mod:`._discrepancy_paths`, and the record of one request and its
MIP in :mod:`._discrepancy_requests`.
"""

import logging
from functools import partial

import numpy as np

from ...._core import TOLERANCE, Bounds, LevelSet, Status, verify
from ...timing._plans import BRACKETING, Schedule, plan_of
from ...timing._scheduling import Deadline
from ..search._descent import Descent, applies
from ..search._dive import dive
from ..search._heuristics import disagreement_models, lp_models, moved_models
from ..search._offset_models import offset_ascent_models, offset_disagreement_models
from ..search._offsets import offset_classes
from ..supports._disagreement import most_disagreement
from ..supports._split import CountedSolves
from ._envelope import DiscrepancyEnvelope
from ._paths import DiscrepancyPaths
from ._requests import (
    DiscrepancyRequest,
    DiscrepancyResult,
    cache_key,
    disagreement_mip,
)

logger = logging.getLogger("sklearn_multiplicity")

#: How many descents of the best model in a row may fail before it stops.
DESCENT_TRIES = 3


class DiscrepancyCertifier(DiscrepancyEnvelope, DiscrepancyPaths):
    """Discrepancy requests, envelopes and paths over an :class:`AuditState`.

    Parameters
    ----------
    state : AuditState
        Its ``discrepancies`` hold every result by ``(budget, key)``, where
        ``key`` is ``"all"`` or a group; patterns it proves unflippable keep
        their label in the disagreement MIPs.
    solvers : Solvers
    ambiguity : AmbiguityCertifier
        Its cheap steps (threshold shifts, LP bounds) run before each MIP.
    bracket_spacing, bracket_seconds
        The bracketing pass of time-limited paths (see :meth:`path`).
    """

    def __init__(
        self,
        state,
        solvers,
        ambiguity,
        *,
        bracket_spacing=BRACKETING["spacing"],
        bracket_seconds=BRACKETING["seconds"],
    ):
        self.state = state
        self.solvers = solvers
        self.ambiguity = ambiguity
        self.bracket_spacing = bracket_spacing
        self.bracket_seconds = bracket_seconds

    # -- one budget ------------------------------------------------------------
    def discrepancy(self, budget, *, weights=None, key="all", deadline=None):
        """Bounds on the largest weighted share flipped within ``budget``.

        Before the MIP, the cheap steps of ambiguity (threshold shifts and LP
        bounds) run: every pattern they prove unflippable at ``budget`` keeps
        its baseline label in the MIP, and the best pooled model is its hint.
        The MIP gets only the identity rows its LP relaxation needs, and that
        LP's value bounds the discrepancy too. A bound proven at a larger
        budget (same ``key``) bounds it from the start, and certifies it
        without a MIP when a pooled model reaches it.

        Returns
        -------
        DiscrepancyResult
        """
        deadline = deadline or Deadline(None)
        request = self.request(budget, weights=weights, key=key, deadline=deadline)
        if request.answer is not None:
            return request.answer
        result = None
        if request.mip is not None:
            result = self.solvers.solve(request.mip, deadline)
        return self.settle(request, result)

    def request(
        self,
        budget,
        *,
        weights=None,
        key="all",
        deadline=None,
        plan="discrepancy",
        near=None,
    ):
        """Everything :meth:`discrepancy` does before solving its MIP, by the
        steps of ``plan``.

        A path's plan (``"discrepancy in a path"``) leaves out the searches
        and the LP dive: a path prepares its requests on the main thread
        while its MIPs run, where they would take a core from them at every
        budget, and its MIPs start from the best model of the budgets below.
        For the same reason a path passes ``near``, the identity rows of the
        budget it prepared last: the LP's separation starts from them.

        Returns
        -------
        DiscrepancyRequest
            With ``answer`` set when no MIP is needed, else its ``mip``
            (``None`` when time is up).
        """
        state = self.state
        deadline = deadline or Deadline(None)
        weights = state.problem.pattern_weight if weights is None else weights
        request = DiscrepancyRequest(budget, key, weights, float(weights.sum()))
        request.cached = state.discrepancies.get(cache_key(budget, key))
        if request.cached is not None and request.cached.bounds.certified:
            request.answer = request.cached
            return request
        if request.total <= 0:
            request.answer = DiscrepancyResult(Bounds(0.0, 0.0), None)
            return request
        request.best, request.lower = state.best_within(budget, weights)
        request.upper = self.known_upper([budget], weights, key)[0]
        if request.lower >= request.upper - TOLERANCE:
            # Certified by what is known (a pooled model meets a relation).
            request.answer = self.settle(request, None)
            return request
        plan = self.schedule(deadline, plan)
        if "support" in plan and self._by_support(request, plan.step("support")):
            return request
        if not deadline.expired():
            self._search(request, plan)
            if "screen" in plan:
                self.ambiguity.screen(budget, plan.step("screen"))
        request.best, request.lower = state.best_within(budget, weights)
        request.upper = self.known_upper([budget], weights, key)[0]
        if request.upper < request.lower - TOLERANCE:
            # A verified model refutes a bound claimed at a larger budget.
            request.upper = request.total
        elif request.best is not None and request.lower >= request.upper - TOLERANCE:
            # Certified by monotonicity: no MIP needed.
            request.answer = self.settle(request, None)
            return request
        if not deadline.expired():
            fixed = ~state.maybe_flippable(budget)  # proven unflippable
            mip = disagreement_mip(state, budget, weights, fixed, request.best, key)
            request.mip, request.relaxation = self.solvers.small(
                mip, deadline=deadline, near=near
            )
            self._learn_from_lp(
                request, mip, plan.step("dive") if "dive" in plan else None
            )
            relaxed = request.relaxation
            if (
                relaxed is not None
                and request.best is not None
                and request.lower >= relaxed.bound - TOLERANCE
            ):
                # A model of the LP's value: certified without the MIP.
                request.answer = self.settle(request, None)
        return request

    def schedule(self, deadline, plan="discrepancy"):
        """The steps of one request by ``plan``, without those that do not
        apply."""
        holds = set()
        if self.solvers.support_split is not None:
            holds.add("support split")
        if offset_classes(self.state.enc) is not None:
            holds.add("rate gap")
        return Schedule(plan_of(plan, self.state.enc), deadline, holds)

    def _search(self, request, plan):
        """Pool models of more disagreement within the request's budget, by
        the plan's steps before the MIP: searches, offsets, moves and the
        descent (those of them in ``plan``)."""
        state, budget, weights = self.state, request.budget, request.weights
        techniques = []
        if "search" in plan:
            searching = plan.step("search")
            directions = self.ambiguity.search(budget, pulled=True, deadline=searching)
            techniques += [
                partial(
                    disagreement_models,
                    state.enc,
                    directions,
                    deadline=searching,
                    tried=self.ambiguity.tried,
                ),
                partial(
                    offset_disagreement_models,
                    state.enc,
                    directions,
                    deadline=searching,
                ),
            ]
        if "offsets" in plan:
            techniques.append(
                self._from_best(
                    offset_ascent_models, budget, weights, plan.step("offsets")
                )
            )
        if "moves" in plan:
            techniques.append(
                self._from_best(
                    moved_models,
                    budget,
                    weights,
                    plan.step("moves"),
                    tried=self.ambiguity.tried,
                )
            )
        for technique in techniques:
            for model in technique(state.baseline, weights, budget):
                state.add_model(model)
        if "descent" in plan:
            self.descend(budget, weights, plan.step("descent"))

    def _from_best(self, technique, budget, weights, deadline, **options):
        """``technique`` started, when called, from the pooled model of most
        disagreement within ``budget``."""

        def run(baseline, weights, budget):
            start, _ = self.state.best_within(budget, weights)
            return technique(
                self.state.enc,
                start,
                baseline,
                weights,
                budget,
                deadline=deadline,
                **options,
            )

        return run

    def _by_support(self, request, deadline):
        """Answer ``request`` support by support if the class splits and
        time allows (see :func:`~._support_disagreement.most_disagreement`)."""
        split = self.solvers.support_split
        if split is None or deadline.expired():
            return False
        solve = CountedSolves(self.solvers, deadline)
        upper = most_disagreement(
            self.state, split, request.budget, request.weights, solve, deadline
        )
        finished = bool(np.isfinite(upper))
        best, lower = self.state.best_within(request.budget, request.weights)
        solve.note(
            self.state,
            f"supports[{len(split.supports)}, {request.key}, "
            f"budget {request.budget:g}]",
            finished,
            lower,
            upper,
            "most disagreement",
        )
        if not finished:
            return False
        request.best, request.lower, request.upper = best, lower, upper
        request.answer = self.settle(request, None)
        return True

    def descend(self, budget, weights, deadline):
        """Descend from the pooled model of most disagreement within ``budget``
        (:meth:`~._descent.Descent.disagree`) until ``deadline`` or
        :data:`DESCENT_TRIES` descents in a row bring nothing."""
        state = self.state
        if not applies(state.enc):
            return
        descent = Descent(state.enc, deadline=deadline)
        failures = 0
        while failures < DESCENT_TRIES and not deadline.expired():
            start, _ = state.best_within(budget, weights)
            if start is None:
                return
            model = state.add_model(
                descent.disagree(start, state.baseline, weights, budget)
            )
            failures = 0 if model is not None else failures + 1

    def _learn_from_lp(self, request, mip, deadline):
        """Pool the models of the disagreement LP (its own, its labelling
        rounded and realised, and those of an LP dive from it within
        ``deadline``, none if it is None) and hand the MIP the best model so
        far."""
        relaxation = request.relaxation
        if relaxation is None or relaxation.x is None:
            return
        state = self.state
        if deadline is None:
            found = lp_models(state.enc, relaxation.x, request.budget)
        else:
            found = dive(
                self.solvers.separator(),
                mip,
                relaxation,
                request.budget,
                priority=request.weights + TOLERANCE * state.problem.pattern_weight,
                deadline=deadline,
            )
        for model in found:
            state.add_model(model)
        best, lower = state.best_within(request.budget, request.weights)
        if lower > request.lower:
            request.best, request.lower = best, lower
            request.mip.hint = state.enc.hint_from((best.w, best.b))

    def settle(self, request, result):
        """Learn from the MIP's ``result`` (``None``: not solved); cache bounds."""
        state = self.state
        best, lower, upper = request.best, request.lower, request.upper
        if result is not None:
            mip = request.mip
            entry = state.record(mip, result)
            if result.has_solution:
                w, b, _ = state.enc.decode(result.x)
                found = state.add_model(verify(state.enc, w, b, source=mip.name))
                if found is not None and LevelSet.within(found.errors, request.budget):
                    value = state.disagreement(found, request.weights)
                    if value > lower:
                        best, lower = found, value
            claimed = result.bound if result.status != Status.ERROR else np.inf
            if result.status == Status.INFEASIBLE:
                claimed = 0.0  # no model of the class within the budget
            if request.relaxation is not None:  # the LP bounds it too
                claimed = min(claimed, request.relaxation.bound)
            if best is not None and claimed < lower - TOLERANCE:
                # A verified model within the budget refutes the claim.
                logger.warning(
                    "%s: the solver's bound %s is refuted by a verified model "
                    "with disagreement %s; bound discarded",
                    mip.name,
                    claimed,
                    lower,
                )
                entry.refute("bound refuted by a verified model")
            elif np.isfinite(claimed):
                upper = min(upper, claimed)
        elif request.relaxation is not None:  # no MIP: the LP still bounds it
            if request.relaxation.bound >= lower - TOLERANCE:
                upper = min(upper, request.relaxation.bound)
        upper = max(upper, lower)
        total, cached = request.total, request.cached
        if cached is not None:
            lower = max(lower, cached.bounds.lower * total)
            upper = min(upper, cached.bounds.upper * total)
        out = DiscrepancyResult(
            Bounds(float(lower / total), float(upper / total)), best
        )
        state.discrepancies[cache_key(request.budget, request.key)] = out
        return out

    def refresh(self, request):
        """Hand a prepared request the models pooled since it was prepared.

        Returns False when results learnt since certify its budget.
        """
        budget = request.budget
        if request.key == "all" and self.envelope([budget])[0].certified:
            return False
        best, lower = self.state.best_within(budget, request.weights)
        if lower > request.lower:
            request.best, request.lower = best, lower
            request.mip.hint = self.state.enc.hint_from((best.w, best.b))
        return True
