"""Abstention: the baseline's decision where no equally good model disagrees.

:class:`AbstainingClassifier` predicts the baseline's label for people whose
prediction every model of the level set shares, and a reject value for the
contestable ones (:meth:`MultiplicityAuditor.predict_set`). Its two scores
are the share of people decided (:func:`coverage_score`) and the accuracy on
them (:func:`decided_accuracy_score`).
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._auditor import MultiplicityAuditor


class AbstainingClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """The audited baseline, abstaining on people whose decision is arbitrary.

    ``fit`` fits a clone of the auditor; ``predict`` returns the baseline's
    label where every model of the ``eps``-level set agrees with it, and the
    reject value ``reject_`` where some model of the set predicts the other
    label (or a limit left that unsettled). Usable as the last step of a
    :class:`~sklearn.pipeline.Pipeline` and in
    :func:`~sklearn.model_selection.cross_validate` with
    :data:`coverage_scorer` and :data:`decided_accuracy_scorer`.

    Parameters
    ----------
    auditor : MultiplicityAuditor, default=None
        The audit (baseline, hypothesis class, constraints, limits);
        ``None``: ``MultiplicityAuditor()``.
    eps : float in [0, 1] or dict, default=None
        Error tolerance (or one per class label); ``None`` uses the
        auditor's ``epsilon``.
    reject : int, float, str or None, default=None
        What ``predict`` returns for a contestable person; of the labels'
        kind (a number for numeric labels, a string for text labels) so that
        ``predict`` never mixes types, and not a class label. ``None``:
        ``-1`` for numeric labels (the smallest label minus 1 when -1 is a
        label), ``"reject"`` for text labels (``"abstain"`` when "reject" is
        a label).

    Attributes
    ----------
    auditor_ : MultiplicityAuditor
        The fitted auditor, whose level set decides when to abstain.
    classes_ : ndarray of shape (2,)
        The labels ``predict`` gives where it does not abstain.
    reject_ : int, float or str
        The reject value ``predict`` returns (``reject``, or its default).

    See Also
    --------
    MultiplicityAuditor.predict_set : The labels of the level set per person.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import AbstainingClassifier, MultiplicityAuditor
    >>> X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    >>> y = np.repeat([0, 0, 1, 1], 25)
    >>> y[:5] = 1
    >>> clf = AbstainingClassifier(MultiplicityAuditor(epsilon=0.0)).fit(X, y)
    >>> clf.predict([[0, 0], [1, 1]]).tolist()
    [0, 1]
    >>> clf.reject_
    -1

    Text labels get a text reject value:

    >>> labels = np.where(y == 1, "yes", "no")
    >>> clf = AbstainingClassifier(MultiplicityAuditor(epsilon=0.3)).fit(X, labels)
    >>> clf.reject_
    'reject'
    """

    def __init__(self, auditor=None, *, eps=None, reject=None):
        self.auditor = auditor
        self.eps = eps
        self.reject = reject

    def fit(self, X, y, sample_weight=None, groups=None):
        """Fit the auditor's baseline and certify its minimum error.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features, audited by ``auditor``.
        y : array-like of shape (n_samples,)
            Two classes (see ``reject`` for the value that must not be one).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of every row.
        groups : array-like of shape (n_samples,), default=None
            Groups of the rows, passed to the auditor's ``fit``.

        Returns
        -------
        self : AbstainingClassifier
            The fitted classifier.
        """
        auditor = MultiplicityAuditor() if self.auditor is None else self.auditor
        self.auditor_ = clone(auditor).fit(
            X, y, sample_weight=sample_weight, groups=groups
        )
        self.classes_ = self.auditor_.classes_
        self.reject_ = _check_reject(self.reject, self.classes_)
        if hasattr(self.auditor_, "feature_names_in_"):
            self.feature_names_in_ = self.auditor_.feature_names_in_
        self.n_features_in_ = self.auditor_.n_features_in_
        return self

    def predict(self, X):
        """The baseline's label, or ``reject_`` for contestable people.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels and ``reject_`` values: numbers of the labels' dtype (or
            of the dtype that holds both, e.g. float for a float reject
            value) for numeric labels, strings in an array of dtype object
            for text labels.
        """
        check_is_fitted(self)
        sets = self.auditor_.predict_set(X, self.eps)
        labels = np.asarray(self.auditor_.predict(X))
        if _numeric(self.classes_):
            dtype = np.result_type(labels.dtype, np.asarray(self.reject_).dtype)
        else:
            dtype = object
        out = labels.astype(dtype)
        out[sets.all(axis=1)] = self.reject_
        return out

    def score(self, X, y, sample_weight=None):
        """Accuracy on the people the classifier decides.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the people.

        Returns
        -------
        float
            :func:`decided_accuracy_score` of the predictions.
        """
        return decided_accuracy_score(
            y, self.predict(X), reject=self.reject_, sample_weight=sample_weight
        )


def _numeric(classes):
    """Whether the labels are numbers (bool, integer or float)."""
    classes = np.asarray(classes)
    if classes.dtype.kind == "O":
        return all(isinstance(c, numbers.Real) for c in classes)
    return classes.dtype.kind in "biuf"


def _check_reject(reject, classes):
    """The reject value for ``classes``: ``reject``, or the default of their
    kind; one of another kind, or a class label, is refused."""
    numeric = _numeric(classes)
    default = _default_reject(classes, numeric)
    if reject is None:
        return default
    is_number = isinstance(reject, numbers.Real) and not isinstance(reject, bool)
    if numeric != is_number or not (is_number or isinstance(reject, str)):
        labels = ", ".join(repr(_python(c)) for c in classes)
        raise ValueError(
            f"reject={reject!r} is not of the kind of the labels ({labels}), so "
            f"predict would mix types; choose a {'number' if numeric else 'string'} "
            f"(e.g. {default!r}) or leave reject=None."
        )
    if any(_same(reject, c) for c in classes):
        raise ValueError(
            f"reject={reject!r} is a class label; choose a value that is not "
            f"one (e.g. {default!r})."
        )
    return reject


def _default_reject(classes, numeric):
    """``-1`` (numbers) or ``"reject"`` (text), or when that is a label, the
    smallest label minus 1 or ``"abstain"``."""
    first, other = (-1, _python(min(classes)) - 1) if numeric else ("reject", "abstain")
    return other if any(_same(first, c) for c in classes) else first


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _decided_and_weights(y_pred, reject, sample_weight):
    """Whether each prediction is a label (not ``reject``), and the weights
    of the people (1 each without ``sample_weight``)."""
    y_pred = np.asarray(y_pred, dtype=object)
    decided = np.array([not _same(p, reject) for p in y_pred], dtype=bool)
    weight = np.ones(decided.size) if sample_weight is None else sample_weight
    return decided, np.asarray(weight, dtype=float)


def coverage_score(y_true, y_pred, *, reject=-1, sample_weight=None):
    """Share of people decided (predicted a label, not ``reject``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (unused; for the metric signature).
    y_pred : array-like of shape (n_samples,)
        Predictions of an :class:`AbstainingClassifier`.
    reject : object, default=-1
        The reject value.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the people.

    Returns
    -------
    float
        Weighted share of predictions that are not ``reject``.
    """
    decided, weight = _decided_and_weights(y_pred, reject, sample_weight)
    return float(weight[decided].sum() / weight.sum())


def decided_accuracy_score(y_true, y_pred, *, reject=-1, sample_weight=None):
    """Accuracy on the people decided (``nan`` when none is).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels, compared where ``y_pred`` is not ``reject``.
    y_pred : array-like of shape (n_samples,)
        Predictions of an :class:`AbstainingClassifier`, as for
        :func:`coverage_score`.
    reject : object, default=-1
        The value that marks an abstention.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the people; only the decided ones' count.

    Returns
    -------
    float
        Weighted share of correct predictions among those that are not
        ``reject``.
    """
    decided, weight = _decided_and_weights(y_pred, reject, sample_weight)
    if not decided.any():
        return float("nan")
    y_true = np.asarray(y_true, dtype=object)[decided]
    y_pred = np.asarray(y_pred, dtype=object)[decided]
    weight = weight[decided]
    correct = np.array([_same(t, p) for t, p in zip(y_true, y_pred, strict=True)])
    return float(weight[correct].sum() / weight.sum())


def _reject_of(estimator):
    """The reject value of an AbstainingClassifier, or of a Pipeline's last step."""
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    if not isinstance(final, AbstainingClassifier):
        raise TypeError(
            "Abstention scorers need an AbstainingClassifier (or a Pipeline "
            f"ending in one), got {type(final).__name__}."
        )
    return final.reject_


def coverage_scorer(estimator, X, y=None):
    """Scorer: share of held-out people an :class:`AbstainingClassifier` decides.

    Parameters
    ----------
    estimator : AbstainingClassifier or Pipeline
        Fitted; a Pipeline must end in an :class:`AbstainingClassifier`.
    X : array-like of shape (n_samples, n_features)
        Held-out people.
    y : array-like of shape (n_samples,), default=None
        Unused.

    Returns
    -------
    float
        :func:`coverage_score` of the predictions.
    """
    return coverage_score(y, estimator.predict(X), reject=_reject_of(estimator))


def decided_accuracy_scorer(estimator, X, y):
    """Scorer: accuracy of an :class:`AbstainingClassifier` on the decided people.

    Parameters
    ----------
    estimator : AbstainingClassifier or Pipeline
        Fitted, as for :func:`coverage_scorer`.
    X : array-like of shape (n_samples, n_features)
        Held-out people.
    y : array-like of shape (n_samples,)
        Their true labels.

    Returns
    -------
    float
        :func:`decided_accuracy_score` of the predictions.
    """
    return decided_accuracy_score(y, estimator.predict(X), reject=_reject_of(estimator))
