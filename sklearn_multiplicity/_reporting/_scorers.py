"""Scorers reporting held-out multiplicity in ``cross_validate``."""

import numpy as np
from sklearn.pipeline import Pipeline

from .._estimators._auditor import MultiplicityAuditor


def audited(estimator, X, auditor_class, scorers):
    """The auditor ending ``estimator`` and ``X`` as that auditor sees it.

    Parameters
    ----------
    estimator : auditor or Pipeline
        A fitted ``auditor_class``, or a Pipeline (possibly nested) whose
        last step is one.
    X : array-like of shape (n_samples, n_features)
        People as ``estimator`` takes them.
    auditor_class : type
        The auditor the scorer reads.
    scorers : str
        The scorers' name, for the error.

    Returns
    -------
    auditor : auditor_class
    X : array-like
        ``X`` passed through the steps before the auditor.
    """
    final = estimator
    while isinstance(final, Pipeline):
        # The steps before the auditor map people into its input space.
        if len(final) > 1:
            X = final[:-1].transform(X)
        final = final[-1]
    if not isinstance(final, auditor_class):
        got = type(final).__name__
        if final is not estimator:
            got = f"a Pipeline ending in {got}"
        raise TypeError(
            f"{scorers} need a fitted {auditor_class.__name__} (or a Pipeline "
            f"ending in one), got {got}."
        )
    return final, X


def _audited(estimator, X):
    return audited(estimator, X, MultiplicityAuditor, "Multiplicity scorers")


def ambiguity_scorer(eps=None):
    """Scorer: share of held-out people a level-set model predicts differently.

    The level set is the one of the fold's training data (models within
    ``eps`` of the fitted baseline's training error); a held-out person counts
    when some model of that set gives them the other prediction (certified by
    a flip MIP per distinct held-out pattern, see
    :meth:`MultiplicityAuditor.ambiguous`).

    Parameters
    ----------
    eps : float in [0, 1] or None, default=None
        Error tolerance; ``None`` uses the auditor's ``epsilon``.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``, usable in ``scoring=`` of
        :func:`~sklearn.model_selection.cross_validate`. ``estimator`` is a
        fitted :class:`MultiplicityAuditor` or a Pipeline (possibly nested) ending
        in one; ``X`` then passes through the steps before it.

    See Also
    --------
    discrepancy_scorer : Held-out disagreement of the discrepancy model.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn_multiplicity import (
    ...     MultiplicityAuditor, ambiguity_scorer, discrepancy_scorer)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> scoring = {
    ...     "ambiguity": ambiguity_scorer(),
    ...     "discrepancy": discrepancy_scorer(eps=0.05),
    ... }
    >>> scores = cross_validate(
    ...     MultiplicityAuditor(epsilon=0.05), X, y, cv=2, scoring=scoring)
    >>> ambiguity = scores["test_ambiguity"]
    >>> ambiguity.shape
    (2,)
    >>> bool(np.all((0 <= ambiguity) & (ambiguity <= 1)))
    True
    """

    def ambiguity(estimator, X, y=None):
        auditor, X = _audited(estimator, X)
        return float(np.mean(auditor.ambiguous(X, eps)))

    return ambiguity


def discrepancy_scorer(eps=None):
    """Scorer: held-out disagreement of the fold's discrepancy model.

    The model of the training level set that flips the most training
    predictions (:meth:`MultiplicityAuditor.discrepancy_model`) is applied to
    the held-out people; the score is the share whose prediction it changes
    relative to the baseline.

    Parameters
    ----------
    eps : float in [0, 1] or None, default=None
        Error tolerance; ``None`` uses the auditor's ``epsilon``.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``, usable in ``scoring=`` of
        :func:`~sklearn.model_selection.cross_validate`. ``estimator`` is a
        fitted :class:`MultiplicityAuditor` or a Pipeline (possibly nested) ending
        in one; ``X`` then passes through the steps before it.

    See Also
    --------
    ambiguity_scorer : Share of held-out people some level-set model flips.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import MultiplicityAuditor, discrepancy_scorer
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> auditor = MultiplicityAuditor(epsilon=0.05).fit(X[:30], y[:30])
    >>> score = discrepancy_scorer()(auditor, X[30:], y[30:])
    >>> 0.0 <= score <= 1.0
    True
    """

    def discrepancy(estimator, X, y=None):
        auditor, X = _audited(estimator, X)
        model = auditor.discrepancy_model(eps)
        if model is None:
            return 0.0
        return float(np.mean(model.predict(X) != auditor.predict(X)))

    return discrepancy
