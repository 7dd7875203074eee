"""Ambiguity: which patterns some model of the level set predicts differently.

:class:`AmbiguityCertifier` settles, at one error budget, every pattern that
the :class:`~._state.AuditState` has not decided yet, cheapest evidence first:
threshold shifts of known models (witnesses, no solver), the LP relaxation
with lazily separated affine-identity rows (proofs without branching), and
flip MIPs.
"""

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ..._core import LevelSet, MIPLogEntry, Status, verify
from ..._mip import _formulations
from ..timing._plans import ASCENT_ROUNDS, Schedule, plan_of
from ..timing._scheduling import Deadline, Job, on_cluster
from .search._descent import flip_patterns
from .search._heuristics import (
    distinct_directions,
    heuristic_flip_models,
    pulled_directions,
    rotated_flip_models,
)
from .search._offset_models import offset_ascent_models
from .search._offsets import offset_classes
from .supports._flips import certify_flips
from .supports._split import CountedSolves

#: How undecided patterns are settled at one budget (see ``certify``).
STRATEGIES = ("each", "batch")


class AmbiguityCertifier:
    """Settles the flip bounds of the patterns of an :class:`AuditState`.

    Parameters
    ----------
    state : AuditState
    solvers : Solvers
        Backend, worker threads and LP relaxations of the audit.
    strategy : {"each", "batch"}
        How patterns left undecided by heuristics and LPs are settled (see
        :meth:`certify`).
    """

    def __init__(self, state, solvers, strategy="each"):
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        self.state = state
        self.solvers = solvers
        self.strategy = strategy
        #: Labellings whose max-margin LP was solved (never solved twice).
        self.tried = set()

    def certify(self, budget, *, exact=False, deadline=None, progress=None):
        """Settle every pattern at ``budget``, cheapest evidence first.

        1. Threshold shifts of known models and of logistic regressions
           pulled towards each undecided pattern (witnesses, no solver).
           Under ``MaxNonzero(k)`` with few enough supports, one flip MIP
           per support and grouped pattern then settles every pattern.
        2. The LP relaxation with lazily separated affine-identity rows: a
           pattern whose LP bound exceeds the budget is proven unflippable.
        3. Descents from the best known models (and, under a rate gap,
           per-class cuts of ascended directions): witnesses.
        4. MIPs, by ``strategy``: ``"each"`` solves one flip MIP per
           pattern; ``"batch"`` asks "does a model within the budget flip any
           of these patterns?"

        The steps run in the order of the plan ``"ambiguity"``, each by its
        share of ``deadline``.

        With ``exact``, each undecided pattern instead gets its own min-error
        flip MIP solved to optimality below the budget, which pins ``E*_u``
        and so answers every smaller budget too (used by paths). With an
        expired ``deadline`` nothing is tried, so that a request without time
        is quick and repeatable.

        Returns
        -------
        ndarray of int
            Patterns still undecided (a limit stopped their MIPs).
        """
        deadline = deadline or Deadline(None)
        if deadline.expired():  # nothing more is learnt once time is up
            return self.state.undetermined(budget, exact)
        steps = {
            "search": lambda d: self.search(budget, pulled=True, deadline=d),
            "support": lambda d: self.by_support(budget, d, exact=exact),
            "screen": lambda d: self.screen(budget, d, exact=exact),
            # After the LPs: their models are starting points, fewer left.
            "ascent": lambda d: self.ascend(budget, d),
            "descent": lambda d: self.descend(budget, d),
            "mips": lambda d: self.mips(budget, d, progress, exact=exact),
        }
        plan = self.schedule(deadline)
        for step in plan.steps:
            steps[step](plan.step(step))
        return self.state.undetermined(budget, exact)

    def schedule(self, deadline):
        """The steps of one request by the plan ``"ambiguity"``, without
        those that do not apply to the audit's class."""
        holds = set()
        if self.solvers.support_split is not None:
            holds.add("support split")
        if offset_classes(self.state.enc) is not None:
            holds.add("rate gap")
        return Schedule(plan_of("ambiguity", self.state.enc), deadline, holds)

    # -- evidence without MIPs -------------------------------------------------
    def search(self, budget, *, pulled=False, extra_directions=(), deadline=None):
        """Threshold shifts of known directions (and, with ``pulled``, of
        logistic regressions pulled towards each undecided pattern).

        With a ``deadline`` (the first search of a request), threshold
        labellings that the class's margin rules out for their own direction
        are also tried with a rotated hyperplane (a max-margin LP each).

        Returns
        -------
        list of ndarray
            The directions searched (for other searches to reuse).
        """
        state = self.state
        todo = state.undetermined(budget)
        directions = distinct_directions(
            [m.w for m in state.pool.models] + list(extra_directions)
        )
        if pulled and todo.size:
            # Half the search at most: the rotated thresholds below need time.
            directions += pulled_directions(
                state.enc,
                state.baseline,
                todo,
                deadline=None if deadline is None else deadline.share(0.5),
            )
        for model in heuristic_flip_models(
            state.enc, directions, state.baseline, todo, budget
        ):
            state.add_model(model)
        todo = state.undetermined(budget)
        if deadline is None or deadline.expired() or todo.size == 0:
            return directions
        for model in rotated_flip_models(
            state.enc,
            directions,
            state.baseline,
            todo,
            budget,
            deadline=deadline,
            tried=self.tried,
        ):
            state.add_model(model)
        return directions

    def ascend(self, budget, deadline):
        """Flip undecided patterns by per-class cuts of directions found by a
        random ascent (:func:`~._offset_models.offset_ascent_models`), each round
        counting only the patterns still undecided, until a round flips none,
        :data:`ASCENT_ROUNDS` rounds or ``deadline``."""
        state = self.state
        weights = np.zeros(state.problem.n_patterns)
        for seed in range(ASCENT_ROUNDS):
            todo = state.undetermined(budget)
            if todo.size == 0 or deadline.expired():
                return
            weights[:] = 0.0
            weights[todo] = state.problem.pattern_weight[todo]
            start, _ = state.best_within(budget, weights)
            for model in offset_ascent_models(
                state.enc,
                start,
                state.baseline,
                weights,
                budget,
                deadline=deadline,
                seed=seed,
            ):
                state.add_model(model)
            if state.undetermined(budget).size == todo.size:
                return

    def descend(self, budget, deadline):
        """Lower the errors of the best known flip of each undecided pattern
        by exact line searches (:func:`~._descent.flip_patterns`), nearest
        to the budget first, until ``deadline``."""
        flip_patterns(self.state, self.state.undetermined(budget), budget, deadline)

    def screen(self, budget, deadline, *, exact=False):
        """Raise the flip bounds of undecided patterns to their LP bounds."""
        state = self.state
        todo = state.undetermined(budget, exact=exact)
        todo = todo[~np.isfinite(state.lp_bound[todo])]  # each LP once
        if todo.size == 0 or deadline.expired():
            return
        separator = self.solvers.separator(deadline)

        def relax(u):
            if deadline.expired():
                return None
            flip = _formulations.flip(state.enc, u, int(not state.baseline[u]))
            return separator.relax(flip, time_limit=deadline.limit())

        start = time.perf_counter()
        if self.solvers.n_jobs > 1:  # the LP solver releases the GIL
            with ThreadPoolExecutor(max_workers=self.solvers.n_jobs) as pool:
                relaxed = list(pool.map(relax, todo))
        else:
            relaxed = [relax(u) for u in todo]
        bounds = np.array([-np.inf if r is None else r.bound for r in relaxed])
        state.lp_bound[todo] = bounds
        if state.level_set.integral:
            bounds = np.where(np.isfinite(bounds), np.ceil(bounds), bounds)
        state.flip_lower[todo] = np.maximum(state.flip_lower[todo], bounds)
        # The LPs' own models: in the class when their z is integral, and
        # then optimal for their pattern; every direction seeds shifts.
        directions = []
        for u, relaxation in zip(todo, relaxed, strict=True):
            if relaxation is None:
                continue
            state.flip_rows[u] = relaxation.rows
            model = relaxation.model(state.enc)
            if model is not None:
                state.add_model(verify(state.enc, *model, source=f"LP of pattern {u}"))
                directions.append(model[0])
        self.search(budget, extra_directions=directions)
        state.flip_lower = np.minimum(state.flip_lower, state.flip_upper)
        proven = int(np.sum(~state.maybe_flippable(budget)[todo]))
        state.note(
            MIPLogEntry(
                mip=f"lp_relaxation[{todo.size} patterns, budget {budget:g}]",
                status=Status.OPTIMAL,
                objective=float(proven),
                bound=float(proven),
                seconds=time.perf_counter() - start,
                solver="linprog-highs",
                message=(
                    f"{proven} of {todo.size} patterns proven unflippable by the "
                    f"LP relaxation ({separator.n_lps} LPs so far)"
                ),
            )
        )

    # -- MIPs ------------------------------------------------------------------
    def mips(self, budget, deadline, progress=None, *, exact=False):
        """Settle the patterns still undecided by MIPs (see :meth:`certify`)."""
        if exact:
            self._certify_each(budget, deadline, progress, exact=True)
        elif self.strategy == "batch":
            self._certify_in_batches(budget, deadline, progress)
        else:
            self._certify_each(budget, deadline, progress)

    def by_support(self, budget, deadline, *, exact=False):
        """Settle the undecided patterns support by support, if the class splits."""
        split = self.solvers.support_split
        if split is None or deadline.expired():
            return
        n_todo = len(self.state.undetermined(budget, exact))
        solve = CountedSolves(self.solvers, deadline)
        finished = certify_flips(
            self.state, split, budget, solve, deadline, exact=exact
        )
        settled = n_todo - len(self.state.undetermined(budget, exact))
        solve.note(
            self.state,
            f"supports[{len(split.supports)}, budget {budget:g}]",
            finished,
            settled,
            settled,
            f"{settled} of {n_todo} patterns settled",
        )

    def flip_mip(self, u, budget, deadline=None):
        """The flip MIP of pattern ``u`` within ``budget``, with its LP's rows."""
        state = self.state
        witness = state.witness_of(u)
        hint = None if witness is None else state.enc.hint_from((witness.w, witness.b))
        mip = _formulations.flip(
            state.enc, u, int(not state.baseline[u]), budget=budget, hint=hint
        )
        return self.solvers.small(mip, state.flip_rows.get(u), deadline=deadline)[0]

    def batch_mip(self, chunk, budget, deadline=None):
        """A MIP feasible iff a model within ``budget`` flips a pattern of ``chunk``."""
        state = self.state
        weights = np.zeros(state.enc.X.shape[0])
        weights[chunk] = 1.0
        mip = _formulations.max_disagreement(
            state.enc,
            state.extended_baseline(),
            budget,
            weights=weights,
            name=f"flip_any[{chunk.size} patterns, budget {budget:g}]",
            # 0/1 weights give no order worth branching by; with priorities
            # (and SCIP's tuning for them) the COMPAS batch phase ran over
            # 400 s instead of 152 s.
            heaviest_first=False,
        )
        # At least one pattern of the chunk flipped: c @ x + offset >= 1.
        mip = mip.with_rows(
            mip.objective.reshape(1, -1),
            [1.0 / mip.objective_unit - mip.objective_offset],
            [np.inf],
        )
        return self.solvers.small(mip, deadline=deadline)[0]

    def learn_flip(self, u, budget, result):
        """Learn what the flip MIP of pattern ``u`` at ``budget`` proved."""
        state = self.state
        if result.has_solution:
            w, b, _ = state.enc.decode(result.x)
            state.add_model(verify(state.enc, w, b, source=f"flip pattern {u}"))
        if result.status == Status.INFEASIBLE:
            state.raise_flip_lower(u, state.level_set.above(budget))
        elif result.status != Status.ERROR and np.isfinite(result.bound):
            state.raise_flip_lower(u, result.bound)
        else:
            state.raise_flip_lower(u, -np.inf)

    def _ordered(self, patterns):
        """Smallest patterns first (cheapest to flip), ties by index."""
        weight = self.state.problem.pattern_weight
        return patterns[np.lexsort((patterns, weight[patterns]))]

    def _certify_in_batches(self, budget, deadline, progress):
        state = self.state
        while not deadline.expired():
            todo = self._ordered(state.undetermined(budget))
            if todo.size == 0:
                break
            n_chunks = min(self.solvers.n_jobs, todo.size)
            chunks = [c for c in np.array_split(todo, n_chunks) if c.size]
            mips = [self.batch_mip(chunk, budget, deadline) for chunk in chunks]
            results = self.solvers.solve_all(mips, deadline, first_solution=True)
            decided_any = False
            for chunk, mip, result in zip(chunks, mips, results, strict=True):
                state.record(mip, result)
                if result.has_solution:
                    w, b, _ = state.enc.decode(result.x)
                    model = state.add_model(verify(state.enc, w, b, source=mip.name))
                    decided_any |= model is not None and bool(
                        LevelSet.within(model.errors, budget)
                    )
                if result.status == Status.INFEASIBLE:
                    state.raise_flip_lower(chunk, state.level_set.above(budget))
                    decided_any = True
            self.search(budget)
            if progress is not None:
                progress(len(state.undetermined(budget)))
            if not decided_any:
                break  # limits reached: the remaining patterns stay undecided

    def _certify_each(self, budget, deadline, progress, *, exact=False):
        """One flip MIP per undecided pattern.

        ``exact``: solve each to optimality (pins ``E*_u``), smallest
        patterns first. Otherwise stop at the first flip within the budget,
        smallest LP gap first: the likeliest long proofs start early, so that
        parallel threads finish together. Either way, patterns whose earlier
        MIPs a limit stopped come last: solved again from the start, a MIP
        would first repeat what it did before.

        The MIPs are handed out one at a time (``n_jobs`` threads): the next
        pattern is chosen when a MIP finishes, after its model has been
        learnt, so no MIP is started for a pattern already decided. Inside a
        distributed joblib backend they go out in rounds of ``n_jobs``.
        """
        state = self.state
        attempted = np.zeros(state.problem.n_patterns, dtype=bool)
        n_jobs = self.solvers.n_jobs

        def next_pattern():
            todo = state.undetermined(budget, exact=exact)
            todo = todo[~attempted[todo]]  # one MIP per pattern
            if todo.size == 0:
                return None
            if exact:
                todo = self._ordered(todo)
            else:
                gap = budget - state.lp_bound[todo]
                todo = todo[np.lexsort((todo, gap))]
            tries = state.flip_tries[todo]
            return int(todo[np.argmin(tries)])  # the first of the fewest tries

        def learn(u, mip, result):
            state.record(mip, result)
            self.learn_flip(u, budget, result)
            if u in state.undetermined(budget, exact=exact):
                state.flip_tries[u] += 1
            self.search(budget)
            if progress is not None:
                progress(len(state.undetermined(budget, exact=exact)))

        if n_jobs > 1 and on_cluster():
            # Rounds of n_jobs MIPs shipped through joblib.
            while not deadline.expired():
                batch = []
                while len(batch) < n_jobs:
                    u = next_pattern()
                    if u is None:
                        break
                    attempted[u] = True
                    batch.append(u)
                if not batch:
                    break
                mips = [self.flip_mip(u, budget, deadline) for u in batch]
                results = self.solvers.solve_all(mips, deadline, not exact)
                for u, mip, result in zip(batch, mips, results, strict=True):
                    learn(u, mip, result)
            return

        def next_job():
            u = next_pattern()
            if u is None:
                return None
            attempted[u] = True
            mip = self.flip_mip(u, budget, deadline)
            return Job(mip, partial(learn, u, mip), first_solution=not exact)

        self.solvers.hand_out(max(1, n_jobs), next_job, deadline)
