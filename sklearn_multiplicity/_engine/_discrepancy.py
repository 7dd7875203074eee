"""Discrepancy: the most predictions one model of the level set flips.

:class:`DiscrepancyMixin` is the half of :class:`~._audit.AuditEngine` that
maximises disagreement with the baseline: at one budget (overall or within a
group), and along a path of budgets. Discrepancy is non-decreasing in the
budget, so every result bounds the others: a verified model within a budget
is a lower bound at every larger one, a bound proven at a budget an upper
bound at every smaller one.
"""

import logging
import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from .._core._models import verify
from .._core._results import Bounds
from .._mip import _formulations
from .._mip._program import ERROR, INFEASIBLE
from ._scheduling import Deadline, Job, on_cluster

logger = logging.getLogger("sklearn_multiplicity")

#: Time-limited discrepancy paths first bracket every ``BRACKET_SPACING``-th
#: open budget with a disagreement MIP of at most ``BRACKET_SECONDS``, using
#: at most ``BRACKET_SHARE`` of the remaining time (see ``discrepancy_path``).
BRACKET_SPACING = 10
BRACKET_SECONDS = 5.0
BRACKET_SHARE = 0.2


@dataclass
class DiscrepancyResult:
    """Certified discrepancy bounds and the model that realises the lower one."""

    bounds: Bounds
    model: object  # CanonicalModel realising ``bounds.lower`` (or None)


class DiscrepancyMixin:
    """Discrepancy requests, envelopes and paths of :class:`~._audit.AuditEngine`.

    It reads the engine's problem, encoding, ``baseline``, model ``pool``,
    ``flip_lower`` (patterns proven unflippable keep their label), ``log``,
    ``n_jobs`` and ``time_limit``, and solves through its ``_screen``,
    ``_heuristic_flips``, ``_small``, ``_backend``, ``_hand_out`` and
    ``_record``. Its own state is ``discrepancies``: every
    :class:`DiscrepancyResult` so far, by ``(budget, key)``, where ``key`` is
    ``"all"`` or a group.
    """

    def disagreement(self, model, weights):
        """Weight of the training patterns ``model`` predicts unlike the baseline."""
        k = self.problem.n_patterns
        return float(weights[model.z[:k] != self.baseline].sum())

    def discrepancy(self, budget, *, weights=None, key="all", deadline=None):
        """Bounds on the largest weighted share flipped within ``budget``.

        Before the MIP, the cheap steps of :meth:`certify_flips` (threshold
        shifts and LP bounds) run: every pattern they prove unflippable at
        ``budget`` keeps its baseline label in the MIP, and the best pooled
        model is its hint. The MIP gets only the identity rows its LP
        relaxation needs, and that LP's value bounds the discrepancy too. A
        bound proven at a larger budget (same ``key``) bounds it from the
        start, and certifies it without a MIP when a pooled model reaches it.
        """
        deadline = deadline or Deadline(None)
        request = self._discrepancy_request(budget, weights, key, deadline)
        if request.answer is not None:
            return request.answer
        result = None
        if request.mip is not None:
            result = self._backend(deadline).solve(request.mip)
        return self._settle_discrepancy(request, result)

    def _discrepancy_request(self, budget, weights, key, deadline):
        """Everything :meth:`discrepancy` does before solving its MIP."""
        weights = self.problem.pattern_weight if weights is None else weights
        request = _DiscrepancyRequest(budget, key, weights, float(weights.sum()))
        request.cached = self.discrepancies.get((round(budget, 9), key))
        if request.cached is not None and request.cached.bounds.certified:
            request.answer = request.cached
            return request
        if request.total <= 0:
            request.answer = DiscrepancyResult(Bounds(0.0, 0.0), None)
            return request
        if not deadline.expired():
            self._heuristic_flips(budget, pulled=True)
            self._screen(budget, False, deadline)
        request.best, request.lower = self._best_within(budget, weights)
        request.upper = self.proven_upper(budget, key)[0] * request.total
        if request.upper < request.lower - 1e-9:
            # A verified model refutes a bound claimed at a larger budget.
            request.upper = request.total
        elif request.best is not None and request.lower >= request.upper - 1e-9:
            # Certified by monotonicity: no MIP needed.
            request.answer = self._settle_discrepancy(request, None)
            return request
        if not deadline.expired():
            request.mip, request.relaxation = self._disagreement_mip(
                budget, weights, request.best, key
            )
        return request

    def _settle_discrepancy(self, request, result):
        """Learn from the MIP's ``result`` (``None``: not solved); cache bounds."""
        best, lower, upper = request.best, request.lower, request.upper
        if result is not None:
            mip = request.mip
            self._record(mip, result)
            if result.has_solution:
                w, b, _ = self.enc.decode(result.x)
                found = self.add_model(verify(self.enc, w, b, source=mip.name))
                if found is not None and found.errors <= request.budget + 1e-9:
                    value = self.disagreement(found, request.weights)
                    if value > lower:
                        best, lower = found, value
            claimed = result.bound if result.status != ERROR else np.inf
            if result.status == INFEASIBLE:
                claimed = 0.0  # no model of the class within the budget
            if request.relaxation is not None:  # the LP bounds it too
                claimed = min(claimed, request.relaxation.bound)
            if best is not None and claimed < lower - 1e-9:
                # A verified model within the budget refutes the claim.
                logger.warning(
                    "%s: the solver's bound %s is refuted by a verified model "
                    "with disagreement %s; bound discarded",
                    mip.name,
                    claimed,
                    lower,
                )
                self.log[-1]["status"] = ERROR
                self.log[-1]["message"] += " (bound refuted by a verified model)"
            elif np.isfinite(claimed):
                upper = min(upper, claimed)
        upper = max(upper, lower)
        total, cached = request.total, request.cached
        if cached is not None:
            lower = max(lower, cached.bounds.lower * total)
            upper = min(upper, cached.bounds.upper * total)
        out = DiscrepancyResult(
            Bounds(float(lower / total), float(upper / total)), best
        )
        self.discrepancies[(round(request.budget, 9), request.key)] = out
        return out

    def _disagreement_mip(self, budget, weights, best, key):
        hint = None if best is None else self.enc.hint_from((best.w, best.b))
        extended = np.zeros(self.enc.X.shape[0])
        extended[: self.problem.n_patterns] = weights
        mip = _formulations.max_disagreement(
            self.enc,
            self._extended_baseline(),
            budget,
            weights=extended,
            hint=hint,
            name=f"max_disagreement[{key}, budget {budget:g}]",
        )
        # No model within the budget flips a pattern proven unflippable.
        fixed = np.flatnonzero(self.flip_lower > budget + 1e-9)
        if fixed.size:
            columns = self.enc.z_offset + fixed
            mip.var_lower = mip.var_lower.copy()
            mip.var_upper = mip.var_upper.copy()
            mip.var_lower[columns] = mip.var_upper[columns] = self.baseline[fixed]
        return self._small(mip)

    def discrepancy_envelope(self, budgets):
        """Discrepancy bounds at each of ``budgets`` from every result so far.

        Discrepancy is non-decreasing in the budget: a pooled model within a
        budget bounds it from below, a bound proven at a larger budget from
        above.

        Returns
        -------
        list of Bounds
        """
        budgets = np.atleast_1d(np.asarray(budgets, dtype=float))
        weights = self.problem.pattern_weight
        total = float(weights.sum())
        lower = np.zeros(budgets.size)
        models = self.pool.models
        if models:
            errors = np.array([m.errors for m in models])
            shares = np.array([self.disagreement(m, weights) for m in models]) / total
            order = np.argsort(errors, kind="stable")
            best = np.maximum.accumulate(shares[order])
            n_within = np.searchsorted(errors[order], budgets + 1e-9, side="right")
            some = n_within > 0
            lower[some] = best[n_within[some] - 1]
        upper = self.proven_upper(budgets)
        for (cached_budget, key), result in self.discrepancies.items():
            if key == "all":
                below = cached_budget <= budgets + 1e-9
                lower[below] = np.maximum(lower[below], result.bounds.lower)
        return [
            Bounds(float(lo), float(max(lo, up)))
            for lo, up in zip(lower, upper, strict=True)
        ]

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
            for (cached_budget, cached_key), result in self.discrepancies.items()
            if cached_key == key
        ]
        if proven:
            cached, bounds = np.array(sorted(proven)).T
            # Smallest bound at each cached budget or above.
            suffix_min = np.minimum.accumulate(bounds[::-1])[::-1]
            first = np.searchsorted(cached, budgets - 1e-9, side="left")
            some = first < cached.size
            upper[some] = np.minimum(upper[some], suffix_min[first[some]])
        return upper

    def open_budgets(self, budgets):
        """Indices of the ``budgets`` whose discrepancy is not certified yet."""
        envelope = self.discrepancy_envelope(budgets)
        return np.flatnonzero([not bounds.certified for bounds in envelope])

    def discrepancy_path(self, budgets, *, deadline=None, progress=None):
        """Certify the discrepancy at every one of ``budgets``, smallest first.

        Each MIP is warm-started with the best model found at the budgets
        below it; budgets that earlier results already certify (discrepancy
        is non-decreasing in the budget) get no MIP. With ``n_jobs > 1``,
        ``n_jobs`` MIPs of consecutive budgets run at once in threads, one
        solver thread each. The next MIP is prepared while they run (its LP
        relaxation selects its identity rows), so no core waits for it.

        Under a finite ``deadline`` a bracketing pass comes first
        (:meth:`_bracket_path`), so that budgets the ascending pass does not
        reach in time still get close certified bounds. ``progress(n_open)``
        is called with the number of budgets left open after each MIP.
        """
        deadline = deadline or Deadline(None)
        budgets = np.sort(np.asarray(budgets, dtype=float))
        workers = self.n_jobs if self.n_jobs > 1 and not on_cluster() else 1

        def settled():
            if progress is not None:
                progress(self.open_budgets(budgets).size)

        if math.isfinite(deadline.remaining()):
            self._bracket_path(budgets, workers, deadline, settled)
        jobs = self._path_jobs(budgets, deadline, settled)
        self._hand_out(workers, jobs, deadline, lookahead=True)

    def _bracket_path(self, budgets, workers, deadline, settled=None):
        """Short disagreement MIPs at evenly spaced open budgets, largest first.

        Each MIP (at most ``BRACKET_SECONDS``) proves an upper bound at its
        budget, which holds at every smaller budget, and its models are lower
        bounds at every larger one; with one every ``BRACKET_SPACING`` open
        budgets, every budget lies between two of them. On COMPAS, 5-second
        MIPs bracket the discrepancy at eps = 3% and 5% within 0.9 and 0.4
        percentage points. The pass uses at most ``BRACKET_SHARE`` of the
        remaining time; the ascending pass may then certify these budgets.
        """
        open_ = self.open_budgets(budgets)
        seconds = min(BRACKET_SECONDS, self.time_limit or math.inf)
        affordable = int(BRACKET_SHARE * deadline.remaining() * workers // seconds)
        count = min(math.ceil(open_.size / BRACKET_SPACING), affordable)
        if count < 2:  # one short MIP would bracket little and repeat work
            return
        # Evenly spaced from the largest open budget down, which bounds all.
        picks = open_[open_.size - 1 - (np.arange(count) * open_.size) // count]
        share = Deadline(BRACKET_SHARE * deadline.remaining())
        jobs = self._path_jobs(budgets[picks], share, settled)
        self._hand_out(workers, jobs, share, time_limit=seconds, lookahead=True)

    def _path_jobs(self, budgets, deadline, settled=None):
        """``next_job`` for :meth:`_hand_out`: the open ``budgets`` in order.

        A job may be prepared while the MIPs of smaller budgets still run
        (``lookahead``); before it starts, :meth:`_refresh_request` skips it
        if their results certify its budget, or hands its MIP their better
        models. ``settled()`` runs after each of the MIPs has been learnt.
        """
        tried = np.zeros(budgets.size, dtype=bool)

        def settle(request, result):
            self._settle_discrepancy(request, result)
            if settled is not None:
                settled()

        def next_job():
            for i in np.flatnonzero(~tried):
                tried[i] = True
                if self.discrepancy_envelope(budgets[i : i + 1])[0].certified:
                    continue
                request = self._discrepancy_request(budgets[i], None, "all", deadline)
                if request.answer is not None:
                    continue
                if request.mip is None:
                    self._settle_discrepancy(request, None)
                    continue
                return Job(
                    request.mip,
                    partial(settle, request),
                    refresh=partial(self._refresh_request, request),
                )
            return None

        return next_job

    def _refresh_request(self, request):
        """Hand a prepared request the models pooled since it was prepared.

        Returns False when results learnt since certify its budget.
        """
        budget = request.budget
        if request.key == "all" and self.discrepancy_envelope([budget])[0].certified:
            return False
        best, lower = self._best_within(budget, request.weights)
        if lower > request.lower:
            request.best, request.lower = best, lower
            request.mip.hint = self.enc.hint_from((best.w, best.b))
        return True

    def _best_within(self, budget, weights):
        """The pooled model within ``budget`` disagreeing most, and how much."""
        best = max(
            self.pool.within(budget),
            key=lambda m: self.disagreement(m, weights),
            default=None,
        )
        return best, 0.0 if best is None else self.disagreement(best, weights)


@dataclass
class _DiscrepancyRequest:
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
