"""Certified minimum error, ambiguity and discrepancy of K-class linear models.

The level set holds every model of the K-class hypothesis class
(:class:`~.._core._hypothesis.MulticlassBoxMargin`) whose weighted training
error is at most the baseline's plus a budget. A cheap first pass fills a
pool of verified models (constant models, logistic regressions scaled into
the class, the baseline's own model when given); MIPs
(:mod:`.._mip._multiclass`) then settle what the pool leaves open. Every
model a solver returns is verified here: its labels and errors are
recomputed with numpy and it counts only when it lies in the class. A solver
stopped by its limit contributes its bound, as a bound.
"""

import copy
import functools
import math

import numpy as np

from ..._core import (
    TOLERANCE,
    LabelCeilings,
    MIPLogEntry,
    Status,
    admits,
    error_ceiling,
)
from ..._core._hypothesis import MulticlassBoxMargin, gaps, in_label_class, predict
from ..._mip import _multiclass as formulations
from ...backends import Backend, get_backend
from ..timing._plans import K_CLASS_FIRST_ROUND_SECONDS, PLANS, Schedule
from ..timing._scheduling import Deadline, Job, hand_out
from ._first_pass import first_pass
from ._hull import hull_screen
from ._lp_witnesses import lp_witnesses
from ._proofs import BOUND_SLACK, FlipProofs, kept_labels, raised_lower, size
from ._records import (
    MulticlassAmbiguity,
    MulticlassDiscrepancy,
    MulticlassMinError,
    MulticlassModel,
)
from ._shifts import shift_search


class MulticlassCertifier:
    """Audits of K-class linear models around one baseline labelling.

    Parameters
    ----------
    problem : PatternProblem
    baseline_labels : array-like of int, shape (n_patterns,)
        The baseline's label (index into ``problem.classes``) of every pattern;
        its errors are the baseline errors ``E0``.
    hypothesis : MulticlassBoxMargin or None
        The class (default: margin 1e-3).
    solver : str or Backend, default="highs"
        Passed to :func:`~..backends.get_backend`; a backend instance is
        copied for each MIP with the MIP's time limit.
    threads : int, default=1
        Solver threads.
    baseline_model : tuple (W, b) or None
        The baseline's canonical coefficients, a warm start when in the class.
    prior : MulticlassCertifier or None
        A certifier of the same problem (the default baseline's fit) whose
        models and minimum error this one starts from; its first pass's
        logistic regressions are not fitted again.

    Attributes
    ----------
    baseline_errors : float
    pool : list of MulticlassModel
        Every verified model found so far.
    log : list of MIPLogEntry
        Every MIP solved.

    Notes
    -----
    Every ``budget`` is the extra weighted errors over the baseline's that a
    model of the level set may make; every ``deadline`` a ``Deadline``, or
    ``None`` for no limit.
    """

    def __init__(
        self,
        problem,
        baseline_labels,
        *,
        hypothesis=None,
        solver="highs",
        threads=1,
        baseline_model=None,
        prior=None,
    ):
        self.problem = problem
        self.hypothesis = hypothesis or MulticlassBoxMargin()
        self.enc = formulations.encode(problem, self.hypothesis)
        self.baseline_labels = np.asarray(baseline_labels, dtype=np.int64)
        if self.baseline_labels.shape != (problem.n_patterns,) or not np.all(
            (self.baseline_labels >= 0) & (self.baseline_labels < problem.n_classes)
        ):
            raise ValueError(
                f"baseline_labels must hold one label in 0..{problem.n_classes - 1} "
                f"per pattern ({problem.n_patterns})"
            )
        self.baseline_errors = float(problem.errors(self.baseline_labels))
        self.solver = solver
        self.threads = threads
        self.pool = []
        self._labellings = set()
        self.log = []
        self._min_error = None
        # Proven upper bounds of the discrepancy (a weight) by error ceiling.
        self._discrepancy_upper = {}
        self.proofs = FlipProofs(problem.n_patterns)
        first_pass(self, baseline_model, logistic=prior is None)
        if prior is not None:
            self.learn(prior)

    # -- verified models ---------------------------------------------------
    def verify(self, W, b, source=""):
        """The :class:`MulticlassModel` of ``(W, b)`` if it lies in the class.

        Labels and errors are recomputed; a model outside the class (box or
        margin violated beyond the solvers' tolerance) or with a tie on a
        training pattern is refused (``None``).
        """
        K, p = self.problem.n_classes, self.problem.n_kept
        W = np.asarray(W, dtype=float).reshape(K - 1, p)
        b = np.asarray(b, dtype=float).reshape(K - 1)
        tolerance = Backend.feasibility_tolerance
        if not in_label_class(self.problem, self.hypothesis, W, b, tolerance):
            return None
        if gaps(W, b, self.enc.X).min(initial=np.inf) <= 0:
            return None
        labels = predict(W, b, self.enc.X)
        errors = float(self.problem.errors(labels))
        label_errors = self.problem.label_errors(labels)
        return MulticlassModel(W, b, labels, errors, source, label_errors)

    def add(self, model):
        """Pool a verified model (``None`` is not); return it."""
        if model is not None:
            self._labellings.add(model.labels.tobytes())
            self.pool.append(model)
        return model

    def knows(self, model):
        """Whether a pooled model labels the patterns as ``model`` does."""
        return model.labels.tobytes() in self._labellings

    def within(self, budget):
        """The pooled models within ``budget`` extra errors."""
        ceiling = self.ceiling(budget)
        return [m for m in self.pool if admits(m, ceiling)]

    def ceiling(self, budget):
        """The largest weighted error of the level set at ``budget`` (extra
        errors), or per label (``budget`` a :class:`LabelCeilings`)."""
        problem = self.problem
        if isinstance(budget, LabelCeilings):
            return LabelCeilings(
                tuple(
                    error_ceiling(c, problem.total_weight, problem.weights_are_integral)
                    for c in budget.ceilings
                )
            )
        if budget < 0:
            raise ValueError(f"budget must be non-negative, got {budget!r}")
        problem = self.problem
        return error_ceiling(
            self.baseline_errors + budget,
            problem.total_weight,
            problem.weights_are_integral,
        )

    # -- solving ---------------------------------------------------------------
    def solve(self, mip, deadline, *, cap=None, first_solution=False):
        """Solve ``mip`` within ``deadline`` (and at most ``cap`` seconds);
        ``None`` once it has expired. ``first_solution``: stop at the first
        solution (enough to decide a flip)."""
        if deadline.expired():
            return None
        backend = self._backend(deadline.limit(cap), self.threads)
        result = backend.solve(mip, first_solution=first_solution)
        return (result, *self._record(mip, result))

    def _backend(self, limit, threads):
        """The backend of one solve: :attr:`solver` with ``limit`` seconds."""
        if isinstance(self.solver, Backend):
            backend = copy.copy(self.solver)
            backend.time_limit, backend.threads = limit, threads
            return backend
        return get_backend(self.solver, time_limit=limit, threads=threads)

    def _record(self, mip, result):
        """Log a solve and pool the model it returned, if verified: the log
        entry and the model (``None``: none)."""
        entry = MIPLogEntry.of(mip, result)
        self.log.append(entry)
        model = None
        if result.x is not None:
            W, b, _ = self.enc.decode(result.x)
            model = self.add(self.verify(W, b, source=mip.name))
        return entry, model

    # -- the three measures ----------------------------------------------------
    @property
    def known_min_error(self):
        """The ``MulticlassMinError`` solved so far, or None."""
        return self._min_error

    def min_error(self, deadline=None):
        """The certified fewest errors of the class.

        Parameters
        ----------
        deadline : Deadline or None
            Time for the MIP (``None``: unlimited).

        Returns
        -------
        MulticlassMinError
        """
        deadline = deadline or Deadline(None)
        if self._min_error is not None and self._min_error.exact:
            return self._min_error
        best = min(self.pool, key=lambda m: m.errors)
        lower = self.problem.unavoidable_errors
        if self._min_error is not None:
            lower = max(lower, self._min_error.lower)
        if best.errors > lower + TOLERANCE:
            mip = formulations.min_error(
                self.enc, hint=self.enc.hint_from((best.W, best.b))
            )
            solved = self.solve(mip, deadline)
            if solved is not None:
                result, entry, _ = solved
                best = min(self.pool, key=lambda m: m.errors)
                lower = raised_lower(result, entry, lower, best.errors)
        lower = min(lower, best.errors)
        exact = best.errors - lower <= TOLERANCE
        self._min_error = MulticlassMinError(
            lower, best.errors, best, Status.OPTIMAL if exact else Status.FEASIBLE
        )
        return self._min_error

    def learn(self, other):
        """Take the verified models and the minimum error another certifier
        of the same problem found (the default baseline's fit)."""
        for model in other.pool:
            if not self.knows(model):
                self.add(model)
        self.log.extend(other.log)
        if other._min_error is not None:
            known = other._min_error
            best = min(self.pool, key=lambda m: m.errors)
            self._min_error = MulticlassMinError(
                known.lower, best.errors, best, known.status
            )

    def ambiguity(self, budget, deadline=None):
        """Certified share of weight whose label some model within ``budget``
        extra errors changes.

        Each pattern is proven flippable by a verified model of the level set
        (pooled, or found by a flip MIP), proven unflippable by a flip MIP's
        infeasibility or bound, or left open when time runs out. Heaviest
        patterns are decided first.

        Parameters
        ----------
        budget : float
            The level set's allowance (see Notes).
        deadline : Deadline or None
            Time for all the flip MIPs.

        Returns
        -------
        MulticlassAmbiguity
        """
        ceiling, order, deadline = self._without_mips(budget, deadline)
        # A first round of short MIPs that stop at their first solution
        # decides the easy patterns; a second gives the rest all time left.
        for short in (True, False):
            self._decide_flips(order, ceiling, deadline, short)
        return self._ambiguity_at(ceiling)

    def fewest_flip_errors(self, budget, deadline=None):
        """Settle every pattern's fewest errors of a model changing its label,
        up to ``budget`` extra errors: flip MIPs solved to optimality within
        that ceiling, so that the ambiguity at every smaller budget follows
        (a path). Heaviest patterns first; what a limit stops stays a bound.
        """
        ceiling, order, deadline = self._without_mips(budget, deadline)
        self._decide_flips(order, ceiling, deadline, short=False, optimal=True)

    def _without_mips(self, budget, deadline):
        """What ``budget`` needs no MIP for (an empty level set, intercept
        shifts, hull proofs); its ceiling, the patterns heaviest first and
        the flip MIPs' deadline."""
        ceiling = self.ceiling(budget)
        if self._empty(ceiling):
            self.proofs.record(slice(None), ceiling)
        shift_search(self, budget)
        plan = Schedule(PLANS["K-class ambiguity"], deadline or Deadline(None))
        lp_witnesses(self, budget, plan.step("witness LPs"))
        hull_screen(self, budget, plan.step("hull"))
        order = np.argsort(-self.problem.pattern_weight, kind="stable")
        return ceiling, order, plan.step("flips")

    def _decide_flips(self, order, ceiling, deadline, short, optimal=False):
        """Flip MIPs for the open patterns of ``order`` (short: each within
        an even share of the time left; optimal: to the fewest errors, not
        the first model), :attr:`threads` at a time with one solver thread
        each (``n_jobs``, as two labels solve their flips). Each MIP is
        built when a solver is free, with every proof and witness so far."""
        proven = self._proven_unflippable(ceiling)
        best, errors = self._flips(ceiling)
        scanned = [len(self.pool)]
        # The short round shares the time among the patterns still open.
        n_open = max(int(np.sum((best[order] < 0) & ~proven[order])), 1)
        pending = iter(order)

        def decided(u):
            witness = None if best[u] < 0 else self.pool[best[u]]
            if witness is not None and (
                not optimal or self.proofs.fewest_known(u, witness.errors)
            ):
                return True
            return bool(proven[u])

        def learn(u, mip, result):
            entry, _ = self._record(mip, result)
            # The flips of the models pooled since, the MIP's among them.
            self._flips(ceiling, since=scanned[0], into=(best, errors))
            scanned[0] = len(self.pool)
            witness = None if best[u] < 0 else self.pool[best[u]]
            self._learn_flip(u, ceiling, witness, result, entry)
            proven[u] = self.proofs.unflippable(ceiling)[u]

        def next_job():
            for u in pending:
                if decided(u):
                    continue
                cap = None
                if short:
                    left = deadline.remaining()
                    cap = max(K_CLASS_FIRST_ROUND_SECONDS, workers * left / n_open)
                witness = None if best[u] < 0 else self.pool[best[u]]
                hint = None if witness is None else (witness.W, witness.b)
                mip = formulations.flip(
                    self.enc,
                    u,
                    self.baseline_labels[u],
                    max_errors=ceiling,
                    hint=self.enc.hint_from(hint),
                    kept_labels=kept_labels(proven, self.baseline_labels),
                )
                return Job(
                    mip,
                    functools.partial(learn, u, mip),
                    first_solution=not optimal,
                    backend=self._backend(deadline.limit(cap), threads),
                )
            return None

        workers = max(int(self.threads), 1)
        threads = self.threads if workers == 1 else 1
        hand_out(workers, next_job, deadline, lambda t: None)

    def _learn_flip(self, u, ceiling, witness, result, entry):
        """What a flip MIP of pattern ``u`` within ``ceiling`` proves: no
        model changing it within the ceiling (infeasible, or a bound above
        it), or none with fewer errors than its bound. ``witness`` is the
        pooled model changing it with the fewest errors (None: none), which
        refutes a claim beyond it."""
        total = size(ceiling)
        slack = BOUND_SLACK * max(1.0, total)
        if result.status == Status.INFEASIBLE or result.bound > total + slack:
            if witness is not None:
                entry.refute("a verified model flips the pattern")
            else:
                self.proofs.record([u], ceiling)
        elif math.isfinite(result.bound) and not isinstance(ceiling, LabelCeilings):
            # Within per-label ceilings the bound says nothing of models
            # outside them, which may flip with fewer errors.
            found = np.inf if witness is None else witness.errors
            if result.bound > found + BOUND_SLACK * max(1.0, found):
                entry.refute(f"bound {result.bound:g} above a verified flip")
            else:
                self.proofs.raise_fewest(u, result.bound)

    def _ambiguity_at(self, ceiling):
        """The ambiguity at ``ceiling`` errors as far as it is known."""
        weight, total = self.problem.pattern_weight, self.problem.total_weight
        best, _ = self._flips(ceiling)
        flippable = best >= 0
        unflippable = ~flippable & self._proven_unflippable(ceiling)
        return MulticlassAmbiguity(
            float(weight[flippable].sum() / total),
            float(weight[~unflippable].sum() / total),
            flippable,
            unflippable,
            {int(u): self.pool[best[u]] for u in np.flatnonzero(flippable)},
        )

    def _flips(self, ceiling, *, since=0, into=None):
        """Per pattern, the pooled model within ``ceiling`` errors changing
        its label with the fewest errors (an index into :attr:`pool`, -1:
        none) and those errors (``inf``: none).

        ``into=(best, errors)`` updates these arrays with the models pooled
        from index ``since`` on, instead of scanning the whole pool.
        """
        n = self.problem.n_patterns
        best, errors = into or (np.full(n, -1), np.full(n, np.inf))
        for index, model in enumerate(self.pool[since:], start=since):
            if not admits(model, ceiling):
                continue
            better = (model.labels != self.baseline_labels) & (model.errors < errors)
            best[better], errors[better] = index, model.errors
        return best, errors

    def _proven_unflippable(self, ceiling):
        """Patterns proven to keep their label within ``ceiling``."""
        return self.proofs.unflippable(ceiling)

    def flips(self, budget):
        """Per pattern at ``budget`` extra errors, without solving: the pooled
        model of the level set changing its label with the fewest errors
        (``witness``, None: none known), those errors (``inf``: none), and
        whether it is proven that no model of the level set changes it."""
        ceiling = self.ceiling(budget)
        best, errors = self._flips(ceiling)
        witness = [self.pool[i] if i >= 0 else None for i in best]
        return witness, errors, (best < 0) & self._proven_unflippable(ceiling)

    def known(self, budget, weights=None, key="all"):
        """What is known at ``budget`` extra errors, without solving:
        patterns proven flippable and unflippable, and the most disagreement
        (in ``weights``, default: the patterns' weights; ``key`` names them)
        of a pooled model and its proven upper bound."""
        ceiling = self.ceiling(budget)
        flippable = self._flips(ceiling)[0] >= 0
        unflippable = ~flippable & self._proven_unflippable(ceiling)
        _, most, upper = self._discrepancy_band(ceiling, weights, key)
        return flippable, unflippable, most, upper

    def _discrepancy_band(self, ceiling, weights, key):
        """The pooled model of most disagreement within ``ceiling`` (in
        ``weights``), that disagreement and its proven upper bound."""
        weights = self.problem.pattern_weight if weights is None else weights
        best = self._most_disagreeing(ceiling, weights)
        most = 0.0 if best is None else self.disagreement(best, weights)
        # No model of the level set changes a pattern proven unchangeable.
        upper = float(weights[~self._proven_unflippable(ceiling)].sum())
        upper = min(upper, self._discrepancy_upper.get((key, ceiling), np.inf))
        if self._empty(ceiling):
            upper = 0.0
        return best, most, max(upper, most)

    def most_disagreeing(self, budget):
        """The pooled model within ``budget`` extra errors that changes the
        most weight, or None."""
        return self._most_disagreeing(self.ceiling(budget))

    def discrepancy(self, budget, deadline=None, *, weights=None, key="all"):
        """Certified largest share of weight labelled differently from the
        baseline by a model within ``budget`` extra errors.

        Parameters
        ----------
        budget : float
            Extra errors of the disagreeing model (see Notes).
        deadline : Deadline or None
            Time for the one disagreement MIP.
        weights : ndarray of shape (n_patterns,) or None
            The weight of disagreeing on each pattern (default: its training
            weight; a group's weight for the group's discrepancy), whose
            total is the share's denominator.
        key : hashable, default="all"
            The name of ``weights``, under which the proven bound is kept.

        Returns
        -------
        MulticlassDiscrepancy
        """
        deadline = deadline or Deadline(None)
        ceiling = self.ceiling(budget)
        weights = self.problem.pattern_weight if weights is None else weights
        best, lower, upper = self._discrepancy_band(ceiling, weights, key)
        if upper > lower + TOLERANCE:
            shift_search(self, budget)
            best, lower, upper = self._discrepancy_band(ceiling, weights, key)
        if upper > lower + TOLERANCE:
            hint = None if best is None else self.enc.hint_from((best.W, best.b))
            mip = formulations.max_disagreement(
                self.enc,
                self.baseline_labels,
                ceiling,
                weights=weights,
                hint=hint,
                kept_labels=kept_labels(
                    self._proven_unflippable(ceiling), self.baseline_labels
                ),
            )
            solved = self.solve(mip, deadline)
            if solved is not None:
                result, entry, _ = solved
                best, lower, _ = self._discrepancy_band(ceiling, weights, key)
                if result.status == Status.INFEASIBLE:
                    if best is None:
                        upper = 0.0
                    else:
                        entry.refute("a verified model lies in the level set")
                elif math.isfinite(result.bound):
                    if result.bound < lower - BOUND_SLACK * max(1.0, lower):
                        entry.refute(f"bound {result.bound:g} below a verified model")
                    else:
                        upper = min(upper, result.bound)
        upper = max(upper, lower)
        self._discrepancy_upper[(key, ceiling)] = upper
        total = float(weights.sum())
        return MulticlassDiscrepancy(float(lower / total), float(upper / total), best)

    def _empty(self, ceiling):
        """Whether the certified minimum error proves the level set empty."""
        known = self._min_error
        return known is not None and known.lower > size(ceiling) + TOLERANCE

    def disagreement(self, model, weights=None):
        """The weight (default: the patterns') that ``model`` labels
        differently from the baseline."""
        weights = self.problem.pattern_weight if weights is None else weights
        return float(weights[model.labels != self.baseline_labels].sum())

    def _most_disagreeing(self, ceiling, weights=None):
        found = [m for m in self.pool if admits(m, ceiling)]
        return max(found, key=lambda m: self.disagreement(m, weights), default=None)
