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
"""

import copy
import logging
import math
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial

import numpy as np
from joblib import Parallel, delayed
from joblib.parallel import get_active_backend

from . import _formulations
from ._heuristics import heuristic_flip_models, pulled_directions
from ._mip import ERROR, INFEASIBLE
from ._models import ModelPool, in_class, verify
from ._problem import error_budget
from ._relaxation import IdentitySeparator

logger = logging.getLogger("sklearn_multiplicity")

#: How undecided patterns are settled at one budget (see ``certify_flips``).
STRATEGIES = ("each", "batch")

#: Time-limited discrepancy paths first bracket every ``BRACKET_SPACING``-th
#: open budget with a disagreement MIP of at most ``BRACKET_SECONDS``, using
#: at most ``BRACKET_SHARE`` of the remaining time (see ``discrepancy_path``).
BRACKET_SPACING = 10
BRACKET_SECONDS = 5.0
BRACKET_SHARE = 0.2


@dataclass
class Bounds:
    """A certified interval ``lower <= value <= upper`` (shares in [0, 1])."""

    lower: float
    upper: float

    @property
    def certified(self):
        return self.upper - self.lower <= 1e-12


@dataclass
class DiscrepancyResult:
    bounds: Bounds
    model: object  # CanonicalModel realising ``bounds.lower`` (or None)


class Deadline:
    """Wall-clock budget shared by the MIPs of one request."""

    def __init__(self, seconds):
        self.end = None if seconds is None else time.perf_counter() + seconds

    def remaining(self):
        return math.inf if self.end is None else self.end - time.perf_counter()

    def expired(self):
        return self.remaining() <= 0

    def limit(self, per_mip):
        """Time limit for the next MIP (``None``: unlimited)."""
        left = self.remaining()
        candidates = [t for t in (per_mip, left) if t is not None and math.isfinite(t)]
        return max(min(candidates), 1e-3) if candidates else None


def _solve(backend, mip, first_solution):
    return backend.solve(mip, first_solution=first_solution)


def _on_cluster():
    """Whether the user chose a distributed joblib backend (dask, ray, ...).

    On one machine MIPs run in threads; inside ``joblib.parallel_config``
    with another backend they are shipped through joblib instead.
    """
    backend, _ = get_active_backend()
    return type(backend).__name__ not in (
        "LokyBackend",
        "ThreadingBackend",
        "SequentialBackend",
        "MultiprocessingBackend",
    )


class AuditEngine:
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
        and so answers every smaller budget too (used by ``path``).

        Returns
        -------
        ndarray of int
            Patterns still undecided (a limit stopped their MIPs).
        """
        deadline = deadline or Deadline(None)
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
        threads = 1 if self.n_jobs > 1 else None
        backends = [self._backend(deadline, threads=threads) for _ in mips]
        if self.n_jobs > 1 and len(mips) > 1:
            if _on_cluster():
                return Parallel(n_jobs=self.n_jobs)(
                    delayed(_solve)(b, m, first_solution)
                    for b, m in zip(backends, mips, strict=True)
                )
            with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
                return list(
                    pool.map(_solve, backends, mips, [first_solution] * len(mips))
                )
        return [
            _solve(b, m, first_solution) for b, m in zip(backends, mips, strict=True)
        ]

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

        if self.n_jobs > 1 and _on_cluster():
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
            return mip, not exact, partial(learn, u, mip)

        self._hand_out(max(1, self.n_jobs), next_job, deadline)

    def _hand_out(self, workers, next_job, deadline, time_limit=None):
        """Solve MIPs ``workers`` at a time in threads, one handed out per finish.

        ``next_job()`` returns ``(mip, first_solution, learn)`` or ``None``
        when nothing is left; ``learn(result)`` runs in this thread before the
        next job is chosen, so each choice sees every result so far. With
        several workers each solve gets one solver thread. ``time_limit``
        overrides the engine's seconds per MIP.
        """
        threads = 1 if workers > 1 else None
        pool = ThreadPoolExecutor(max_workers=workers)
        running = {}
        try:
            while True:
                while len(running) < workers and not deadline.expired():
                    job = next_job()
                    if job is None:
                        break
                    mip, first_solution, learn = job
                    backend = self._backend(deadline, threads, time_limit)
                    running[pool.submit(_solve, backend, mip, first_solution)] = learn
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    running.pop(future)(future.result())
        finally:
            pool.shutdown(wait=not running, cancel_futures=True)

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

    # -- discrepancy ---------------------------------------------------------
    def disagreement(self, model, weights):
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
        request.best = max(
            self.pool.within(budget),
            key=lambda m: self.disagreement(m, weights),
            default=None,
        )
        if request.best is not None:
            request.lower = self.disagreement(request.best, weights)
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
        out = DiscrepancyResult(Bounds(lower / total, upper / total), best)
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
        enc = _formulations.encode(
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
        solver thread each.

        Under a finite ``deadline`` a bracketing pass comes first
        (:meth:`_bracket_path`), so that budgets the ascending pass does not
        reach in time still get close certified bounds. ``progress(n_open)``
        is called with the number of budgets left open after each MIP.
        """
        deadline = deadline or Deadline(None)
        budgets = np.sort(np.asarray(budgets, dtype=float))
        workers = self.n_jobs if self.n_jobs > 1 and not _on_cluster() else 1

        def settled():
            if progress is not None:
                progress(self.open_budgets(budgets).size)

        if math.isfinite(deadline.remaining()):
            self._bracket_path(budgets, workers, deadline, settled)
        jobs = self._path_jobs(budgets, deadline, settled)
        self._hand_out(workers, jobs, deadline)

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
        self._hand_out(workers, jobs, share, time_limit=seconds)

    def _path_jobs(self, budgets, deadline, settled=None):
        """``next_job`` for :meth:`_hand_out`: the open ``budgets`` in order.

        ``settled()`` runs after each of their MIPs has been learnt.
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
                return request.mip, False, partial(settle, request)
            return None

        return next_job


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
