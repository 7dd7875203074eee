"""One audit's engine, behind the interface the estimators call.

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

from ..._core import (
    TOLERANCE,
    ClassBudget,
    PatternProblem,
    across_groups,
    along_budgets,
    disagreement_cap,
    make_hypothesis_class,
    verify,
    within_level_set,
)
from ..._mip import ConstraintContext, encode, realise
from ...backends import get_backend
from .._records import FoundModel, MinErrorFit, SessionSummary, WeightRange
from ..binary._ambiguity import AmbiguityCertifier
from ..binary._audit import audit_tolerance, is_settled, read_discrepancy
from ..binary._coefficients import coefficient_ranges
from ..binary._min_error import solve_min_error
from ..binary._new_people import flip_new_patterns
from ..binary._path_request import path_request
from ..binary._per_class import ClassBudgetCertifier
from ..binary._scalar import ScalarBudgetCertifier
from ..binary._solvers import Solvers
from ..binary._state import AuditState
from ..binary.discrepancy._certifier import DiscrepancyCertifier
from ..timing._accounts import TimeAccounts
from ..timing._scheduling import Deadline
from ._assessment import assess
from ._contract import Session


class AuditSession(Session):
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
    accounts : TimeAccounts
        Seconds each question (a tolerance's audit, a path, the minimum
        error) has spent (:mod:`._accounts`).
    groups : dict
        Pattern weights of every group, by label: their discrepancies are
        part of every tolerance's audit.
    min_error_fit : MinErrorResult or None
        The minimum error of the class, once something asked for it.

    Notes
    -----
    The estimators use the contract of :class:`~._contract.Session` only;
    the rest serves the engine and its tests. Every request takes a budget, a number
    (the overall weighted error) or a :class:`~.._core.ClassBudget` (false
    positives and negatives apart), and every result is a plain record
    (:mod:`._records`):

    - set-up: :meth:`from_data`, :meth:`min_error` (the 0-1 optimal
      classifier), :meth:`start`, :meth:`watch_row_groups`,
      :meth:`baseline_in_class`, :meth:`summary` (a ``SessionSummary``);
    - requests, each on its account of seconds (:mod:`._accounts`):
      :meth:`budget` of a tolerance, :meth:`audit` of a tolerance and
      :meth:`grant` of more time to it, :meth:`min_error_bounds`,
      :meth:`path` (``PathStep`` per tolerance), :meth:`weight_ranges`
      (``WeightRange`` per weight) and :meth:`ambiguous_people` (per person);
    - readings, at no solver time: :meth:`reading` (a ``Reading``: both
      measures and the discrepancy model), :meth:`group_readings`,
      :meth:`evidence` (per training row), :meth:`competitor` of a training
      row, :meth:`snapshot` (a running audit's progress) and :meth:`mip_log`.

    Models come back as ``FoundModel`` records, coefficients on the audited
    features.
    """

    capabilities = frozenset({"coefficient_ranges", "constraints", "integer_weights"})

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
        self.scalar = None
        self.accounts = TimeAccounts()
        self.groups = {}
        self.min_error_fit = None

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
        backend = get_backend(
            solver, threads=threads, random_state=random_state, verbose=verbose
        )
        hypothesis = make_hypothesis_class(
            weights,
            margin,
            max_weight,
            integer_only=not backend.supports_continuous,
            solver=backend.name,
        )
        problem = PatternProblem.from_data(X, y01, sample_weight, classes=(0, 1))
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
    def min_error(self, deadline, *, progress=None):
        """The certified minimum error of the class (a :class:`MinErrorResult`);
        ``progress(lower, upper)``, when given, hears the band as it narrows,
        also while the MIP runs."""
        separator = self.solvers.separator(deadline) if self.enc.n_identities else None
        return solve_min_error(
            self.enc,
            copy.copy(self.backend),
            deadline,
            separator=separator,
            split=self.solvers.support_split,
            progress=progress,
        )

    def start(self, predictions, coef, intercept, *, min_error=None):
        """Fix the baseline and open the audit.

        Parameters
        ----------
        predictions : ndarray of bool, shape (n_samples,)
            The baseline's prediction of every training row.
        coef, intercept : the baseline's linear model in the audit space.
        min_error : MinErrorResult or None
            The minimum error of this session's class when already solved
            (the 0-1 optimal baseline). Otherwise it is solved when something
            asks for it (:meth:`settle_min_error`).
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
        # No model errs less than no error at all; the minimum error raises
        # every flip's bound once it is known.
        self.state = AuditState(self.enc, baseline, 0.0)
        self.ambiguity = AmbiguityCertifier(self.state, self.solvers, self.strategy)
        self.discrepancy = DiscrepancyCertifier(
            self.state, self.solvers, self.ambiguity
        )
        self.per_class = ClassBudgetCertifier(self.state, self.solvers, self.ambiguity)
        self.scalar = ScalarBudgetCertifier(
            self.state, self.ambiguity, self.discrepancy
        )
        self.state.add_model(self._in_class(coef, intercept))
        if not self.baseline_in_class() and not self.hypothesis.integer:
            # Scaled into the class, a baseline may put a person within the
            # margin; its labelling's max-margin model may still be one.
            realised = realise(self.enc, baseline)
            if realised is not None:
                self.state.add_model(verify(self.enc, *realised, source="baseline"))
        if min_error is not None:
            self._learn_min_error(min_error)

    def baseline_in_class(self):
        """Whether a model of the class predicts every pattern as the baseline."""
        return any(
            np.array_equal(m.z[: self.problem.n_patterns], self.state.baseline)
            for m in self.state.pool.models
        )

    def settle_min_error(self, limit, per_mip=None, *, progress=None):
        """The class's minimum error, solved once, on first need, within what
        its account (``limit`` seconds) has left; a :class:`MinErrorResult`
        (``progress``: see :meth:`min_error`)."""
        if self.min_error_fit is None:
            with self.accounts.charge(("min error",), limit, per_mip) as deadline:
                self._learn_min_error(self.min_error(deadline, progress=progress))
        return self.min_error_fit

    def _learn_min_error(self, fit):
        self.min_error_fit = fit
        state = self.state
        state.record(fit.mip, fit.result)
        state.min_error_lower = max(state.min_error_lower, float(fit.lower_bound))
        state.raise_flip_lower(np.arange(self.problem.n_patterns), fit.lower_bound)
        for model in [fit.model, *fit.candidates]:
            state.add_model(model)

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

    def certifier(self, budget):
        """The certifier of ``budget``'s kind: per class for a
        :class:`~.._core.ClassBudget`, else scalar. Both answer the same
        questions by the same methods."""
        return self.per_class if isinstance(budget, ClassBudget) else self.scalar

    def certify_ambiguity(self, budget, deadline, *, exact=False, progress=None):
        """Settle the patterns at ``budget``; see :meth:`AmbiguityCertifier.certify`."""
        return self.certifier(budget).certify(budget, deadline, progress, exact=exact)

    def n_undetermined(self, budget, exact=False):
        """Patterns whose ambiguity at ``budget`` is not certified yet."""
        return self.certifier(budget).undetermined(budget, exact).size

    def ambiguity_bounds(self, budget, weights=None):
        """Certified bounds on the weighted share of flippable patterns."""
        return self.certifier(budget).ambiguity_bounds(budget, weights)

    def discrepancy_bounds(self, budget, *, weights=None, key="all", deadline=None):
        """Certified discrepancy at ``budget`` (a :class:`DiscrepancyResult`),
        tightened by the relations with ambiguity (:meth:`related`)."""
        result = self.certifier(budget).discrepancy(
            budget, weights=weights, key=key, deadline=deadline
        )
        _, bounds = self.related(budget, result.bounds, weights)
        return dataclasses.replace(result, bounds=bounds)

    def flip_evidence(self, budget):
        """Per pattern: baseline prediction, certified flippable, not proven
        unflippable, and the fewest errors of a known model flipping it."""
        certifier = self.certifier(budget)
        return (
            self.state.baseline.copy(),
            certifier.flippable(budget),
            certifier.maybe_flippable(budget),
            certifier.fewest_flip_errors(budget),
        )

    def witness(self, pattern, budget):
        """A verified model within ``budget`` flipping ``pattern``, or None."""
        return self.certifier(budget).witness(pattern, budget)

    def coefficient_ranges(self, budget, deadline):
        """Certified ends of every canonical weight over the level set.

        Call it after the audit of ``budget`` (:meth:`audit`): every pattern
        that audit proved unflippable keeps the baseline's label in every
        model of the level set, a fixed label in each weight's MIP instead
        of a big-M row.
        """
        return coefficient_ranges(
            self.state,
            self.solvers,
            budget,
            deadline,
            unflippable=~self.maybe_flippable(budget),
        )

    def maybe_flippable(self, budget):
        """Mask of the patterns not proven unflippable within ``budget``."""
        return self.certifier(budget).maybe_flippable(budget)

    def ambiguous_new(self, patterns, baseline_new, budget, deadline):
        """Which new patterns a model of the level set predicts differently.

        Call it after the audit of ``budget`` (:meth:`audit`): a new person
        who is a training pattern is answered by it, and every pattern it
        proved unflippable keeps its label in the other people's MIPs.
        """
        return flip_new_patterns(
            self.state,
            self.solvers,
            patterns,
            baseline_new,
            budget,
            unflippable=~self.maybe_flippable(budget),
            deadline=deadline,
        )

    # -- the contract (:class:`~._contract.Session`) -----------------------------
    def summary(self):
        """The set-up of the audit (a :class:`SessionSummary`)."""
        problem, hypothesis = self.problem, self.hypothesis
        return SessionSummary(
            n_patterns=problem.n_patterns,
            n_dimensions=problem.n_kept,
            n_identities=self.enc.n_identities,
            total_weight=problem.total_weight,
            hypothesis_class=hypothesis.describe(),
            integer=hypothesis.integer,
            constraints=self.constraints,
            baseline_errors=(
                None if self.state is None else self.level_set.baseline_errors
            ),
        )

    def assess(self, limit, extra_errors, feature_names=None):
        """What the audit can be expected to certify within ``limit`` seconds
        (an :class:`Assessment`), judged before any MIP runs, in at most a
        few seconds (:func:`~._assessment.assess`).

        Parameters
        ----------
        limit : float or None
            Seconds the audit of a tolerance may spend.
        extra_errors : float
            Weighted errors the level set allows beyond the baseline's.
        feature_names : sequence of str or None
            Names of the audited columns, for the routes.
        """
        return assess(self, limit, extra_errors, feature_names)

    def extra_errors(self, eps):
        """Weighted errors beyond the baseline's at tolerance ``eps`` (per
        class: on the negatives and on the positives, summed), rounded down
        to a whole number with integral weights."""
        problem = self.problem
        if isinstance(eps, tuple):
            negative, positive = problem.negative_weight, problem.positive_weight
            extra = eps[0] * negative.sum() + eps[1] * positive.sum()
        else:
            extra = eps * problem.total_weight
        if problem.weights_are_integral:
            extra = float(np.floor(extra + TOLERANCE))
        return float(extra)

    def budget(self, eps):
        """The error budget of the level set at tolerance ``eps`` (a number,
        or a ``ClassBudget`` for a ``PerClassEpsilon``)."""
        return self.level_set.budget(eps)

    def run_tolerance(self, budget, deadline):
        """Continue the audit of ``budget`` by its plan
        (:func:`~..binary._audit.audit_tolerance`)."""
        audit_tolerance(self, budget, deadline)

    def settled(self, budget):
        """Whether the state certifies every measure of ``budget``'s audit
        (:func:`~..binary._audit.is_settled`)."""
        return is_settled(self, budget)

    def measures(self, budget, weights=None, key="all"):
        """Both measures at ``budget``, related (:meth:`read`), with the model
        of most disagreement known."""
        ambiguity, result = self.read(budget, weights, key)
        return ambiguity, result.bounds, result.model

    def relate_groups(self, budget, overall, groups, weights):
        """The groups' bands related across groups (:meth:`group_bounds`)."""
        return self.group_bounds(budget, overall, groups, weights)

    def label_evidence(self, budget):
        """Per pattern: baseline prediction, certified flippable, undecided,
        fewest errors of a known model flipping it (:meth:`flip_evidence`)."""
        baseline, sure, maybe, flip_errors = self.flip_evidence(budget)
        return baseline, sure, maybe & ~sure, flip_errors

    def fewest_errors_found(self):
        """The errors of the best verified model in the state's pool."""
        return float(min(m.errors for m in self.state.pool.models))

    def found_model(self, model):
        """A verified canonical model on the audited features (or None)."""
        if model is None:
            return None
        coef, intercept = self.problem.to_original(
            model.w, model.b, scaled=self.hypothesis.scaled
        )
        return FoundModel(coef, intercept, model.errors, model.source)

    def min_error_record(self, fit):
        """A :class:`MinErrorResult` as a :class:`MinErrorFit`."""
        model = self.found_model(fit.model)
        return MinErrorFit(
            coef=model.coef.reshape(1, -1),
            intercept=np.array([model.intercept]),
            errors=model.errors,
            lower_bound=fit.lower_bound,
            status=fit.status.value,
            gap=fit.gap,
            solve_time=fit.solve_time,
            solver_status=fit.solver_status.value,
            warm_start={
                "source": fit.warm_start.source,
                "n_errors": fit.warm_start.errors,
            },
        )

    def known_min_error_bounds(self):
        """``(lower, upper)`` of the minimum error once solved, else None."""
        fit = self.min_error_fit
        return None if fit is None else (fit.lower_bound, fit.model.errors)

    def min_error_bounds(self, limit, per_mip=None, *, progress=None):
        """Certified ``(lower, upper)`` on the fewest errors of the class,
        solved once, within what its account has left of ``limit``
        (``progress``: see :meth:`min_error`)."""
        fit = self.settle_min_error(limit, per_mip, progress=progress)
        return (fit.lower_bound, fit.model.errors)

    def path(self, max_eps, step, n_discrepancy, limit, per_mip=None, *, progress=None):
        """Both measures at every tolerance up to ``max_eps`` (a list of
        :class:`PathStep`); see :func:`~..binary._path_request.path_request`."""
        return path_request(
            self, max_eps, step, n_discrepancy, limit, per_mip, progress
        )

    def weight_ranges(self, budget, limit, per_mip=None):
        """The certified ends of every weight over the level set of ``budget``
        (a list of :class:`WeightRange`), within ``limit`` seconds.

        Call it after the audit of ``budget`` (:meth:`audit`), whose proofs
        fix labels in every weight's MIP.
        """
        deadline = Deadline(limit, per_mip=per_mip)
        problem, scaled = self.problem, self.hypothesis.scaled
        return [
            WeightRange(
                column=int(problem.kept_columns[end.feature]),
                # The canonical feature is (x - offset) / scale: a weight w
                # on it is w / scale per unit of x (as ``to_original`` maps it).
                scale=float(problem.scale[end.feature]) if scaled else 1.0,
                least=end.least,
                largest=end.largest,
                sign=end.sign,
                certified=end.certified,
                least_model=self.found_model(end.least_model),
                largest_model=self.found_model(end.largest_model),
            )
            for end in self.coefficient_ranges(budget, deadline)
        ]

    def ambiguous_people(self, Z, labels, budget, limit, per_mip=None):
        """Which people a model of the level set of ``budget`` predicts
        differently from the baseline, within ``limit`` seconds.

        Call it after the audit of ``budget`` (:meth:`audit`).

        Parameters
        ----------
        Z : ndarray of shape (n_people, n_features)
            The people in the audit space.
        labels : ndarray of bool
            The baseline's prediction of every person (``True``: positive).

        Returns
        -------
        ambiguous, undecided : ndarray of bool, shape (n_people,)
            Certified ambiguous; left undecided by a limit.
        """
        deadline = Deadline(limit, per_mip=per_mip)
        patterns, inverse = np.unique(Z, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        baseline_new = np.zeros(patterns.shape[0], dtype=bool)
        baseline_new[inverse] = labels
        decided, undecided = self.ambiguous_new(
            patterns, baseline_new, budget, deadline
        )
        return decided[inverse], undecided[inverse]

    # -- bands: every reported pair of bounds, related -----------------------------
    # Every band goes through :meth:`related` (one level set),
    # :meth:`path_bounds` (along tolerances) or :meth:`group_bounds` (across
    # groups), which apply the relations of :mod:`..._core._relations`.
    def read(self, budget, weights=None, key="all"):
        """Both measures at ``budget`` as the state knows them, each related to
        the other (:meth:`related`), with no solver call.

        Returns
        -------
        ambiguity : Bounds
        discrepancy : DiscrepancyResult
        """
        result = read_discrepancy(self, budget, weights, key)
        ambiguity, _ = self.related(budget, result.bounds, weights)
        return ambiguity, result

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

    def snapshot(self, budget):
        """What the audit of ``budget`` has decided so far, read without
        changing anything (safe from a progress thread).

        Returns
        -------
        dict
            ``total`` weight, weight ``flipped`` (certified flippable) and
            ``proven`` (unflippable), and ``disagreement``, the most weight a
            known model of the level set flips.
        """
        weights = self.problem.pattern_weight
        _, sure, maybe, _ = self.flip_evidence(budget)
        _, disagreement = self.state.best_within(budget, weights)
        return {
            "total": float(weights.sum()),
            "flipped": float(weights[sure].sum()),
            "proven": float(weights[~maybe].sum()),
            "disagreement": float(disagreement),
        }
