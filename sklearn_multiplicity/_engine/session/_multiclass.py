"""The audit of a K-class baseline, behind the estimators' interface.

:class:`MulticlassSession` answers the requests and readings that
:class:`~sklearn_multiplicity.MultiplicityAuditor` and
:class:`~sklearn_multiplicity.ZeroOneLinearClassifier` make of a K-class
audit (K >= 3) with the records of :mod:`._records`, under the same time
model as the binary session (:mod:`..timing._accounts`): one account of seconds per
tolerance, spent over the calls that ask about it; readings cost nothing.
The measures come from :class:`~._multiclass.MulticlassCertifier`.
"""

import numpy as np

from ..._core import TOLERANCE, Bounds, LabelCeilings, PatternProblem
from ..._core._hypothesis import MulticlassBoxMargin
from .._records import FoundModel, MinErrorFit, SessionSummary, group_key
from ..multiclass._certifier import MulticlassCertifier
from ..multiclass._path import multiclass_path
from ..multiclass._people import LabelProofs, label_sets
from ..timing._accounts import TimeAccounts
from ..timing._plans import PLANS, Schedule
from ..timing._scheduling import Deadline
from ._assessment import assess_labels
from ._contract import Session


class MulticlassSession(Session):
    """One K-class audit: the problem, the baseline's labels and what is known.

    Build it with :meth:`from_data`; :meth:`min_error` alone fits the 0-1
    optimal K-class classifier, :meth:`start` opens the audit of a baseline.

    Parameters
    ----------
    problem : PatternProblem
    hypothesis : MulticlassBoxMargin
    solver : str or Backend
    threads : int
    """

    def __init__(self, problem, hypothesis, solver, threads):
        self.problem = problem
        self.hypothesis = hypothesis
        self.solver = solver
        self.threads = threads
        self.accounts = TimeAccounts()
        self.certifier = None
        self.label_proofs = LabelProofs()
        self.groups = {}

    @classmethod
    def from_data(
        cls, X, y, weight, classes, *, solver="highs", margin=1e-3, threads=1
    ):
        """The session of training data ``X`` with labels ``y`` (values of
        ``classes``) and row weights ``weight``."""
        problem = PatternProblem.from_data(X, y, weight, classes=classes)
        return cls(problem, MulticlassBoxMargin(margin=margin), solver, threads)

    # -- set-up ------------------------------------------------------------------
    def min_error(self, deadline, *, progress=None):
        """The certified fewest errors of the class (a ``MulticlassMinError``),
        from an audit of the first class's constant labelling when none is
        open; ``progress(lower, upper)`` hears the band at the end."""
        if self.certifier is None:
            constant = np.zeros(self.problem.n_patterns, dtype=np.int64)
            self.certifier = self._certifier(constant)
        found = self.certifier.min_error(deadline)
        if progress is not None:
            progress(found.lower, found.upper)
        return found

    def start(self, row_labels, coef, intercept):
        """Open the audit of a baseline labelling every training row
        ``row_labels`` (indices into the classes), with canonical
        coefficients ``(coef, intercept)`` (class 0 at 0) when known."""
        problem = self.problem
        labels = np.zeros(problem.n_patterns, dtype=np.int64)
        active = problem.inverse >= 0
        labels[problem.inverse[active]] = row_labels[active]
        # Scaled into the class (if the margin allows), the baseline's own
        # model is a witness of its level sets.
        model = None
        if coef is not None:
            model = self.hypothesis.fit_model(problem, coef, intercept)
        self.certifier = self._certifier(labels, model, prior=self.certifier)

    def _certifier(self, labels, model=None, prior=None):
        return MulticlassCertifier(
            self.problem,
            labels,
            hypothesis=self.hypothesis,
            solver=self.solver,
            threads=self.threads,
            baseline_model=model,
            prior=prior,
        )

    def canonical(self, coef, intercept):
        """A model on the user's features (``coef`` (K, d), ``intercept``
        (K,)) as canonical ``(W, b)`` with class 0 at 0."""
        problem = self.problem
        kept = problem.kept_columns
        coef = np.asarray(coef, dtype=float)
        intercept = np.asarray(intercept, dtype=float)
        relative = coef[1:] - coef[0]
        W = relative[:, kept] * problem.scale
        b = intercept[1:] - intercept[0] + relative[:, kept] @ problem.offset
        return W, b

    def original(self, W, b):
        """Canonical ``(W, b)`` as ``(coef (K, d), intercept (K,))`` on the
        user's features, class 0's row at 0."""
        problem = self.problem
        K, d = problem.n_classes, problem.n_features
        coef, intercept = np.zeros((K, d)), np.zeros(K)
        per_unit = W / problem.scale
        coef[1:, problem.kept_columns] = per_unit
        intercept[1:] = b - per_unit @ problem.offset
        return coef, intercept

    def min_error_record(self, fit):
        """A ``MulticlassMinError`` as a :class:`MinErrorFit`."""
        found = self.found_model(fit.model)
        log = self.mip_log()
        return MinErrorFit(
            coef=found.coef,
            intercept=found.intercept,
            errors=found.errors,
            lower_bound=fit.lower,
            status=fit.status.value,
            gap=(fit.upper - fit.lower) / fit.upper if fit.upper > 0 else 0.0,
            solve_time=float(sum(entry["seconds"] for entry in log)),
            solver_status=log[-1]["status"] if log else fit.status.value,
            warm_start={"source": found.source, "n_errors": found.errors},
        )

    def found_model(self, model):
        """A verified canonical model as a :class:`FoundModel` on the user's
        features (``coef`` of shape (K, d), ``intercept`` of shape (K,))."""
        if model is None:
            return None
        coef, intercept = self.original(model.W, model.b)
        return FoundModel(coef, intercept, model.errors, model.source)

    def summary(self):
        """The set-up of the audit (a :class:`SessionSummary`)."""
        problem = self.problem
        certifier = self.certifier
        return SessionSummary(
            n_patterns=problem.n_patterns,
            n_dimensions=problem.n_kept,
            n_identities=0 if certifier is None else certifier.enc.n_identities,
            total_weight=problem.total_weight,
            hypothesis_class=self.hypothesis.describe(),
            integer=False,
            constraints=[],
            baseline_errors=None if certifier is None else certifier.baseline_errors,
        )

    def assess(self, limit, extra_errors, feature_names=None):
        """What the audit can be expected to certify within ``limit`` seconds
        (an :class:`Assessment`; :func:`~._assessment.assess_labels`);
        ``feature_names`` name no route for K labels."""
        return assess_labels(self, limit, extra_errors)

    # -- requests (they spend time) ----------------------------------------------
    def budget(self, eps):
        """Largest weighted error of a model of the ``eps``-level set; for
        per-class tolerances (a ``PerClassEpsilon``, one per label), the
        largest on each true label, as :class:`LabelCeilings`:
        ``errors_k(h0) + eps_k * W_k``, each allowance rounded down to a
        whole number with integral weights."""
        problem = self.problem
        if isinstance(eps, tuple):
            baseline = problem.label_errors(self.certifier.baseline_labels)
            extra = np.asarray(eps, dtype=float) * problem.counts.sum(axis=0)
            if problem.weights_are_integral:
                extra = np.floor(extra + TOLERANCE)
            return LabelCeilings(tuple(float(c) for c in baseline + extra))
        extra = eps * problem.total_weight
        if problem.weights_are_integral:
            extra = float(np.floor(extra + TOLERANCE))
        return self.certifier.baseline_errors + extra

    def extra_errors(self, eps):
        """Weighted errors beyond the baseline's at tolerance ``eps`` (per
        label: each label's allowance, summed), each rounded down to a whole
        number with integral weights."""
        problem = self.problem
        if isinstance(eps, tuple):
            extra = np.asarray(eps, dtype=float) * problem.counts.sum(axis=0)
        else:
            extra = np.array([eps * problem.total_weight])
        if problem.weights_are_integral:
            extra = np.floor(extra + TOLERANCE)
        return float(extra.sum())

    def extra(self, budget):
        """What the certifier takes of a budget: the extra errors over the
        baseline's, or the per-label ceilings as they are."""
        if isinstance(budget, LabelCeilings):
            return budget
        return budget - self.certifier.baseline_errors

    def run_tolerance(self, budget, deadline):
        """Continue the audit of ``budget`` by its plan until ``deadline``:
        ambiguity, then discrepancy, then each group's discrepancy."""
        certifier = self.certifier
        extra = self.extra(budget)
        holds = ("groups",) if self.groups else ()
        plan = Schedule(PLANS["K-class audit"], deadline, holds)
        certifier.ambiguity(extra, plan.step("ambiguity"))
        certifier.discrepancy(extra, plan.step("discrepancy"))
        for label, weights in self.groups.items():
            certifier.discrepancy(
                extra, plan.step("groups"), weights=weights, key=group_key(label)
            )

    def settled(self, budget):
        """Whether every measure of ``budget``'s audit is certified, overall
        and in every group."""
        readings = [self.reading(budget)]
        if self.groups:
            readings.extend(self.group_readings(budget).groups)
        return all(r.ambiguity.certified and r.discrepancy.certified for r in readings)

    def path(self, max_eps, step, n_discrepancy, limit, per_mip=None, *, progress=None):
        """Both measures at every tolerance up to ``max_eps`` (a list of
        :class:`PathStep`; see :func:`~..multiclass._path.multiclass_path`).
        ``progress`` hears nothing: the K-label path reports no partial bands."""
        return multiclass_path(self, max_eps, step, n_discrepancy, limit, per_mip)

    def known_min_error_bounds(self):
        """``(lower, upper)`` of the minimum error once solved, else None."""
        known = None if self.certifier is None else self.certifier.known_min_error
        return None if known is None else (known.lower, known.upper)

    def min_error_bounds(self, limit, per_mip=None, *, progress=None):
        """Certified ``(lower, upper)`` on the fewest errors of the class,
        solved once, on first need (the default baseline's fit solves it),
        within what its account has left of ``limit``: as for two labels, a
        later request reads it rather than solving past the limit again."""
        known = self.known_min_error_bounds()
        if known is not None:
            return known
        with self.accounts.charge(("min error",), limit, per_mip) as deadline:
            found = self.min_error(deadline, progress=progress)
        return (found.lower, found.upper)

    def label_sets(self, Z, labels, budget, limit, per_mip=None, *, any_other=False):
        """The labels models of the level set of ``budget`` give people ``Z``
        (in the audit space; ``labels``: the baseline's label index of each),
        within ``limit`` seconds (``per_mip`` each).

        Call it after the audit of ``budget`` (:meth:`audit`), whose proofs
        fix labels in the people's MIPs. Each distinct person is asked alone
        (:func:`~._multiclass_people.label_sets`); ``any_other`` stops at
        their first label other than the baseline's.

        Returns
        -------
        reachable, open_ : ndarray of bool, shape (n_people, n_classes)
            Labels certified given by a model of the level set; labels left
            undecided by a limit.
        """
        canonical = self.problem.canonical(np.asarray(Z, dtype=float))
        distinct, first, inverse = np.unique(
            canonical, axis=0, return_index=True, return_inverse=True
        )
        inverse = inverse.ravel()
        extra = self.extra(budget)
        reachable, open_ = label_sets(
            self.certifier,
            self.label_proofs,
            distinct,
            np.asarray(labels)[first],
            extra,
            Deadline(limit, per_mip=per_mip),
            any_other=any_other,
        )
        return reachable[inverse], open_[inverse]

    def ambiguous_people(self, Z, labels, budget, limit, per_mip=None):
        """Which people a model of the level set of ``budget`` gives another
        label than the baseline's ``labels``: certified ambiguous, and left
        undecided by a limit (see :meth:`label_sets`)."""
        reachable, open_ = self.label_sets(
            Z, labels, budget, limit, per_mip, any_other=True
        )
        ambiguous = reachable.sum(axis=1) > 1
        return ambiguous, open_.any(axis=1) & ~ambiguous

    # -- readings (no solver time) -----------------------------------------------
    def measures(self, budget, weights=None, key="all"):
        """Both measures at ``budget`` over ``weights`` (``None``: everyone)
        from all that the audit knows now, no solver time: every verified
        model and proof, whichever request found it. Ambiguity is the share
        of the weight on patterns proven changeable (and not proven
        unchangeable), discrepancy the most of it one model of the level set
        changes."""
        certifier, problem = self.certifier, self.problem
        extra = self.extra(budget)
        if weights is None:
            flippable, unflippable, most, upper = certifier.known(extra)
            weight, total = problem.pattern_weight, problem.total_weight
            model = certifier.most_disagreeing(extra)
        else:
            flippable, unflippable, most, upper = certifier.known(
                extra, weights, key=key
            )
            weight, total, model = weights, float(weights.sum()), None
        return (
            Bounds(
                float(weight[flippable].sum() / total),
                float(weight[~unflippable].sum() / total),
            ),
            Bounds(float(most / total), float(upper / total)),
            model,
        )

    def people(self, budget):
        """Every training row's standing at ``budget``, as far as its audit
        got (no solver time).

        Returns
        -------
        baseline : ndarray of int, shape (n_samples,)
            The baseline's label (an index into the classes; -1 on rows of
            zero weight, which no audit covers).
        labels_found : ndarray of bool, shape (n_samples, n_classes)
            The labels that verified models of the level set give the row
            (the baseline's among them).
        ambiguous, undecided : ndarray of bool, shape (n_samples,)
            Certified ambiguous; neither certified ambiguous nor proven
            unambiguous (a limit stopped its audit).
        """
        certifier, problem = self.certifier, self.problem
        extra = self.extra(budget)
        flippable, unflippable, _, _ = certifier.known(extra)
        found = np.zeros((problem.n_patterns, problem.n_classes), dtype=bool)
        found[np.arange(problem.n_patterns), certifier.baseline_labels] = True
        for model in certifier.within(extra):
            found[np.arange(problem.n_patterns), model.labels] = True
        # Rows of zero weight are in no pattern: not audited, undecided.
        active = problem.inverse >= 0
        rows = np.where(active, problem.inverse, 0)
        undecided = ~flippable & ~unflippable
        return (
            np.where(active, certifier.baseline_labels[rows], -1),
            found[rows] & active[:, None],
            flippable[rows] & active,
            undecided[rows] | ~active,
        )

    def label_evidence(self, budget):
        """Per pattern: the baseline's label index, contestable (a verified
        model of the level set gives another label), undecided (neither that
        nor proven unchangeable), and the fewest errors of such a model (NaN:
        none known)."""
        certifier = self.certifier
        witness, errors, unflippable = certifier.flips(self.extra(budget))
        contestable = np.array([model is not None for model in witness])
        errors = np.where(np.isfinite(errors), errors, np.nan)
        return (
            certifier.baseline_labels,
            contestable,
            ~contestable & ~unflippable,
            errors,
        )

    def fewest_errors_found(self):
        """The errors of the best verified model in the certifier's pool."""
        return float(min(m.errors for m in self.certifier.pool))

    def witness(self, pattern, budget):
        """The verified model of fewest errors known that gives ``pattern``
        another label than the baseline's within ``budget``, or None."""
        witness, _, _ = self.certifier.flips(self.extra(budget))
        return witness[pattern]

    def snapshot(self, budget):
        """What the audit of ``budget`` knows now (a running audit's
        progress): the total weight, the weight of people proven flippable
        and proven unflippable, and the most disagreement found."""
        extra = self.extra(budget)
        flippable, unflippable, disagreement, _ = self.certifier.known(extra)
        weight = self.problem.pattern_weight
        return {
            "total": float(weight.sum()),
            "flipped": float(weight[flippable].sum()),
            "proven": float(weight[unflippable].sum()),
            "disagreement": disagreement,
        }

    @property
    def log(self):
        """Every solve so far (none before an audit is open)."""
        return [] if self.certifier is None else self.certifier.log
