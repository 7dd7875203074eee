"""Ambiguity and discrepancy at per-class budgets (false positives and
false negatives bounded separately).

The flip bounds of :class:`~._state.AuditState` answer scalar budgets only:
whether a model flipping a pattern is within a pair of budgets does not
follow from its total error. At a :class:`~.._core.ClassBudget`, a pattern is

- flippable when a pooled model within both budgets flips it;
- unflippable when its scalar flip bound exceeds the pair's total (every
  model within both budgets is within their sum), or when its flip MIP with
  one row per class is infeasible;
- undecided otherwise (a limit stopped its MIP).

The cheap evidence of the scalar audit (threshold shifts, LP bounds) at the
pair's total comes first; every model it finds is pooled and checked against
the pair.
"""

from functools import partial

import numpy as np

from ..._core import TOLERANCE, Bounds, Status, overall_error, verify
from ..timing._plans import Schedule, plan_of
from ..timing._scheduling import Deadline, Job
from .discrepancy._requests import DiscrepancyResult, disagreement_mip
from .search._descent import flip_patterns
from .search._heuristics import (
    admitted_cuts,
    class_gap,
    distinct_directions,
    pulled_directions,
    running_argmin,
)


class ClassBudgetCertifier:
    """Ambiguity and discrepancy of an audit at per-class budgets.

    Parameters
    ----------
    state : AuditState
    solvers : Solvers
    ambiguity : AmbiguityCertifier
        Its searches and LP screens run at the pair's total first.
    """

    def __init__(self, state, solvers, ambiguity):
        self.state = state
        self.solvers = solvers
        self.ambiguity = ambiguity
        #: Patterns proven unflippable by a flip MIP, per budget.
        self.proven = {}
        #: Discrepancy results, by ``(budget, key)``.
        self.discrepancies = {}

    # -- evidence ------------------------------------------------------------
    def flippable(self, budget):
        """Patterns a pooled model within ``budget`` flips."""
        state = self.state
        k = state.problem.n_patterns
        out = np.zeros(k, dtype=bool)
        for model in state.pool.within(budget):
            out |= model.z[:k] != state.baseline
        return out

    def maybe_flippable(self, budget):
        """Patterns not proven unflippable within ``budget``.

        A flip proven infeasible within a pair of budgets is infeasible
        within every pair no larger in either kind of error, so proofs at
        larger pairs (a path's later steps, a request at larger tolerances)
        count here too.
        """
        state = self.state
        maybe = state.maybe_flippable(budget.total)
        for proven_at, proven in self.proven.items():
            if _dominates(proven_at, budget):
                maybe &= ~proven
        return maybe | self.flippable(budget)

    def undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` is open (``exact``, each
        pattern's fewest flip errors, is a question of scalar budgets)."""
        _scalar_only(exact)
        return np.flatnonzero(self.maybe_flippable(budget) & ~self.flippable(budget))

    def fewest_flip_errors(self, budget):
        """Per pattern, the fewest errors of a pooled model within ``budget``
        flipping it (``inf``: none known)."""
        state = self.state
        k = state.problem.n_patterns
        best = np.full(k, np.inf)
        for model in state.pool.within(budget):
            flips = model.z[:k] != state.baseline
            best[flips] = np.minimum(best[flips], model.errors)
        return best

    def witness(self, pattern, budget):
        """The pooled model within ``budget`` flipping ``pattern`` with the
        fewest errors, or None."""
        state = self.state
        flipping = [
            m
            for m in state.pool.within(budget)
            if m.z[pattern] != state.baseline[pattern]
        ]
        return min(flipping, key=lambda m: m.errors, default=None)

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        weights = self.state.problem.pattern_weight if weights is None else weights
        total = weights.sum()
        if total <= 0:
            return Bounds(0.0, 0.0)
        sure, maybe = self.flippable(budget), self.maybe_flippable(budget)
        return Bounds(
            float(weights[sure].sum() / total), float(weights[maybe].sum() / total)
        )

    # -- certification -------------------------------------------------------
    def _cheap(self, budget, deadline):
        """The steps of the plan ``"per-class"`` before its MIPs: searches
        and LP screens at the pair's total, then threshold shifts and
        descents within both budgets (their models pooled).

        Returns
        -------
        Deadline
            The deadline of the MIPs.
        """
        plan = Schedule(plan_of("per-class", self.state.enc), deadline)
        if deadline.expired() or self.undetermined(budget).size == 0:
            return plan.step("mips")
        searching = plan.step("search")
        directions = self.ambiguity.search(
            budget.total, pulled=True, deadline=searching
        )
        self.ambiguity.screen(budget.total, plan.step("screen"))
        self.search(budget, directions, deadline=plan.step("shifts"))
        flip_patterns(
            self.state, self.undetermined(budget), budget, plan.step("descent")
        )
        return plan.step("mips")

    def search(self, budget, directions=(), *, pulled=True, deadline=None):
        """Threshold shifts within both budgets of ``directions`` and, with
        ``pulled``, of the pooled directions and of logistic regressions
        pulled towards each undecided pattern."""
        state = self.state
        todo = self.undetermined(budget)
        if todo.size == 0:
            return
        directions = list(directions)
        if pulled:
            directions += [m.w for m in state.pool.models]
            directions += pulled_directions(
                state.enc, state.baseline, todo, deadline=deadline
            )
        directions = distinct_directions(directions)
        for w, b in class_threshold_flips(
            state.enc, directions, state.baseline, todo, budget
        ):
            fitted = state.enc.hypothesis.fit_model(state.problem, w, b)
            if fitted is not None:
                state.add_model(verify(state.enc, *fitted, source="threshold shift"))

    def certify(self, budget, deadline=None, progress=None, *, exact=False):
        """Settle every pattern at ``budget``; the undecided ones.

        One flip MIP (one error row per class) per undecided pattern,
        ``n_jobs`` at a time, likeliest flips first (smallest LP bound on the
        overall error): each witness's direction then flips others by
        threshold shifts before the next pattern is chosen.
        """
        _scalar_only(exact)
        deadline = deadline or Deadline(None)
        state = self.state
        if deadline.expired():
            return self.undetermined(budget)
        deadline = self._cheap(budget, deadline)
        proven = self.proven.setdefault(
            budget, np.zeros(state.problem.n_patterns, dtype=bool)
        )
        attempted = np.zeros(state.problem.n_patterns, dtype=bool)

        def learn(u, mip, result):
            state.record(mip, result)
            if result.has_solution:
                w, b, _ = state.enc.decode(result.x)
                model = state.add_model(verify(state.enc, w, b, source=mip.name))
                if model is not None:
                    self.search(budget, [model.w], pulled=False)
            if result.status == Status.INFEASIBLE:
                proven[u] = True
            if progress is not None:
                progress(self.undetermined(budget).size)

        def next_job():
            todo = self.undetermined(budget)
            todo = todo[~attempted[todo]]
            if todo.size == 0:
                return None
            u = int(todo[np.lexsort((todo, state.lp_bound[todo]))[0]])
            attempted[u] = True
            mip = self.ambiguity.flip_mip(u, budget, deadline)
            return Job(mip, partial(learn, u, mip), first_solution=True)

        self.solvers.hand_out(max(1, self.solvers.n_jobs), next_job, deadline)
        return self.undetermined(budget)

    def _proven_upper(self, budget, weights, key, maybe):
        """The most weight a model within ``budget`` can flip, from what is
        proven: only the patterns ``maybe`` (not proven unflippable) can
        flip, and a bound proven within a pair no smaller in either kind of
        error holds here; and a model disagrees with the baseline only where
        one of the two errs (:mod:`.._core._relations`)."""
        upper = float(weights[maybe].sum())
        upper = min(upper, self.state.baseline_errors + overall_error(budget))
        total = float(weights.sum())
        for (at, known_key), known in self.discrepancies.items():
            if known_key == key and _dominates(at, budget):
                upper = min(upper, known.bounds.upper * total)
        return upper

    def discrepancy(self, budget, *, weights=None, key="all", deadline=None):
        """Bounds on the largest weighted share flipped within ``budget``."""
        deadline = deadline or Deadline(None)
        state = self.state
        weights = state.problem.pattern_weight if weights is None else weights
        total = float(weights.sum())
        cached = self.discrepancies.get((budget, key))
        if cached is not None and cached.bounds.certified:
            return cached
        if total <= 0:
            return DiscrepancyResult(Bounds(0.0, 0.0), None)
        deadline = self._cheap(budget, deadline)
        best, lower = state.best_within(budget, weights)
        maybe = self.maybe_flippable(budget)
        upper = self._proven_upper(budget, weights, key, maybe)
        if not deadline.expired() and upper > lower + TOLERANCE:
            enc = state.enc
            mip = disagreement_mip(state, budget, weights, ~maybe, best, key)
            mip, relaxation = self.solvers.small(mip, deadline=deadline)
            result = self.solvers.solve(mip, deadline)
            entry = state.record(mip, result)
            if result.has_solution:
                w, b, _ = enc.decode(result.x)
                found = state.add_model(verify(enc, w, b, source=mip.name))
                if found is not None and budget.admits(
                    found.false_positives, found.false_negatives
                ):
                    value = state.disagreement(found, weights)
                    if value > lower:
                        best, lower = found, value
            claimed = result.bound if result.status != Status.ERROR else np.inf
            if result.status == Status.INFEASIBLE:
                claimed = 0.0
            if relaxation is not None:
                claimed = min(claimed, relaxation.bound)
            if claimed < lower - TOLERANCE:
                entry.refute("bound refuted by a verified model")
            elif np.isfinite(claimed):
                upper = min(upper, claimed)
        upper = max(upper, lower)
        if cached is not None:
            lower = max(lower, cached.bounds.lower * total)
            upper = min(upper, cached.bounds.upper * total)
        out = DiscrepancyResult(Bounds(lower / total, upper / total), best)
        self.discrepancies[(budget, key)] = out
        return out


def _scalar_only(exact):
    if exact:
        raise ValueError(
            "exact flips (each pattern's fewest errors) are certified at scalar "
            "budgets only"
        )


def _dominates(larger, budget):
    """Whether the pair ``larger`` allows at least ``budget``'s errors of
    each kind."""
    return bool(
        larger.false_positives >= budget.false_positives - TOLERANCE
        and larger.false_negatives >= budget.false_negatives - TOLERANCE
    )


def class_threshold_flips(enc, directions, baseline, candidates, budget):
    """Thresholds of ``directions`` within both budgets that flip candidates.

    Along a direction, moving the threshold up trades false positives for
    false negatives, so the thresholds within both budgets are one run of
    cuts; pattern ``u`` is flipped by the cuts on its far side. Per
    candidate, the cut of fewest errors among those (cuts that would break
    the class's margin are left out, as in ``threshold_flips``).

    Returns
    -------
    list of (w, b)
        Distinct models (unverified) flipping at least one candidate.
    """
    pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
    min_gap = class_gap(enc)
    candidates = np.asarray(candidates, dtype=np.int64)
    found = {}
    to_negative = baseline[candidates]
    for w, s, order, sorted_s, errors, thresholds in admitted_cuts(
        enc, directions, min_gap
    ):
        false_negatives = np.concatenate([[0.0], np.cumsum(pos[order])])
        false_positives = np.concatenate([np.cumsum(neg[order][::-1])[::-1], [0.0]])
        within = budget.admits(false_positives, false_negatives)
        errors = np.where(within, errors, np.inf)
        k = s.size
        best_up_to = running_argmin(errors)
        best_from = k - running_argmin(errors[::-1])[::-1]
        rank_low = np.searchsorted(sorted_s, s[candidates], side="left")
        rank_high = np.searchsorted(sorted_s, s[candidates], side="right")
        chosen = np.where(to_negative, best_from[rank_high], best_up_to[rank_low])
        for i in np.unique(chosen[np.isfinite(errors[chosen])]):
            found.setdefault((id(w), int(i)), (w, -thresholds[i]))
    return list(found.values())
