"""The K-label audit of a :class:`ProbabilisticAuditor`: readings of the
multinomial level set (:mod:`._multinomial`) in the auditor's units.

Label ambiguity is exact when no (person, label) pair is left open: a pair
is *yes* when a model of the set (objective recomputed) gives the label, *no*
when a certificate proves no model does. Probabilities and the Rashomon
capacity are certified brackets.
"""

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core import Bounds
from ._multinomial import MultinomialLevelSet
from ._multinomial_labels import NO, OPEN, YES
from ._multinomial_margins import full_scores
from ._time import more_time

#: Models of the set the discrepancy's lower bound tries (at most).
DISCREPANCY_MODELS = 2000
#: Names of the pair statuses in :meth:`LabelAudit.reach_frame`.
STATUS = {YES: "yes", NO: "no", OPEN: "open"}


class LabelAudit:
    """The level set of a K-label baseline and its cached label reach.

    Parameters
    ----------
    lr : LogisticRegression
        The fitted baseline (multinomial, L2 penalty or none).
    Z : ndarray of shape (n_samples, n_features)
        Training rows in the audit space.
    y : ndarray of shape (n_samples,)
    weight : ndarray of shape (n_samples,)
        Sample weights (class weights are folded in by the objective).
    """

    def __init__(self, lr, Z, y, weight):
        self.level_set = MultinomialLevelSet(lr, Z, y, weight)
        self.classes = np.asarray(lr.classes_)
        self.Z, self.weight = Z, np.asarray(weight, dtype=float)
        self._cache = {}

    def reach(self, eps, deadline, n_jobs=None, Z=None, progress=None):
        """The label reach of the training rows (cached per ``eps``; solved
        again when a request has more time than the one that left pairs
        open) or of the rows ``Z``; ``progress``: a
        :class:`~.._progress.StageProgress` of the stages."""
        options = dict(deadline=deadline, n_jobs=n_jobs, progress=progress)
        if Z is not None:
            return self.level_set.label_reach(Z, eps, **options)
        budget = deadline.remaining()
        if eps in self._cache:
            reach, before = self._cache[eps]
            if reach.complete or not more_time(budget, before):
                return reach
        reach = self.level_set.label_reach(self.Z, eps, **options)
        self._cache[eps] = (reach, budget)
        return reach

    # ------------------------------------------------------------- readings
    def ambiguity(self, reach, weight=None):
        """Certified bounds on the (weighted) share of people some model of
        the set gives another label than the baseline's."""
        return reach.ambiguity(self.weight if weight is None else weight)

    def ranges_frame(self, reach, Z, index, tol):
        """Per-class probability brackets as a DataFrame whose columns are
        ``(field, class)``."""
        r = self.level_set.probability_ranges(Z, reach.eps, reach)
        fields = {
            "lower": r.lower_in,
            "upper": r.upper_in,
            "baseline": r.baseline,
            "lower_bound": r.lower_out,
            "upper_bound": r.upper_out,
            "width": r.upper_in - r.lower_in,
            "certified": (r.lower_in - r.lower_out <= tol)
            & (r.upper_out - r.upper_in <= tol),
        }
        columns = pd.MultiIndex.from_product(
            [list(fields), self.classes], names=["field", "class"]
        )
        values = {
            (field, c): block[:, k]
            for field, block in fields.items()
            for k, c in enumerate(self.classes)
        }
        return pd.DataFrame(values, index=index, columns=columns)

    def reach_frame(self, reach, index):
        """``"yes"``/``"no"``/``"open"`` per person and class."""
        names = np.vectorize(STATUS.get, otypes=[object])(reach.status)
        return pd.DataFrame(names, index=index, columns=self.classes)

    def delta_ambiguity(self, reach, delta):
        """Certified bounds on the share of people for whom some model moves
        some class probability more than ``delta`` from the baseline's."""
        r = self.level_set.probability_ranges(self.Z, reach.eps, reach)
        base = r.baseline
        sure = np.maximum(r.upper_in - base, base - r.lower_in) > delta
        possible = np.maximum(r.upper_out - base, base - r.lower_out) > delta
        w = self.weight
        return Bounds(
            float(w @ sure.any(axis=1) / w.sum()),
            float(w @ possible.any(axis=1) / w.sum()),
        )

    def discrepancy(self, reach):
        """Certified bounds on the largest share of people one model of the
        set gives another label: below, the best of the witnesses (a sample
        of ``DISCREPANCY_MODELS``); above, the ambiguity's upper bound."""
        obj = self.level_set.objective
        rows = obj.augment(self.Z)
        models = reach.harvest.sample(DISCREPANCY_MODELS)
        w = self.weight
        best = 0.0
        for start in range(0, models.shape[1], 64):
            z = obj.scores(rows, models[:, start : start + 64])
            labels = np.argmax(full_scores(np.moveaxis(z, 1, 2)), axis=2)
            moved = labels != reach.baseline[:, None]
            best = max(best, float((w @ moved).max(initial=0.0) / w.sum()))
        upper = self.ambiguity(reach).upper
        return Bounds(min(best, upper), upper)

    def capacity(self, reach, Z):
        """Certified ``(lower, upper)`` Rashomon capacities ``2 ** C``."""
        return self.level_set.rashomon_capacity(Z, reach.eps, reach)

    def coefficients(self, theta):
        """scikit-learn's ``(coef_, intercept_)`` of the parameters ``theta``
        (reference class 0 at zero; the predictions do not depend on it)."""
        obj = self.level_set.objective
        V = np.asarray(theta, dtype=float).reshape(obj.K - 1, obj.q)
        W = np.vstack([np.zeros(obj.q), V])
        W -= W.mean(axis=0)  # scikit-learn's centred representative
        if obj.fit_intercept:
            return W[:, :-1].copy(), W[:, -1].copy()
        return W.copy(), np.zeros(obj.K)


def check_label_target(y):
    """The classes of a target of three or more labels, each on at least two
    rows; a clear ``ValueError`` otherwise."""
    classes, counts = np.unique(y, return_counts=True)
    once = classes[counts < 2]
    if once.size:
        raise ValueError(
            f"The label(s) {once.tolist()} appear on one row only; the "
            "probabilistic audit needs a binary target or every label on at "
            "least two rows."
        )
    return classes


def describe_multinomial(objective, C):
    """The K-label level set's family and objective, in words."""
    penalty = "no penalty" if not np.isfinite(C) else f"L2 penalty, C={C:g}"
    intercept = "with intercept" if objective.fit_intercept else "no intercept"
    return (
        f"multinomial logistic regression, {objective.K} labels ({penalty}, "
        f"{intercept}); objective: weighted mean log-loss + ||coef||^2 / (2 C "
        "sum(sample_weight)), coef centred over the labels"
    )


class LabelsMixin:
    """K-label readings of :class:`ProbabilisticAuditor`.

    Reads the auditor's ``_labels`` (a :class:`LabelAudit`, None for two
    labels), ``_eps``, ``_deadline``, ``_progress``, ``verbose``, ``n_jobs``,
    ``tol``, ``_row_index`` and ``_baseline``.
    """

    def _label_audit(self, name):
        check_is_fitted(self)
        if self._labels is None:
            raise ValueError(
                f"{name} is defined for targets of three or more labels; for "
                "two labels use viable_prediction_range, ambiguity and "
                "extreme_models."
            )
        return self._labels

    def _reach(self, eps, X=None):
        eps = self._eps(eps)
        Z = None if X is None else self._new_audit_rows(X)
        progress = self._progress(eps, unit="pair") if self.verbose >= 1 else None
        return self._labels.reach(eps, self._deadline(), self.n_jobs, Z, progress), Z

    def _new_audit_rows(self, X):
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        return self._baseline.audit_space(X)

    def reachable_labels(self, X=None, eps=None):
        """Which labels models of the level set give each person.

        Three or more labels only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People to score; ``None``: the training rows.
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        pandas.DataFrame
            One row per person, one column per class: ``"yes"`` (a model of
            the set, :meth:`label_model`, predicts the class), ``"no"``
            (certified: no model of the set predicts it) or ``"open"`` (the
            time limit ran out, or tied with the level within rounding).
        """
        self._label_audit("reachable_labels")
        reach, _ = self._reach(eps, X)
        index = self._row_index if X is None else _index_of(X)
        return self._labels.reach_frame(reach, index)

    def label_model(self, i, label, eps=None):
        """A model of the level set predicting ``label`` for training person ``i``.

        Three or more labels only.

        Parameters
        ----------
        i : int
            Position of the person in the training data.
        label : object
            One of ``classes_``.
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        estimator
            A fitted copy of the baseline (a Pipeline when it is one);
            :meth:`objective` shows it is in the set.

        Raises
        ------
        LookupError
            When no model of the set predicts ``label`` for person ``i`` (or
            none was found before the time limit: see
            :meth:`reachable_labels`).
        """
        audit = self._label_audit("label_model")
        i = self._person(i)
        where = np.flatnonzero(audit.classes == label)
        if where.size == 0:
            raise ValueError(f"label must be one of {audit.classes.tolist()}.")
        reach, _ = self._reach(eps)
        if reach.status[i, where[0]] != YES:
            raise LookupError(
                f"No model of the level set predicting {label!r} for person {i} "
                f"is known (status: {STATUS[reach.status[i, where[0]]]})."
            )
        return self._model(reach.witness(i, where[0]))

    # ---------------------------------------------- readings of the mixins
    def _label_ranges(self, X, eps):
        reach, Z = self._reach(eps, X)
        index = self._row_index if X is None else _index_of(X)
        rows = self._labels.Z if Z is None else Z
        return self._labels.ranges_frame(reach, rows, index, self.tol)

    def _label_measure(self, name, eps, threshold=None, **kwargs):
        if threshold is not None:
            raise ValueError(
                "threshold applies to two labels; with more, a decision is the "
                "most probable label."
            )
        reach, _ = self._reach(eps)
        return getattr(self._labels, name)(reach, **kwargs)

    def _label_capacity(self, X, eps):
        reach, Z = self._reach(eps, X)
        rows = self._labels.Z if Z is None else Z
        lower, _ = self._labels.capacity(reach, rows)
        index = self._row_index if X is None else _index_of(X)
        return pd.Series(lower, index=index, name="rashomon_capacity")


def _index_of(X):
    """The row labels of ``X`` when it is a DataFrame, else None."""
    return X.index if isinstance(X, pd.DataFrame) else None
