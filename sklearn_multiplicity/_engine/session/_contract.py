"""The audit contract: what every certifier family answers, said once.

:class:`Session` is the one interface between the estimators and the engine.
A certifier family (two labels: :class:`~._binary.AuditSession`; K labels:
:class:`~._multiclass.MulticlassSession`) fills its abstract methods; the
readings the estimators make (:meth:`Session.reading`,
:meth:`Session.group_readings`, :meth:`Session.evidence`,
:meth:`Session.competitor`, :meth:`Session.mip_log`), the time model of a
tolerance's audit (:meth:`Session.audit`, :meth:`Session.grant`) and the
groups' weights are written here once, for every family.

The shapes are stated once. A family's problem compresses the training rows
to ``n_patterns`` distinct feature patterns (``problem.inverse[i]`` is row
``i``'s pattern, ``-1`` for rows of zero weight, which no audit covers).
Labels are indices ``0 .. K-1`` into the classes; two labels are the case
``K = 2``, whose baseline labels are booleans (``True``: the positive class).
A budget is what :meth:`Session.budget` makes of a tolerance: a number (the
largest weighted error) or per-label ceilings. Every answer is a plain record
of :mod:`.._records`; models come back as :class:`~.._records.FoundModel` on
the audited features (``coef`` of shape ``(1, d)`` for two labels and
``(K, d)`` for K labels).

What only some families can do is a *capability*: a family lists its own in
:attr:`Session.capabilities`, and :func:`require` is the one place that
refuses a request a family cannot answer.
"""

import abc
import contextlib

import numpy as np

from .._records import Evidence, GroupReading, GroupReadings, Reading, group_key

#: What a family may be able to do beyond the contract, and the sentence a
#: user reads when the family of their target cannot.
CAPABILITIES = {
    "coefficient_ranges": (
        "coefficient_ranges is available for two labels; a K-class audit gives "
        "every other reading of the auditor."
    ),
    "constraints": (
        "constraints (MaxNonzero, Signs, GroupRateGap) apply to two labels; "
        "the target has {n_classes}."
    ),
    "integer_weights": (
        "weights='integer' applies to two labels; the K-class class has "
        "continuous weights (weights='auto')."
    ),
}


class UnsupportedCapability(ValueError, NotImplementedError):
    """A request the family of the audited target cannot answer.

    A :class:`ValueError` (the input asks for something the target's family
    does not have) and a :class:`NotImplementedError` (the request exists,
    for another family).
    """


def require(family, capability, **details):
    """Refuse ``capability`` unless ``family`` (a :class:`Session` subclass or
    instance) declares it; ``details`` fill the sentence's fields.

    Raises
    ------
    UnsupportedCapability
        With the user-facing sentence of :data:`CAPABILITIES`.
    """
    if capability not in CAPABILITIES:
        raise KeyError(f"unknown capability {capability!r}")
    if capability not in family.capabilities:
        raise UnsupportedCapability(CAPABILITIES[capability].format(**details))


class Session(abc.ABC):
    """One audit: a problem, a baseline, and everything certified so far.

    Subclasses set ``problem``, ``accounts`` (a
    :class:`~..timing._accounts.TimeAccounts`) and ``groups`` (pattern
    weights of every watched group, by label) in ``__init__``, and fill the
    abstract methods below. Requests take time limits and spend them on the
    accounts; readings cost no solver time and say what is known now.

    Attributes
    ----------
    capabilities : frozenset of str
        What the family answers beyond the contract (keys of
        :data:`CAPABILITIES`).
    """

    capabilities = frozenset()

    # -- what a family fills -------------------------------------------------------
    @abc.abstractmethod
    def summary(self):
        """The set-up of the audit (a :class:`~.._records.SessionSummary`)."""

    @abc.abstractmethod
    def budget(self, eps):
        """The budget of the level set at tolerance ``eps`` (a share of the
        training weight, or a ``PerClassEpsilon``)."""

    @abc.abstractmethod
    def extra_errors(self, eps):
        """The weighted errors the level set at tolerance ``eps`` allows
        beyond the baseline's, known before the baseline is."""

    @abc.abstractmethod
    def assess(self, limit, extra_errors, feature_names=None):
        """What the audit can be expected to certify within ``limit`` seconds
        (an :class:`~.._records.Assessment`), judged before any MIP runs."""

    @abc.abstractmethod
    def run_tolerance(self, budget, deadline):
        """Continue the audit of ``budget`` by its plan until ``deadline``."""

    @abc.abstractmethod
    def settled(self, budget):
        """Whether what is known settles every measure of ``budget``'s audit
        (every person, the discrepancy, each group's discrepancy)."""

    @abc.abstractmethod
    def measures(self, budget, weights=None, key="all"):
        """Both measures at ``budget`` over ``weights`` (``None``: everyone),
        as known now: ``(ambiguity, discrepancy, model)``, two
        :class:`~.._core.Bounds` and the verified model of most disagreement
        known (or None)."""

    @abc.abstractmethod
    def label_evidence(self, budget):
        """Per pattern: the baseline's label, certified contestable (a
        verified model of the level set gives another label), undecided
        (neither that nor proven unchangeable), and the fewest errors of a
        model known to change it (NaN or inf: none known)."""

    @abc.abstractmethod
    def fewest_errors_found(self):
        """The weighted errors of the verified model of fewest errors found so
        far (an upper bound on the class's minimum error; no solver time)."""

    @abc.abstractmethod
    def witness(self, pattern, budget):
        """A verified model of the level set of ``budget`` that gives
        ``pattern`` another label (family's own form), or None."""

    @abc.abstractmethod
    def min_error(self, deadline, *, progress=None):
        """The certified minimum error of the class (the family's record);
        ``progress(lower, upper)`` hears its band."""

    @abc.abstractmethod
    def min_error_record(self, fit):
        """The family's minimum-error record ``fit`` as a
        :class:`~.._records.MinErrorFit`."""

    @abc.abstractmethod
    def found_model(self, model):
        """A verified model of the family as a
        :class:`~.._records.FoundModel` on the audited features (or None)."""

    @property
    @abc.abstractmethod
    def log(self):
        """Every solve so far (a list of :class:`~.._core.MIPLogEntry`)."""

    @abc.abstractmethod
    def known_min_error_bounds(self):
        """Certified ``(lower, upper)`` on the fewest errors of the class as
        far as solved so far, or ``None`` before any solve of it (no solver
        time)."""

    @abc.abstractmethod
    def min_error_bounds(self, limit, per_mip=None, *, progress=None):
        """Certified ``(lower, upper)`` on the fewest errors of the class,
        within what its account has left of ``limit`` seconds."""

    @abc.abstractmethod
    def path(self, max_eps, step, n_discrepancy, limit, per_mip=None, *, progress=None):
        """Both measures at every tolerance up to ``max_eps`` (a list of
        :class:`~.._records.PathStep`)."""

    @abc.abstractmethod
    def ambiguous_people(self, Z, labels, budget, limit, per_mip=None):
        """Which people ``Z`` (in the audit space; ``labels``: the baseline's
        label of each) a model of the level set of ``budget`` labels
        otherwise: ``(ambiguous, undecided)`` boolean arrays, the second left
        open by a limit. Call it after the audit of ``budget``."""

    @abc.abstractmethod
    def snapshot(self, budget):
        """What the audit of ``budget`` knows now, for a running audit's
        progress: ``total``, ``flipped`` and ``proven`` weight and the most
        ``disagreement`` found."""

    def relate_groups(self, budget, overall, groups, weights):
        """Tighten the groups' bands by their relations across groups; the
        default keeps them as they are.

        Parameters
        ----------
        overall : tuple of Bounds
            ``(ambiguity, discrepancy)`` over everyone.
        groups : list of tuple of Bounds
            The same per group.
        weights : list of ndarray
            Each group's pattern weights.
        """
        return overall, groups

    # -- capabilities ----------------------------------------------------------------
    def weight_ranges(self, budget, limit, per_mip=None):
        """The certified ends of every weight over the level set of ``budget``
        (capability ``coefficient_ranges``)."""
        require(self, "coefficient_ranges")
        raise NotImplementedError  # a family that declares it overrides this

    # -- groups ------------------------------------------------------------------------
    def pattern_weights(self, rows, row_weight):
        """Weight of every pattern counting only the training ``rows`` (a
        mask) with weights ``row_weight``."""
        inverse = self.problem.inverse
        mask = rows & (inverse >= 0)
        return np.bincount(
            inverse[mask], weights=row_weight[mask], minlength=self.problem.n_patterns
        )

    def watch_row_groups(self, groups, row_weight):
        """Make the discrepancy of every group of training rows part of every
        tolerance's audit.

        Parameters
        ----------
        groups : ndarray of shape (n_samples,)
            The group of every training row.
        row_weight : ndarray of shape (n_samples,)
        """
        self.groups = {
            label: self.pattern_weights(groups == label, row_weight)
            for label in np.unique(groups)
        }

    # -- the time of a tolerance's audit --------------------------------------------
    def audit(self, budget, limit, per_mip=None, *, watching=contextlib.nullcontext):
        """Run, or continue, the audit of the tolerance of ``budget``.

        It spends at most what the tolerance's account has left of ``limit``
        seconds (``None``: no limit), and nothing when what is known settles
        it (:meth:`settled`); ``watching()`` is the context of a run (a
        progress bar). A run that leaves it open closes the account until
        :meth:`grant`.
        """

        def work(deadline):
            if not deadline.expired():
                with watching():
                    self.run_tolerance(budget, deadline)

        self.accounts.spend(
            ("tolerance", budget),
            limit,
            per_mip,
            work,
            settled=lambda: self.settled(budget),
        )

    def charge_fit(self, budget, seconds):
        """Count the ``seconds`` of the fit against the audit of ``budget``
        (the auditor's tolerance), of which the fit is a part
        (:data:`~..timing._plans.FIT_SHARE`)."""
        self.accounts.add(("tolerance", budget), seconds)

    def grant(self, budget, seconds, limit):
        """Let the audit of ``budget`` spend ``seconds`` more (``refine``)."""
        self.accounts.grant(("tolerance", budget), seconds, limit)

    # -- readings (no solver time) ---------------------------------------------------
    def reading(self, budget):
        """Both measures over all people at ``budget`` (a
        :class:`~.._records.Reading`), from everything the audit knows now."""
        ambiguity, discrepancy, model = self.measures(budget)
        return Reading(ambiguity, discrepancy, self.found_model(model))

    def group_readings(self, budget):
        """Both measures overall and per watched group at ``budget``, related
        across the groups (a :class:`~.._records.GroupReadings`)."""
        ambiguity, discrepancy, _ = self.measures(budget)
        labels = list(self.groups)
        weights = [self.groups[label] for label in labels]
        groups = [
            self.measures(budget, w, group_key(label))[:2]
            for label, w in zip(labels, weights, strict=True)
        ]
        overall, groups = self.relate_groups(
            budget, (ambiguity, discrepancy), groups, weights
        )
        return GroupReadings(
            GroupReading(None, self.problem.total_weight, *overall),
            [
                GroupReading(label, float(w.sum()), amb, disc)
                for label, w, (amb, disc) in zip(labels, weights, groups, strict=True)
            ],
        )

    def evidence(self, budget):
        """Per training row, what the audit of ``budget`` knows of its label
        (an :class:`~.._records.Evidence`). Rows of zero weight are in no
        pattern: baseline 0, neither contestable nor undecided."""
        baseline, contestable, undecided, errors = self.label_evidence(budget)
        return Evidence(
            baseline=self.per_row(np.asarray(baseline).astype(int), fill=0),
            contestable=self.per_row(contestable),
            undecided=self.per_row(undecided),
            min_flip_errors=self.per_row(errors, fill=np.nan),
        )

    def undecided_by_group(self, budget):
        """Weight of the people whose label the audit of ``budget`` has left
        undecided (neither certified contestable nor proven unchangeable),
        overall (key ``None``) and in every watched group (by label)."""
        undecided = np.asarray(self.label_evidence(budget)[2], dtype=bool)
        weights = {None: self.problem.pattern_weight, **self.groups}
        return {label: float(w[undecided].sum()) for label, w in weights.items()}

    def competitor(self, row, budget):
        """A :class:`~.._records.FoundModel` of the level set of ``budget``
        that gives training ``row`` another label, or None."""
        pattern = int(self.problem.inverse[int(row)])
        if pattern < 0:
            return None
        return self.found_model(self.witness(pattern, budget))

    def mip_log(self):
        """One dict per MIP solved so far (:meth:`MIPLogEntry.as_dict`)."""
        return [entry.as_dict() for entry in self.log]

    # -- conversions -------------------------------------------------------------------
    def per_row(self, pattern_values, fill=False):
        """Values per pattern spread over the training rows (``fill`` on rows
        of zero weight, which are in no pattern)."""
        inverse = self.problem.inverse
        values = np.asarray(pattern_values)
        out = np.full(inverse.shape[0], fill, dtype=values.dtype)
        active = inverse >= 0
        out[active] = values[inverse[active]]
        return out
