"""The audit engine: orchestrates flip and disagreement MIPs around a baseline.

It holds everything certified so far, so that no MIP is solved twice:

- a pool of verified models of the hypothesis class (every solution of every
  MIP, the warm starts, the constant models);
- for every training pattern ``u``, bounds ``flip_lower[u] <= E*_u <=
  flip_upper[u]`` on ``E*_u``, the fewest errors of a model of the class that
  predicts ``u`` differently from the baseline. Pattern ``u`` is ambiguous at
  error budget ``E`` iff ``E*_u <= E``, so these bounds answer every budget at
  once: one found model certifies every pattern it flips, and a pattern proven
  unflippable at a large budget is unflippable at every smaller one;
- the LP relaxation bound of every ``E*_u`` computed so far, and the
  identity rows that LP needed: every MIP is solved with just the identity
  rows of its own LP relaxation (:mod:`._relaxation`).

Ambiguity (flip MIPs) lives here; discrepancy (disagreement MIPs, paths of
budgets) in :mod:`._discrepancy`; running MIPs in parallel under a deadline
in :mod:`._scheduling`.
"""

import copy
import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from .._core._models import ModelPool, in_class, verify
from .._core._problem import error_budget
from .._core._results import Bounds
from .._mip import _formulations, encode
from .._mip._program import ERROR, INFEASIBLE
from .._mip._relaxation import IdentitySeparator
from ._discrepancy import DiscrepancyMixin
from ._heuristics import heuristic_flip_models, pulled_directions
from ._scheduling import Deadline, Job, hand_out, on_cluster, solve_all

logger = logging.getLogger("sklearn_multiplicity")

#: How undecided patterns are settled at one budget (see ``certify_flips``).
STRATEGIES = ("each", "batch")


class AuditEngine(DiscrepancyMixin):
    """Ambiguity and discrepancy around baseline predictions ``baseline``.

    Parameters
    ----------
    enc : Encoding
        Variables and shared rows (hypothesis class, affine-identity cuts).
    baseline : ndarray of bool, shape (n_patterns,)
        The baseline's prediction of every training pattern.
    min_error_lower : float
        Certified lower bound on the fewest errors of the class (every
        ``E*_u`` is at least this).
    backend : Backend
        Solver used for every MIP (its time limit is set per MIP).
    time_limit : float or None
        Seconds per MIP.
    n_jobs : int
        Flip MIPs solved at once, in threads (the solvers release the GIL);
        each then gets one solver thread.
    strategy : {"each", "batch"}
        How undecided patterns are settled (see :meth:`certify_flips`).
    separator : IdentitySeparator or None
        LP relaxations of ``enc`` (built on first use when ``None``).
    """

    def __init__(
        self,
        enc,
        baseline,
        min_error_lower,
        backend,
        *,
        time_limit=None,
        n_jobs=1,
        strategy="each",
        separator=None,
    ):
        self.enc = enc
        self.problem = enc.problem
        self.baseline = np.asarray(baseline, dtype=bool)
        self.baseline_errors = float(self.problem.errors(self.baseline))
        self.backend = backend
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        self.strategy = strategy
        self._separator = separator
        #: Identity rows that each pattern's flip LP needed.
        self._flip_rows = {}
        k = self.problem.n_patterns
        self.min_error_lower = float(min_error_lower)
        #: LP relaxation bound of ``E*_u`` (``-inf``: not computed).
        self.lp_bound = np.full(k, -np.inf)
        self.flip_lower = np.full(k, float(min_error_lower))
        self.flip_upper = np.full(k, np.inf)
        self.witness = np.full(k, -1, dtype=np.int64)
        self.pool = ModelPool()
        self.discrepancies = {}
        self.log = []

    # -- budgets -----------------------------------------------------------
    @property
    def integral(self):
        return self.problem.weights_are_integral

    def budget(self, eps):
        """Largest weighted error allowed in the ``eps``-level set.

        ``err(h0) + eps * W`` (``W`` the total weight); with integral weights
        the extra allowance is rounded down to a whole error count,
        ``floor(eps * W)``, so with unit weights ``eps * n`` extra errors.
        """
        return error_budget(
            self.baseline_errors, eps, self.problem.total_weight, self.integral
        )

    def _above(self, budget):
        """The smallest error count strictly above ``budget``."""
        if self.integral:
            return math.floor(budget + 1e-9) + 1.0
        return budget + 1e-9 * max(1.0, self.problem.total_weight)

    # -- the pool ----------------------------------------------------------
    def add_model(self, model):
        """Add a verified model of the class; update flip upper bounds."""
        if model is None or not in_class(self.enc, model, tolerance=1e-4):
            return None
        index = len(self.pool)
        self.pool.add(model)
        k = self.problem.n_patterns
        flips = model.z[:k] != self.baseline
        better = flips & (model.errors < self.flip_upper)
        self.flip_upper[better] = model.errors
        self.witness[better] = index
        return model

    def _record(self, mip, result):
        entry = {
            "mip": mip.name,
            "status": result.status,
            "objective": result.objective,
            "bound": result.bound,
            "seconds": result.solve_time,
            "solver": result.solver,
            "message": result.message,
        }
        self.log.append(entry)
        level = logging.WARNING if result.status == ERROR else logging.DEBUG
        logger.log(
            level,
            "%s: %s (objective %s, bound %s, %.2f s) %s",
            mip.name,
            result.status,
            result.objective,
            result.bound,
            result.solve_time,
            result.message,
        )

    # -- ambiguity -----------------------------------------------------------
    def undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` (or exact ``E*_u``) is unknown."""
        low_enough = self.flip_lower <= budget + 1e-9
        if exact:
            return np.flatnonzero(low_enough & (self.flip_lower < self.flip_upper))
        return np.flatnonzero(low_enough & (self.flip_upper > budget + 1e-9))

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        weights = self.problem.pattern_weight if weights is None else weights
        total = weights.sum()
        if total <= 0:
            return Bounds(0.0, 0.0)
        sure = self.flip_upper <= budget + 1e-9
        maybe = self.flip_lower <= budget + 1e-9
        return Bounds(
            float(weights[sure].sum() / total), float(weights[maybe].sum() / total)
        )

    def certify_flips(self, budget, *, exact=False, deadline=None, progress=None):
        """Settle every pattern at ``budget``, cheapest evidence first.

        1. Threshold shifts of known models and of logistic regressions
           pulled towards each undecided pattern (witnesses, no solver).
        2. The LP relaxation with lazily separated affine-identity rows
           (:class:`~._relaxation.IdentitySeparator`): a pattern whose LP bound
           exceeds the budget is proven unflippable.
        3. MIPs, by ``strategy``: ``"each"`` solves one flip MIP per
           pattern; ``"batch"`` asks "does a model within the budget flip any
           of these patterns?"

        With ``exact``, each undecided pattern instead gets its own min-error
        flip MIP solved to optimality below the budget, which pins ``E*_u``
        and so answers every smaller budget too (used by ``path``). With an
        expired ``deadline`` nothing is tried, as in :meth:`discrepancy`, so
        that a request without time is quick and repeatable.

        Returns
        -------
        ndarray of int
            Patterns still undecided (a limit stopped their MIPs).
        """
        deadline = deadline or Deadline(None)
        if deadline.expired():  # nothing more is learnt once time is up
            return self.undetermined(budget, exact)
        self._heuristic_flips(budget, pulled=True)
        self._screen(budget, exact, deadline)
        if exact:
            self._certify_each(budget, deadline, progress, exact=True)
        elif self.strategy == "batch":
            self._certify_in_batches(budget, deadline, progress)
        else:
            self._certify_each(budget, deadline, progress)
        return self.undetermined(budget, exact)

    def _screen(self, budget, exact, deadline):
        """Raise ``flip_lower`` of undecided patterns to their LP bounds."""
        todo = self.undetermined(budget, exact=exact)
        todo = todo[~np.isfinite(self.lp_bound[todo])]  # each LP once
        if todo.size == 0 or deadline.expired():
            return
        separator = self.separator()

        def relax(u):
            if deadline.expired():
                return None
            flip = _formulations.flip(self.enc, u, int(not self.baseline[u]))
            return separator.relax(flip)

        start = time.perf_counter()
        if self.n_jobs > 1:  # the LP solver releases the GIL
            with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
                relaxed = list(pool.map(relax, todo))
        else:
            relaxed = [relax(u) for u in todo]
        bounds = [-np.inf if r is None else r.bound for r in relaxed]
        self.lp_bound[todo] = bounds
        lower = np.asarray(bounds)
        if self.integral:
            lower = np.where(np.isfinite(lower), np.ceil(lower), lower)
        self.flip_lower[todo] = np.maximum(self.flip_lower[todo], lower)
        # The LPs' own models: in the class when their z is integral, and
        # then optimal for their pattern; every direction seeds shifts.
        directions = []
        for u, relaxation in zip(todo, relaxed, strict=True):
            if relaxation is None:
                continue
            self._flip_rows[u] = relaxation.rows
            model = relaxation.model(self.enc)
            if model is not None:
                self.add_model(verify(self.enc, *model, source=f"LP of pattern {u}"))
                directions.append(model[0])
        self._heuristic_flips(budget, extra_directions=directions)
        self.flip_lower = np.minimum(self.flip_lower, self.flip_upper)
        proven = int(np.sum(self.flip_lower[todo] > budget + 1e-9))
        self.log.append(
            {
                "mip": f"lp_relaxation[{todo.size} patterns, budget {budget:g}]",
                "status": "optimal",
                "objective": float(proven),
                "bound": float(proven),
                "seconds": time.perf_counter() - start,
                "solver": "linprog-highs",
                "message": (
                    f"{proven} of {todo.size} patterns proven unflippable by the "
                    f"LP relaxation ({separator.n_lps} LPs so far)"
                ),
            }
        )

    def separator(self):
        """The LP relaxations of this encoding (built on first use)."""
        if self._separator is None:
            self._separator = IdentitySeparator(self.enc)
        return self._separator

    def _small(self, mip, rows=None):
        """``mip`` with only the identity rows its LP needs (``rows`` if known).

        Returns the small MIP and its LP relaxation (``None`` if ``rows`` were
        given).
        """
        if not self.enc.n_identities:
            return mip, None
        separator = self.separator()
        if rows is not None:
            return separator.restrict(mip, rows), None
        return separator.tighten(mip)

    def _lp_gap(self, patterns, budget):
        """How far below ``budget`` the LP bound of each pattern lies."""
        return budget - self.lp_bound[patterns]

    def _ordered(self, patterns):
        """Smallest patterns first (cheapest to flip), ties by index."""
        weight = self.problem.pattern_weight
        return patterns[np.lexsort((patterns, weight[patterns]))]

    def _solve_all(self, mips, deadline, first_solution):
        make_backend = partial(self._backend, deadline)
        return solve_all(mips, first_solution, self.n_jobs, make_backend)

    def _certify_in_batches(self, budget, deadline, progress):
        while not deadline.expired():
            todo = self._ordered(self.undetermined(budget))
            if todo.size == 0:
                break
            n_chunks = min(self.n_jobs, todo.size)
            chunks = [c for c in np.array_split(todo, n_chunks) if c.size]
            mips = [self._batch_mip(chunk, budget) for chunk in chunks]
            results = self._solve_all(mips, deadline, first_solution=True)
            decided_any = False
            for chunk, mip, result in zip(chunks, mips, results, strict=True):
                self._record(mip, result)
                if result.has_solution:
                    w, b, _ = self.enc.decode(result.x)
                    model = self.add_model(verify(self.enc, w, b, source=mip.name))
                    decided_any |= model is not None and model.errors <= budget + 1e-9
                if result.status == INFEASIBLE:
                    self.flip_lower[chunk] = np.maximum(
                        self.flip_lower[chunk], self._above(budget)
                    )
                    decided_any = True
            self._heuristic_flips(budget)
            if progress is not None:
                progress(len(self.undetermined(budget)))
            if not decided_any:
                break  # limits reached: the remaining patterns stay undecided

    def _batch_mip(self, chunk, budget):
        weights = np.zeros(self.enc.X.shape[0])
        weights[chunk] = 1.0
        mip = _formulations.max_disagreement(
            self.enc,
            self._extended_baseline(),
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
            mip.objective.reshape(1, -1), [1.0 - mip.objective_offset], [np.inf]
        )
        return self._small(mip)[0]

    def _extended_baseline(self):
        extra = self.enc.X.shape[0] - self.problem.n_patterns
        return np.concatenate([self.baseline, np.zeros(extra, dtype=bool)])

    def _certify_each(self, budget, deadline, progress, *, exact=False):
        """One flip MIP per undecided pattern.

        ``exact``: solve each to optimality (pins ``E*_u``), smallest
        patterns first. Otherwise stop at the first flip within the budget,
        smallest LP gap first: the likeliest long proofs start early, so that
        parallel threads finish together.

        The MIPs are handed out one at a time (:meth:`_hand_out`, ``n_jobs``
        threads): the next pattern is chosen when a MIP finishes, after its
        model has been learnt, so no MIP is started for a pattern already
        decided. Inside a distributed joblib backend they go out in rounds of
        ``n_jobs`` instead.
        """
        attempted = np.zeros(self.problem.n_patterns, dtype=bool)

        def next_pattern():
            todo = self.undetermined(budget, exact=exact)
            todo = todo[~attempted[todo]]  # one MIP per pattern
            if todo.size == 0:
                return None
            if exact:
                return int(self._ordered(todo)[0])
            gap = self._lp_gap(todo, budget)
            return int(todo[np.lexsort((todo, gap))[0]])

        def learn(u, mip, result):
            self._record(mip, result)
            self._learn_flip(u, budget, result)
            self._heuristic_flips(budget)
            if progress is not None:
                progress(len(self.undetermined(budget, exact=exact)))

        if self.n_jobs > 1 and on_cluster():
            # Rounds of n_jobs MIPs shipped through joblib.
            while not deadline.expired():
                batch = []
                while len(batch) < self.n_jobs:
                    u = next_pattern()
                    if u is None:
                        break
                    attempted[u] = True
                    batch.append(u)
                if not batch:
                    break
                mips = [self._flip_mip(u, budget) for u in batch]
                results = self._solve_all(mips, deadline, not exact)
                for u, mip, result in zip(batch, mips, results, strict=True):
                    learn(u, mip, result)
            return

        def next_job():
            u = next_pattern()
            if u is None:
                return None
            attempted[u] = True
            mip = self._flip_mip(u, budget)
            return Job(mip, partial(learn, u, mip), first_solution=not exact)

        self._hand_out(max(1, self.n_jobs), next_job, deadline)

    def _hand_out(self, workers, next_job, deadline, time_limit=None, lookahead=False):
        """Solve the MIPs of ``next_job`` with :func:`~._scheduling.hand_out`.

        ``time_limit`` overrides the engine's seconds per MIP; ``lookahead``
        prepares the next job while every worker is busy.
        """
        make_backend = partial(self._backend, deadline, time_limit=time_limit)
        hand_out(workers, next_job, deadline, make_backend, lookahead=lookahead)

    def _heuristic_flips(self, budget, pulled=False, extra_directions=()):
        """Threshold shifts of known directions (and, with ``pulled``, of
        logistic regressions pulled towards each undecided pattern)."""
        todo = self.undetermined(budget)
        directions = [m.w for m in self.pool.models] + list(extra_directions)
        if pulled and todo.size:
            directions += pulled_directions(self.enc, self.baseline, todo)
        found = heuristic_flip_models(self.enc, directions, self.baseline, todo, budget)
        for model in found:
            self.add_model(model)

    def _flip_mip(self, u, budget):
        hint = None
        if self.witness[u] >= 0:
            m = self.pool.models[self.witness[u]]
            hint = self.enc.hint_from((m.w, m.b))
        mip = _formulations.flip(
            self.enc, u, int(not self.baseline[u]), budget=budget, hint=hint
        )
        return self._small(mip, self._flip_rows.get(u))[0]

    def _learn_flip(self, u, budget, result):
        if result.has_solution:
            w, b, _ = self.enc.decode(result.x)
            self.add_model(verify(self.enc, w, b, source=f"flip pattern {u}"))
        if result.status == INFEASIBLE:
            self.flip_lower[u] = max(self.flip_lower[u], self._above(budget))
        elif result.status != ERROR and np.isfinite(result.bound):
            self.flip_lower[u] = max(self.flip_lower[u], result.bound)
        self.flip_lower[u] = min(self.flip_lower[u], self.flip_upper[u])

    def _backend(self, deadline, threads=None, time_limit=None):
        backend = copy.copy(self.backend)
        backend.time_limit = deadline.limit(time_limit or self.time_limit)
        if threads is not None:
            backend.threads = threads
        return backend

    # -- new people ----------------------------------------------------------
    def flip_new_patterns(self, patterns, baseline_new, budget, cuts, *, deadline=None):
        """Which new patterns a model of the level set predicts differently.

        Known models within the budget decide most patterns for free; each
        remaining pattern gets a flip MIP in an encoding extended with it.

        Returns
        -------
        decided, undecided : ndarray of bool, shape (n_new,)
            Certified ambiguous; not decided within the limits.
        """
        deadline = deadline or Deadline(None)
        patterns = np.asarray(patterns, dtype=float)
        n_new = patterns.shape[0]
        decided = np.zeros(n_new, dtype=bool)
        hyp = self.enc.hypothesis
        canonical = self.problem.canonical(patterns, scaled=hyp.scaled)
        for m in self.pool.within(budget):
            decided |= ((canonical @ m.w + m.b) > 0) != baseline_new
        todo = np.flatnonzero(~decided)
        undecided = np.zeros(n_new, dtype=bool)
        if todo.size == 0:
            return decided, undecided
        enc = encode(
            self.problem, hyp, extra_patterns=patterns[todo], cuts=cuts
        )
        separator = IdentitySeparator(enc) if enc.n_identities else None

        def learn(w, b, source):
            model = verify(enc, w, b, source=source)
            if model.errors <= budget + 1e-9 and in_class(enc, model, tolerance=1e-4):
                decided[:] |= ((canonical @ model.w + model.b) > 0) != baseline_new

        for j, index in enumerate(todo):
            if decided[index]:
                continue
            if deadline.expired():
                undecided[index] = True
                continue
            mip = _formulations.flip(
                enc, enc.n_train + j, int(not baseline_new[index]), budget=budget
            )
            if separator is not None:
                mip, relaxation = separator.tighten(mip)
                if relaxation.bound == np.inf:  # LP infeasible: no flip in budget
                    continue
                if relaxation.x is not None:  # the LP's own model may flip it
                    learn(*relaxation.model(enc), f"LP of {mip.name}")
                    if decided[index]:
                        continue
            result = self._backend(deadline).solve(mip, first_solution=True)
            self._record(mip, result)
            if result.has_solution:
                learn(*enc.decode(result.x)[:2], mip.name)
            if not decided[index] and result.status != INFEASIBLE:
                undecided[index] = True
        return decided, undecided & ~decided
