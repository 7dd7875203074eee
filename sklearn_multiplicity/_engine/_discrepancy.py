"""Discrepancy: the most predictions one model of the level set flips.

:class:`DiscrepancyCertifier` maximises disagreement with the baseline at one
budget (overall or within a group), and along a path of budgets. Discrepancy
is non-decreasing in the budget, so every result bounds the others: a
verified model within a budget is a lower bound at every larger one, a bound
proven at a budget an upper bound at every smaller one.
"""

import logging
import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._core import TOLERANCE, Bounds, LevelSet, Status, verify
from .._mip import _formulations
from ._descent import Descent, applies
from ._dive import dive
from ._heuristics import disagreement_models, lp_models, moved_models
from ._offsets import offset_ascent_models, offset_disagreement_models
from ._scheduling import Deadline, Job, on_cluster
from ._supports import (
    CountedSolves,
    best_within_each,
    disagreement_frontier,
    most_disagreement,
)

logger = logging.getLogger("sklearn_multiplicity")

#: Time-limited discrepancy paths first bracket every ``BRACKET_SPACING``-th
#: open budget with a disagreement MIP of at most ``BRACKET_SECONDS``, using
#: at most ``BRACKET_SHARE`` of the remaining time (see ``path``).
BRACKET_SPACING = 10
BRACKET_SECONDS = 5.0
BRACKET_SHARE = 0.2
#: Shares of a request's time left for the search for models and for the LP
#: proofs that fix labels in the disagreement MIP; the MIP gets the rest.
#: Without affine-identity rows those LPs prove little and the search and the
#: MIP's own bound matter more.
SEARCH_SHARE = 0.25
SCREEN_SHARE = 0.35
SEARCH_SHARE_WITHOUT_IDENTITIES = 0.4
SCREEN_SHARE_WITHOUT_IDENTITIES = 0.05
#: Share of a request's time for a sparse class's disagreement MIPs support by
#: support (exact when they all finish, see ``_supports``).
SUPPORT_SHARE = 0.5
#: Share of the time left after the search for moving the best model found
#: past one pattern at a time (see ``moved_models``). Without identity rows
#: the MIP finds little and the moves much (German credit: discrepancy found
#: from 5.4% to 17.0% in 116 moves, 30 s).
MOVE_SHARE = 0.1
MOVE_SHARE_WITHOUT_IDENTITIES = 0.3
#: Share of the time left after the search for the ascent over directions
#: under a rate gap whose groups columns tell apart (see ``_offsets``).
OFFSET_SHARE = 0.1
#: Share of the time left after the moves for the descent of the best model
#: (exact line searches towards more disagreement), and how many descents
#: in a row may fail before it stops.
DESCENT_SHARE = 0.1
DESCENT_TRIES = 3
#: Share of the time left before the disagreement MIP for an LP dive from
#: its relaxation (:mod:`._dive`), which often ends at the MIP's optimum.
DIVE_SHARE = 0.2


def disagreement_mip(state, budget, weights, unflippable, best=None, key="all"):
    """The MIP of most ``weights`` of disagreement with the baseline within
    ``budget``, the patterns ``unflippable`` (a mask) fixed to the baseline's
    label and ``best`` (a pooled model, or None) as its hint."""
    enc = state.enc
    hint = None if best is None else enc.hint_from((best.w, best.b))
    extended = np.zeros(enc.X.shape[0])
    extended[: state.problem.n_patterns] = weights
    mip = _formulations.max_disagreement(
        enc,
        state.extended_baseline(),
        budget,
        weights=extended,
        hint=hint,
        name=f"max_disagreement[{key}, budget {budget:g}]",
    )
    fixed = np.flatnonzero(unflippable)
    return _formulations.fix_labels(enc, mip, fixed, state.baseline[fixed])


@dataclass
class DiscrepancyResult:
    """Certified discrepancy bounds and the model that realises the lower one."""

    bounds: Bounds
    model: object  # CanonicalModel realising ``bounds.lower`` (or None)


@dataclass
class DiscrepancyRequest:
    """One discrepancy question, between preparing and settling its MIP."""

    budget: float
    key: str
    weights: np.ndarray
    total: float
    cached: DiscrepancyResult = None
    answer: DiscrepancyResult = None  # known without a MIP
    best: object = None  # best pooled model within the budget
    lower: float = 0.0
    upper: float = np.inf  # proven upper bound before the MIP
    mip: object = None
    relaxation: object = None


def _cache_key(budget, key):
    return (round(budget, 9), key)


class DiscrepancyCertifier:
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
    bracket_spacing, bracket_seconds, bracket_share
        The bracketing pass of time-limited paths (see :meth:`path`).
    """

    def __init__(
        self,
        state,
        solvers,
        ambiguity,
        *,
        bracket_spacing=BRACKET_SPACING,
        bracket_seconds=BRACKET_SECONDS,
        bracket_share=BRACKET_SHARE,
    ):
        self.state = state
        self.solvers = solvers
        self.ambiguity = ambiguity
        self.bracket_spacing = bracket_spacing
        self.bracket_seconds = bracket_seconds
        self.bracket_share = bracket_share

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

    def request(self, budget, *, weights=None, key="all", deadline=None, dive=True):
        """Everything :meth:`discrepancy` does before solving its MIP.

        ``dive=False`` skips the LP dive: a path prepares its requests on the
        main thread while its MIPs run, where a dive's LPs (0.3 to 0.7 s each
        on COMPAS) would take a core from them at every budget.

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
        request.cached = state.discrepancies.get(_cache_key(budget, key))
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
        if self._by_support(request, deadline.share(SUPPORT_SHARE)):
            return request
        if not deadline.expired():
            cuts = state.enc.n_identities > 0
            searching = deadline.share(
                SEARCH_SHARE if cuts else SEARCH_SHARE_WITHOUT_IDENTITIES
            )
            directions = self.ambiguity.search(budget, pulled=True, deadline=searching)
            for model in disagreement_models(
                state.enc,
                directions,
                state.baseline,
                weights,
                budget,
                deadline=searching,
                tried=self.ambiguity.tried,
            ):
                state.add_model(model)
            for model in offset_disagreement_models(
                state.enc,
                directions,
                state.baseline,
                weights,
                budget,
                deadline=searching,
            ):
                state.add_model(model)
            start, _ = state.best_within(budget, weights)
            for model in offset_ascent_models(
                state.enc,
                start,
                state.baseline,
                weights,
                budget,
                deadline=deadline.share(OFFSET_SHARE),
            ):
                state.add_model(model)
            start, _ = state.best_within(budget, weights)
            for model in moved_models(
                state.enc,
                start,
                state.baseline,
                weights,
                budget,
                deadline=deadline.share(
                    MOVE_SHARE if cuts else MOVE_SHARE_WITHOUT_IDENTITIES
                ),
                tried=self.ambiguity.tried,
            ):
                state.add_model(model)
            self.descend(budget, weights, deadline.share(DESCENT_SHARE))
            self.ambiguity.screen(
                budget,
                deadline.share(
                    SCREEN_SHARE if cuts else SCREEN_SHARE_WITHOUT_IDENTITIES
                ),
            )
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
            request.mip, request.relaxation = self.solvers.small(mip, deadline=deadline)
            self._learn_from_lp(
                request, mip, deadline.share(DIVE_SHARE) if dive else None
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

    def _by_support(self, request, deadline):
        """Answer ``request`` support by support if the class splits and
        time allows (see :func:`~._supports.most_disagreement`)."""
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
        state.discrepancies[_cache_key(request.budget, request.key)] = out
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

    # -- every budget at once --------------------------------------------------
    def envelope(self, budgets):
        """Discrepancy bounds at each of ``budgets`` from every result so far.

        Discrepancy is non-decreasing in the budget: a pooled model within a
        budget bounds it from below, a bound proven at a larger budget from
        above.

        Returns
        -------
        list of Bounds
        """
        state = self.state
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        weights = state.problem.pattern_weight
        total = float(weights.sum())
        lower = np.zeros(budgets.size)
        models = state.pool.models
        if models:
            errors = np.array([m.errors for m in models])
            shares = np.array([state.disagreement(m, weights) for m in models]) / total
            order = np.argsort(errors, kind="stable")
            best = np.maximum.accumulate(shares[order])
            n_within = np.searchsorted(errors[order], budgets + TOLERANCE, side="right")
            some = n_within > 0
            lower[some] = best[n_within[some] - 1]
        upper = self.known_upper(budgets) / total
        for (cached_budget, key), result in state.discrepancies.items():
            if key == "all":
                below = cached_budget <= budgets + TOLERANCE
                lower[below] = np.maximum(lower[below], result.bounds.lower)
        return [
            Bounds(float(lo), float(max(lo, up)))
            for lo, up in zip(lower, upper, strict=True)
        ]

    def known_upper(self, budgets, weights=None, key="all"):
        """Most weight a model within each of ``budgets`` can flip, from what
        is known without a MIP: bounds proven at or above each budget
        (:meth:`proven_upper`), the weight of the patterns not proven
        unflippable (discrepancy is at most ambiguity) and ``err(h0) +
        budget`` (where a model and the baseline disagree, one of them errs;
        see :mod:`.._core._relations`).

        Returns
        -------
        ndarray of shape (n_budgets,)
            In units of weight.
        """
        state = self.state
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        weights = state.problem.pattern_weight if weights is None else weights
        total = float(weights.sum())
        related = [
            min(
                float(weights[state.maybe_flippable(budget)].sum()),
                state.baseline_errors + budget,
            )
            for budget in budgets
        ]
        return np.minimum(self.proven_upper(budgets, key) * total, related)

    def proven_upper(self, budgets, key="all"):
        """Smallest upper bounds (shares) proven for ``key`` at or above ``budgets``.

        Discrepancy is non-decreasing in the budget, so a bound proven at a
        larger budget holds at a smaller one too; 1 where nothing is proven.

        Returns
        -------
        ndarray of shape (n_budgets,)
        """
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        upper = np.ones(budgets.size)
        proven = [
            (cached_budget, result.bounds.upper)
            for (cached_budget, cached_key), result in self.state.discrepancies.items()
            if cached_key == key
        ]
        if proven:
            cached, bounds = np.array(sorted(proven)).T
            # Smallest bound at each cached budget or above.
            suffix_min = np.minimum.accumulate(bounds[::-1])[::-1]
            first = np.searchsorted(cached, budgets - TOLERANCE, side="left")
            some = first < cached.size
            upper[some] = np.minimum(upper[some], suffix_min[first[some]])
        return upper

    def open_budgets(self, budgets):
        """Indices of the ``budgets`` whose discrepancy is not certified yet."""
        return np.flatnonzero([not b.certified for b in self.envelope(budgets)])

    def path(self, budgets, *, deadline=None, progress=None):
        """Certify the discrepancy at every one of ``budgets``, smallest first.

        Each MIP is warm-started with the best model found at the budgets
        below it; budgets that earlier results already certify (discrepancy
        is non-decreasing in the budget) get no MIP. With ``n_jobs > 1``,
        ``n_jobs`` MIPs of consecutive budgets run at once in threads, one
        solver thread each. The next MIP is prepared while they run (its LP
        relaxation selects its identity rows), so no core waits for it.

        Under a finite ``deadline`` a bracketing pass comes first
        (:meth:`bracket`), so that budgets the ascending pass does not reach
        in time still get close certified bounds. ``progress(n_open)`` is
        called with the number of budgets left open after each MIP.
        """
        deadline = deadline or Deadline(None)
        budgets = np.sort(np.asarray(budgets, dtype=float))
        n_jobs = self.solvers.n_jobs
        workers = n_jobs if n_jobs > 1 and not on_cluster() else 1

        def settled():
            if progress is not None:
                progress(self.open_budgets(budgets).size)

        if self._path_by_support(budgets, deadline.share(SUPPORT_SHARE)):
            settled()
            return
        if math.isfinite(deadline.remaining()):
            self.bracket(budgets, workers, deadline, settled)
        jobs = self._path_jobs(budgets, deadline, settled)
        self.solvers.hand_out(workers, jobs, deadline, lookahead=True)

    def _path_by_support(self, budgets, deadline):
        """Certify every budget at once if the class splits by support and
        time allows (see :func:`~._supports.disagreement_frontier`)."""
        split = self.solvers.support_split
        if split is None or deadline.expired():
            return False
        state = self.state
        weights = state.problem.pattern_weight
        solve = CountedSolves(self.solvers, deadline)
        upper = disagreement_frontier(state, split, budgets, weights, solve, deadline)
        solve.note(
            state,
            f"supports[{len(split.supports)}, path of {budgets.size} budgets]",
            upper is not None,
            budgets.size,
            budgets.size,
            "disagreement steps",
        )
        if upper is None:
            return False
        total = float(weights.sum())
        models, lower = best_within_each(state, budgets, weights)
        for budget, model, lo, up in zip(budgets, models, lower, upper, strict=True):
            bounds = Bounds(float(lo / total), float(max(lo, up) / total))
            state.discrepancies[_cache_key(budget, "all")] = DiscrepancyResult(
                bounds, model
            )
        return True

    def bracket(self, budgets, workers, deadline, settled=None):
        """Short disagreement MIPs at evenly spaced open budgets, largest first.

        Each MIP (at most ``bracket_seconds``) proves an upper bound at its
        budget, which holds at every smaller budget, and its models are lower
        bounds at every larger one; with one every ``bracket_spacing`` open
        budgets, every budget lies between two of them. On COMPAS, 5-second
        MIPs bracket the discrepancy at eps = 3% and 5% within 0.9 and 0.4
        percentage points. The pass uses at most ``bracket_share`` of the
        remaining time; the ascending pass may then certify these budgets.
        """
        open_ = self.open_budgets(budgets)
        seconds = min(self.bracket_seconds, deadline.per_mip or math.inf)
        share = self.bracket_share * deadline.remaining()
        affordable = int(share * workers // seconds)
        count = min(math.ceil(open_.size / self.bracket_spacing), affordable)
        if count < 2:  # one short MIP would bracket little and repeat work
            return
        # Evenly spaced from the largest open budget down, which bounds all.
        picks = open_[open_.size - 1 - (np.arange(count) * open_.size) // count]
        within_share = Deadline(share, per_mip=seconds)
        jobs = self._path_jobs(budgets[picks], within_share, settled)
        self.solvers.hand_out(workers, jobs, within_share, lookahead=True)

    def _path_jobs(self, budgets, deadline, settled=None):
        """``next_job`` for ``hand_out``: the open ``budgets`` in order.

        A job may be prepared while the MIPs of smaller budgets still run
        (``lookahead``); before it starts, :meth:`refresh` skips it if their
        results certify its budget, or hands its MIP their better models.
        ``settled()`` runs after each of the MIPs has been learnt.
        """
        tried = np.zeros(budgets.size, dtype=bool)

        def settle(request, result):
            self.settle(request, result)
            if settled is not None:
                settled()

        def next_job():
            for i in np.flatnonzero(~tried):
                if deadline.expired():  # the envelope bounds the rest
                    return None
                tried[i] = True
                if self.envelope(budgets[i : i + 1])[0].certified:
                    continue
                request = self.request(budgets[i], deadline=deadline, dive=False)
                if request.answer is not None:
                    continue
                if request.mip is None:
                    self.settle(request, None)
                    continue
                return Job(
                    request.mip,
                    partial(settle, request),
                    refresh=partial(self.refresh, request),
                )
            return None

        return next_job
