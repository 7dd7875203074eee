"""Discrepancy along a path of budgets: bracketing, then smallest first.

A path certifies the discrepancy at many budgets at once: support by
support when a sparse class splits, else by a bracketing pass of short MIPs
under a time limit and an ascending pass whose MIPs run in threads while
the next one is prepared. :class:`DiscrepancyPaths` holds these passes.
"""

import math
from functools import partial

import numpy as np

from ...._core import Bounds
from ...timing._plans import PLANS, Schedule
from ...timing._scheduling import Deadline, Job, on_cluster
from ..supports._disagreement import best_within_each, disagreement_frontier
from ..supports._split import CountedSolves
from ._requests import DiscrepancyResult, cache_key


class DiscrepancyPaths:
    """Paths of budgets; mixed into :class:`~._discrepancy.DiscrepancyCertifier`,
    whose single-budget steps (``request``, ``settle``, ``refresh``) and
    envelope they use."""

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

        holds = set()
        if self.solvers.support_split is not None:
            holds.add("support split")
        if math.isfinite(deadline.remaining()):
            holds.add("finite limit")
        plan = Schedule(PLANS["discrepancy path"], deadline, holds)
        if "support" in plan and self._path_by_support(budgets, plan.step("support")):
            settled()
            return
        if "bracketing" in plan:
            self.bracket(budgets, workers, plan.step("bracketing"), settled)
        jobs = self._path_jobs(budgets, deadline, settled)
        self.solvers.hand_out(workers, jobs, deadline, lookahead=True)

    def _path_by_support(self, budgets, deadline):
        """Certify every budget at once if the class splits by support and
        time allows (see :func:`~._support_disagreement.disagreement_frontier`)."""
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
            state.discrepancies[cache_key(budget, "all")] = DiscrepancyResult(
                bounds, model
            )
        return True

    def bracket(self, budgets, workers, deadline, settled=None):
        """Short disagreement MIPs at evenly spaced open budgets, largest first.

        Each MIP (at most ``bracket_seconds``) proves an upper bound at its
        budget, which holds at every smaller budget, and its models are lower
        bounds at every larger one; with one every ``bracket_spacing`` open
        budgets, every budget lies between two of them. The pass ends by
        ``deadline`` (its step of the plan); the ascending pass may then
        certify these budgets.
        """
        open_ = self.open_budgets(budgets)
        seconds = min(self.bracket_seconds, deadline.per_mip or math.inf)
        affordable = int(deadline.remaining() * workers // seconds)
        count = min(math.ceil(open_.size / self.bracket_spacing), affordable)
        if count < 2:  # one short MIP would bracket little and repeat work
            return
        # Evenly spaced from the largest open budget down, which bounds all.
        picks = open_[open_.size - 1 - (np.arange(count) * open_.size) // count]
        short = Deadline(None, per_mip=seconds, within=deadline)
        jobs = self._path_jobs(budgets[picks], short, settled)
        self.solvers.hand_out(workers, jobs, short, lookahead=True)

    def _path_jobs(self, budgets, deadline, settled=None):
        """``next_job`` for ``hand_out``: the open ``budgets`` in order.

        A job may be prepared while the MIPs of smaller budgets still run
        (``lookahead``); before it starts, :meth:`refresh` skips it if their
        results certify its budget, or hands its MIP their better models.
        ``settled()`` runs after each of the MIPs has been learnt. Each job's
        LP starts from the identity rows of the job prepared before it: the
        LPs of consecutive budgets need nearly the same rows, and from them
        the separation takes one or two LPs instead of four to ten.
        """
        tried = np.zeros(budgets.size, dtype=bool)
        near = None

        def settle(request, result):
            self.settle(request, result)
            if settled is not None:
                settled()

        def next_job():
            nonlocal near
            for i in np.flatnonzero(~tried):
                if deadline.expired():  # the envelope bounds the rest
                    return None
                tried[i] = True
                if self.envelope(budgets[i : i + 1])[0].certified:
                    continue
                request = self.request(
                    budgets[i],
                    deadline=deadline,
                    plan="discrepancy in a path",
                    near=near,
                )
                if request.relaxation is not None:
                    near = request.relaxation.rows
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
