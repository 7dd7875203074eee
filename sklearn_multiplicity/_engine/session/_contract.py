"""The estimators' interface to an audit: requests and readings that return
plain records (:mod:`._records`).

The estimators call :class:`~._session.AuditSession` through these methods
(and its set-up: ``from_data``, ``min_error``, ``start``, ``baseline_in_class``)
only: they pass tolerances, budgets, time limits and arrays of the audit
space, and get numbers, bounds, per-row arrays and models on the audited
features back, never the audit state or its certifiers.
"""

import contextlib

import numpy as np

from .._records import (
    Evidence,
    FoundModel,
    GroupReading,
    GroupReadings,
    Reading,
    SessionSummary,
    WeightRange,
)
from ..binary._audit import audit_tolerance, group_key, is_settled
from ..binary._path_request import path_request
from ..timing._scheduling import Deadline
from ._assessment import assess


class SessionInterface:
    """The requests and readings of :class:`~._session.AuditSession` that the
    estimators make.

    Reads its ``problem``, ``hypothesis``, ``enc``, ``state``, ``accounts``
    and ``groups``, and its engine methods (``read``, ``flip_evidence``,
    ``competing_model``, ``coefficient_ranges``, ``ambiguous_new``,
    ``settle_min_error``, ``group_bounds``).
    """

    # -- set-up ------------------------------------------------------------------
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

    def watch_row_groups(self, groups, row_weight):
        """Make the discrepancy of every group of training rows part of every
        tolerance's audit.

        Parameters
        ----------
        groups : ndarray of shape (n_samples,)
            The group of every training row.
        row_weight : ndarray of shape (n_samples,)
        """
        self.watch_groups(
            {
                label: self.pattern_weights(groups == label, row_weight)
                for label in np.unique(groups)
            }
        )

    # -- requests (they spend time) ----------------------------------------------
    def budget(self, eps):
        """The error budget of the level set at tolerance ``eps`` (a number,
        or a ``ClassBudget`` for a ``PerClassEpsilon``)."""
        return self.level_set.budget(eps)

    def audit(self, budget, limit, per_mip=None, *, watching=contextlib.nullcontext):
        """Run, or continue, the audit of the tolerance of ``budget``.

        It spends at most what the tolerance's account has left of ``limit``
        seconds (``None``: no limit), and nothing when the state already
        settles it (:func:`~._audit.is_settled`); ``watching()`` is the
        context of a run (a progress bar). A run that leaves it open closes
        the account until :meth:`grant`.
        """

        def work(deadline):
            if not deadline.expired():
                with watching():
                    audit_tolerance(self, budget, deadline)

        self.accounts.spend(
            ("tolerance", budget),
            limit,
            per_mip,
            work,
            settled=lambda: is_settled(self, budget),
        )

    def grant(self, budget, seconds, limit):
        """Let the audit of ``budget`` spend ``seconds`` more (``refine``)."""
        self.accounts.grant(("tolerance", budget), seconds, limit)

    def min_error_bounds(self, limit, per_mip=None, *, progress=None):
        """Certified ``(lower, upper)`` on the fewest errors of the class,
        solved once, within what its account has left of ``limit``
        (``progress``: see :meth:`min_error`)."""
        fit = self.settle_min_error(limit, per_mip, progress=progress)
        return (fit.lower_bound, fit.model.errors)

    def path(self, max_eps, step, n_discrepancy, limit, per_mip=None, *, progress=None):
        """Both measures at every tolerance up to ``max_eps`` (a list of
        :class:`PathStep`); see :func:`~._path_request.path_request`."""
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

    def ambiguous_people(self, Z, predictions, budget, limit, per_mip=None):
        """Which people a model of the level set of ``budget`` predicts
        differently from the baseline, within ``limit`` seconds.

        Call it after the audit of ``budget`` (:meth:`audit`).

        Parameters
        ----------
        Z : ndarray of shape (n_people, n_features)
            The people in the audit space.
        predictions : ndarray of bool
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
        baseline_new[inverse] = predictions
        decided, undecided = self.ambiguous_new(
            patterns, baseline_new, budget, deadline
        )
        return decided[inverse], undecided[inverse]

    # -- readings (no solver time) -----------------------------------------------
    def reading(self, budget):
        """Both measures over all people at ``budget`` (a :class:`Reading`)."""
        ambiguity, result = self.read(budget)
        return Reading(ambiguity, result.bounds, self.found_model(result.model))

    def group_readings(self, budget):
        """Both measures overall and per watched group at ``budget``, related
        across the groups (a :class:`GroupReadings`)."""
        ambiguity, result = self.read(budget)
        labels = list(self.groups)
        weights = [self.groups[label] for label in labels]
        groups = []
        for label, group_weights in zip(labels, weights, strict=True):
            amb, disc = self.read(budget, group_weights, group_key(label))
            groups.append((amb, disc.bounds))
        overall, groups = self.group_bounds(
            budget, (ambiguity, result.bounds), groups, weights
        )
        return GroupReadings(
            GroupReading(None, self.problem.total_weight, *overall),
            [
                GroupReading(label, float(w.sum()), amb, disc)
                for label, w, (amb, disc) in zip(labels, weights, groups, strict=True)
            ],
        )

    def evidence(self, budget):
        """Per training row, what the audit of ``budget`` knows of its flip
        (an :class:`Evidence`)."""
        baseline, sure, maybe, flip_errors = self.flip_evidence(budget)
        return Evidence(
            baseline=self.per_row(baseline.astype(int), fill=0),
            contestable=self.per_row(sure),
            undecided=self.per_row(maybe & ~sure),
            min_flip_errors=self.per_row(flip_errors, fill=np.nan),
        )

    def competitor(self, row, budget):
        """A :class:`FoundModel` of the level set flipping training ``row``,
        or None."""
        pattern = self.problem.inverse[int(row)]
        return self.found_model(self.competing_model(pattern, budget))

    def mip_log(self):
        """One dict per MIP solved so far (:meth:`MIPLogEntry.as_dict`)."""
        return [entry.as_dict() for entry in self.log]

    # -- conversions ---------------------------------------------------------------
    def per_row(self, pattern_values, fill=False):
        """Values per pattern spread over the training rows (``fill`` for rows
        of no pattern: zero weight)."""
        inverse = self.problem.inverse
        out = np.full(inverse.shape[0], fill, dtype=np.asarray(pattern_values).dtype)
        active = inverse >= 0
        out[active] = pattern_values[inverse[active]]
        return out

    def found_model(self, model):
        """A verified canonical model on the audited features (or None)."""
        if model is None:
            return None
        coef, intercept = self.problem.to_original(
            model.w, model.b, scaled=self.hypothesis.scaled
        )
        return FoundModel(coef, intercept, model.errors, model.source)
