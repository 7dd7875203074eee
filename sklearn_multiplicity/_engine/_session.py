"""One audit's engine, behind the methods the estimators call.

:class:`AuditSession` owns the set-up that :class:`ZeroOneLinearClassifier`
and :class:`MultiplicityAuditor` share (the pattern problem, the hypothesis
class, its encoding, the backend) and, once :meth:`AuditSession.start` has
fixed the baseline, the :class:`~._state.AuditState` with its ambiguity and
discrepancy certifiers. Every request takes its :class:`~._scheduling.Deadline`
explicitly.
"""

import copy
import dataclasses

import numpy as np

from .._core import (
    ClassBudget,
    PatternProblem,
    across_groups,
    along_budgets,
    disagreement_cap,
    make_hypothesis_class,
    verify,
    within_level_set,
)
from .._mip import ConstraintContext, encode
from ..backends import get_backend
from ._ambiguity import AmbiguityCertifier
from ._coefficients import coefficient_ranges
from ._discrepancy import DiscrepancyCertifier
from ._min_error import solve_min_error
from ._new_people import flip_new_patterns
from ._per_class import ClassBudgetCertifier
from ._solvers import Solvers
from ._state import AuditState

#: Most of a coefficient-ranges request's time that settling ambiguity at
#: its budget may take (its proofs fix labels in every weight's MIP).
RANGES_AMBIGUITY_SHARE = 0.5
#: Most of a new-people request's time that settling ambiguity at its budget
#: may take (its answers and proofs serve every new person).
NEW_PEOPLE_SETTLE_SHARE = 0.5


class AuditSession:
    """The engine of one audit: set-up, then everything certified so far.

    Build it with :meth:`from_data`; :meth:`min_error` alone fits the 0-1
    optimal classifier, :meth:`start` fixes a baseline and opens the audit.

    Parameters
    ----------
    problem : PatternProblem
    hypothesis : BoxMargin or IntegerWeights
    enc : Encoding
    backend : Backend
    n_jobs : int, default=1
        MIPs solved at once in threads.
    strategy : {"each", "batch"}, default="each"
        How ambiguity settles undecided patterns.
    cuts : bool, default=True
        Whether the encodings (also those extended with new people) carry
        affine-identity rows.
    random_state : int or None, default=None

    Attributes
    ----------
    state : AuditState or None
        What is certified so far (``None`` before :meth:`start`).
    ambiguity : AmbiguityCertifier or None
    discrepancy : DiscrepancyCertifier or None
    per_class : ClassBudgetCertifier or None
        Ambiguity and discrepancy at per-class budgets.

    Every request takes a budget: a number (the overall weighted error) or a
    :class:`~.._core.ClassBudget` (false positives and negatives apart).
    """

    def __init__(
        self,
        problem,
        hypothesis,
        enc,
        backend,
        *,
        n_jobs=1,
        strategy="each",
        cuts=True,
        random_state=None,
    ):
        self.problem = problem
        self.hypothesis = hypothesis
        self.enc = enc
        self.solvers = Solvers(enc, backend, n_jobs=n_jobs)
        self.strategy = strategy
        self.cuts = cuts
        self.random_state = random_state
        self.state = None
        self.ambiguity = None
        self.discrepancy = None
        self.per_class = None

    @classmethod
    def from_data(
        cls,
        X,
        y01,
        sample_weight=None,
        *,
        solver="auto",
        weights="auto",
        margin=1e-3,
        max_weight=10,
        cuts=True,
        threads=1,
        n_jobs=1,
        strategy="each",
        random_state=None,
        verbose=0,
        constraints=(),
        groups=None,
        feature_names=None,
    ):
        """Compress ``(X, y01)`` and build the encoding and backend of its MIPs.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Finite features (the audit space).
        y01 : ndarray of int, shape (n_samples,)
            Labels in {0, 1}.
        sample_weight : ndarray of shape (n_samples,) or None
        solver, weights, margin, max_weight, cuts
            The backend and hypothesis class, as the estimators document them.
        threads : int
            Solver threads of a single MIP.
        n_jobs, strategy, random_state
            As in the constructor.
        verbose : int
            Solver logs when > 1.
        constraints : sequence
            Constraints on the class: objects whose ``bind(context)`` (a
            :class:`~.._mip.ConstraintContext`) returns the rows to add.
        groups : ndarray of shape (n_samples,) or None
            The groups of the rows, for constraints on groups.
        feature_names : sequence of str or None
            Names of the columns of ``X``, for constraints on features.
        """
        hypothesis = make_hypothesis_class(weights, solver, margin, max_weight)
        backend = get_backend(
            solver, threads=threads, random_state=random_state, verbose=verbose
        )
        problem = PatternProblem.from_data(X, y01, sample_weight)
        if hypothesis.integer:
            hypothesis.check_data(problem)
        context = ConstraintContext(
            problem,
            np.asarray(y01),
            np.ones(len(y01)) if sample_weight is None else np.asarray(sample_weight),
            groups,
            feature_names,
            hypothesis.integer,
        )
        bound = [constraint.bind(context) for constraint in constraints or ()]
        enc = encode(problem, hypothesis, cuts=cuts, constraints=bound)
        return cls(
            problem,
            hypothesis,
            enc,
            backend,
            n_jobs=n_jobs,
            strategy=strategy,
            cuts=cuts,
            random_state=random_state,
        )

    # -- time --------------------------------------------------------------------
    @property
    def backend(self):
        """The backend that solves every MIP of the session."""
        return self.solvers.backend

    @backend.setter
    def backend(self, backend):
        self.solvers.backend = backend

    # -- set-up ------------------------------------------------------------------
    def min_error(self, deadline):
        """The certified minimum error of the class (a :class:`MinErrorResult`)."""
        separator = self.solvers.separator(deadline) if self.enc.n_identities else None
        return solve_min_error(
            self.enc,
            copy.copy(self.backend),
            deadline,
            random_state=self.random_state,
            separator=separator,
            split=self.solvers.support_split,
        )

    def start(self, predictions, coef, intercept, deadline, *, min_error=None):
        """Fix the baseline and open the audit.

        Parameters
        ----------
        predictions : ndarray of bool, shape (n_samples,)
            The baseline's prediction of every training row.
        coef, intercept : the baseline's linear model in the audit space.
        deadline : Deadline
            For the minimum-error MIP.
        min_error : MinErrorResult or None
            The minimum error of this session's class when already solved
            (the 0-1 optimal baseline); not solved again.

        Returns
        -------
        MinErrorResult
            The certified minimum error of the class.
        """
        problem = self.problem
        baseline = np.zeros(problem.n_patterns, dtype=bool)
        active = problem.inverse >= 0
        baseline[problem.inverse[active]] = predictions[active]
        if not self._meets_constraints(baseline, coef, intercept):
            raise ValueError(
                "The baseline does not meet the constraints ("
                + "; ".join(self.constraints)
                + "): its competitors would be held to rules it breaks. Fit "
                "the baseline under the same constraints (the default "
                "estimator does)."
            )
        fit = self.min_error(deadline) if min_error is None else min_error
        self.state = AuditState(self.enc, baseline, fit.lower_bound)
        self.ambiguity = AmbiguityCertifier(self.state, self.solvers, self.strategy)
        self.discrepancy = DiscrepancyCertifier(
            self.state, self.solvers, self.ambiguity
        )
        self.per_class = ClassBudgetCertifier(self.state, self.solvers, self.ambiguity)
        self.state.record(fit.mip, fit.result)
        for model in [fit.model, *fit.candidates, self._in_class(coef, intercept)]:
            self.state.add_model(model)
        return fit

    def _meets_constraints(self, baseline, coef, intercept):
        """Whether the baseline (its weights, its pattern predictions) meets
        every constraint of the class; its scale is irrelevant to them."""
        if not self.enc.constraints:
            return True
        w, b = self.problem.from_original(
            coef, intercept, scaled=self.hypothesis.scaled
        )
        model = dataclasses.replace(verify(self.enc, w, b), z=baseline)
        slack = 1e-9 * max(1.0, np.abs(w).max(initial=0.0), abs(b))
        return all(c.satisfied(self.enc, model, slack) for c in self.enc.constraints)

    @property
    def constraints(self):
        """One line per constraint in force on the class."""
        return [constraint.describe() for constraint in self.enc.constraints]

    def _in_class(self, coef, intercept):
        """The verified model of the class closest to ``(coef, intercept)``."""
        hypothesis = self.hypothesis
        w, b = self.problem.from_original(coef, intercept, scaled=hypothesis.scaled)
        fitted = hypothesis.fit_model(self.problem, w, b)
        return None if fitted is None else verify(self.enc, *fitted, source="baseline")

    # -- requests ----------------------------------------------------------------
    @property
    def level_set(self):
        """Budgets of the level sets around the baseline."""
        return self.state.level_set

    @property
    def log(self):
        """Every solve so far (a list of :class:`MIPLogEntry`)."""
        return self.state.log

    def certify_ambiguity(self, budget, deadline, *, exact=False, progress=None):
        """Settle the patterns at ``budget``; see :meth:`AmbiguityCertifier.certify`."""
        if isinstance(budget, ClassBudget):
            return self.per_class.certify(budget, deadline, progress)
        return self.ambiguity.certify(
            budget, exact=exact, deadline=deadline, progress=progress
        )

    def n_undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` is not certified yet."""
        if isinstance(budget, ClassBudget):
            return self.per_class.undetermined(budget).size
        return self.state.undetermined(budget, exact).size

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        if isinstance(budget, ClassBudget):
            return self.per_class.ambiguity_bounds(budget, weights)
        return self.state.ambiguity_bounds(budget, weights)

    def discrepancy_bounds(self, budget, *, weights=None, key="all", deadline=None):
        """Certified discrepancy at ``budget`` (a :class:`DiscrepancyResult`),
        tightened by the relations with ambiguity (:meth:`related`)."""
        certifier = (
            self.per_class if isinstance(budget, ClassBudget) else self.discrepancy
        )
        result = certifier.discrepancy(
            budget, weights=weights, key=key, deadline=deadline
        )
        _, bounds = self.related(budget, result.bounds, weights)
        return dataclasses.replace(result, bounds=bounds)

    def related(self, budget, discrepancy, weights=None):
        """``(ambiguity, discrepancy)`` bounds at ``budget``, each tightened by
        the other and by ``err(h0) + budget`` (:mod:`.._core._relations`).

        Every reported pair of bounds goes through here, or through
        :meth:`path_bounds` and :meth:`group_bounds`, which call it.
        """
        ambiguity = self.ambiguity_bounds(budget, weights)
        return self.related_pair(budget, ambiguity, discrepancy, weights)

    def path_bounds(self, budgets, discrepancy):
        """Both measures along non-decreasing ``budgets``, related at each
        budget and made monotone along them.

        Parameters
        ----------
        budgets : sequence of float or ClassBudget
        discrepancy : sequence of Bounds
            The discrepancy bounds at each budget.

        Returns
        -------
        ambiguity, discrepancy : list of Bounds
        """
        pairs = [
            self.related(budget, disc)
            for budget, disc in zip(budgets, discrepancy, strict=True)
        ]
        ambiguity = along_budgets([amb for amb, _ in pairs])
        discrepancy = along_budgets([disc for _, disc in pairs])
        # Monotonicity may have moved one measure: relate them once more.
        pairs = [
            self.related_pair(budget, amb, disc)
            for budget, amb, disc in zip(budgets, ambiguity, discrepancy, strict=True)
        ]
        return [amb for amb, _ in pairs], [disc for _, disc in pairs]

    def related_pair(self, budget, ambiguity, discrepancy, weights=None):
        """:meth:`related` with the ambiguity bounds given."""
        weights = self.problem.pattern_weight if weights is None else weights
        cap = disagreement_cap(self.state.baseline_errors, budget, weights.sum())
        return within_level_set(ambiguity, discrepancy, cap)

    def group_bounds(self, budget, overall, groups, group_weights):
        """Overall and group bounds of both measures at ``budget``, related
        within each level set and across the groups (a partition).

        Parameters
        ----------
        overall : tuple of Bounds
            ``(ambiguity, discrepancy)`` over all people.
        groups : list of tuple of Bounds
            The same for each group.
        group_weights : list of ndarray
            Pattern weights of each group.

        Returns
        -------
        overall : tuple of Bounds
        groups : list of tuple of Bounds
        """
        sizes = [float(w.sum()) for w in group_weights]
        for _ in range(2):  # each relation can feed the other once
            overall = self.related_pair(budget, *overall)
            groups = [
                self.related_pair(budget, amb, disc, weights)
                for (amb, disc), weights in zip(groups, group_weights, strict=True)
            ]
            overall, groups = across_groups(overall, groups, sizes)
        return overall, groups

    def flip_evidence(self, budget):
        """Per pattern: baseline prediction, certified flippable, not proven
        unflippable, and the fewest errors of a known model flipping it."""
        state = self.state
        if isinstance(budget, ClassBudget):
            per_class = self.per_class
            return (
                state.baseline.copy(),
                per_class.flippable(budget),
                per_class.maybe_flippable(budget),
                per_class.fewest_flip_errors(budget),
            )
        return (
            state.baseline.copy(),
            state.flippable(budget),
            state.maybe_flippable(budget),
            state.flip_upper.copy(),
        )

    def competing_model(self, pattern, budget):
        """A verified model within ``budget`` flipping ``pattern``, or None."""
        if pattern < 0:
            return None
        if isinstance(budget, ClassBudget):
            return self.per_class.witness(pattern, budget)
        if not self.state.flippable(budget)[pattern]:
            return None
        return self.state.witness_of(pattern)

    def coefficient_ranges(self, budget, deadline):
        """Certified ends of every canonical weight over the level set.

        Ambiguity at ``budget`` is settled first (with at most
        ``RANGES_AMBIGUITY_SHARE`` of the time): every pattern it proves
        unflippable keeps the baseline's label in every model of the level
        set, a fixed label in each weight's MIP instead of a big-M row.
        """
        self.certify_ambiguity(budget, deadline.share(RANGES_AMBIGUITY_SHARE))
        return coefficient_ranges(
            self.state,
            self.solvers,
            budget,
            deadline,
            unflippable=~self.maybe_flippable(budget),
        )

    def maybe_flippable(self, budget):
        """Mask of the patterns not proven unflippable within ``budget``."""
        if isinstance(budget, ClassBudget):
            return self.per_class.maybe_flippable(budget)
        return self.state.maybe_flippable(budget)

    def pattern_weights(self, rows, row_weight):
        """Weight of every pattern counting only the training ``rows`` (a mask)."""
        problem = self.problem
        mask = rows & (problem.inverse >= 0)
        return np.bincount(
            problem.inverse[mask],
            weights=row_weight[mask],
            minlength=problem.n_patterns,
        )

    def ambiguous_new(self, patterns, baseline_new, budget, deadline):
        """Which new patterns a model of the level set predicts differently.

        Ambiguity at ``budget`` is settled first (with at most
        ``NEW_PEOPLE_SETTLE_SHARE`` of the time): a new person who is a
        training pattern is answered by it, and every pattern it proves
        unflippable keeps its label in the other people's MIPs.
        """
        self.certify_ambiguity(budget, deadline.share(NEW_PEOPLE_SETTLE_SHARE))
        return flip_new_patterns(
            self.state,
            self.solvers,
            patterns,
            baseline_new,
            budget,
            unflippable=~self.maybe_flippable(budget),
            deadline=deadline,
        )
