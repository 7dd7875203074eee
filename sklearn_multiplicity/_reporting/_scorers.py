"""Scorers of held-out multiplicity: reporting ones for ``cross_validate``,
negated ones (``neg_``) that a search maximises to select less multiplicity.

Each pair reads one computation: :func:`held_out_people` (who among the
held-out people is contestable, who undecided) or
:func:`held_out_disagreement` (how many the fold's discrepancy model flips).
"""

import numpy as np
from sklearn.pipeline import Pipeline

from .._estimators._auditor import MultiplicityAuditor
from ._warnings import warn_held_out_undecided


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


def held_out_people(estimator, X, eps=None):
    """The fold's auditor and its verdict on each held-out person.

    Parameters
    ----------
    estimator : MultiplicityAuditor or Pipeline
        A fitted auditor, or a Pipeline (possibly nested) ending in one.
    X : array-like of shape (n_samples, n_features)
        Held-out people as ``estimator`` takes them.
    eps : float or dict or None, default=None
        Error tolerance; ``None`` uses the auditor's ``epsilon``.

    Returns
    -------
    auditor : MultiplicityAuditor
    Z : array-like
        ``X`` as the auditor sees it.
    contestable : ndarray of bool of shape (n_samples,)
        Certified: a model of the training level set gives the person another
        prediction (see :meth:`MultiplicityAuditor.ambiguous`).
    undecided : ndarray of bool of shape (n_samples,)
        Neither certified contestable nor certified stable: a limit stopped
        the person's MIP (a :class:`CertificationWarning` says how many).
    """
    auditor, Z = _audited(estimator, X)
    session, eps, budget, Z_audit, predictions, *limits = auditor._new_people(Z, eps)
    contestable, undecided = session.ambiguous_people(
        Z_audit, predictions, budget, *limits
    )
    warn_held_out_undecided(undecided, eps)
    return auditor, Z, contestable, undecided


def held_out_disagreement(estimator, X, eps=None):
    """Share of held-out people the fold's discrepancy model predicts otherwise.

    The discrepancy model is the model of the training level set that flips
    the most training predictions found by the audit
    (:meth:`MultiplicityAuditor.discrepancy_model`); 0 when none is known.

    Parameters
    ----------
    estimator, X, eps
        As for :func:`held_out_people`.

    Returns
    -------
    float
    """
    auditor, Z = _audited(estimator, X)
    model = auditor.discrepancy_model(eps)
    if model is None:
        return 0.0
    return float(np.mean(model.predict(Z) != auditor.predict(Z)))


def ambiguity_scorer(eps=None):
    """Scorer for reporting: share of held-out people certified contestable.

    The level set is the one of the fold's training data (models within
    ``eps`` of the fitted baseline's training error); a held-out person counts
    when some model of that set gives them the other prediction (certified by
    a flip MIP per distinct held-out pattern, see
    :meth:`MultiplicityAuditor.ambiguous`).

    Greater is more multiplicity: use it to *report* held-out ambiguity
    (``cross_validate``), not to select a model; a search maximising it
    prefers the most ambiguous setting. To select, use
    :func:`neg_ambiguity_scorer`.

    Parameters
    ----------
    eps : float in [0, 1] or dict or None, default=None
        Error tolerance of the fold's level set, as the auditor takes it
        (one per class label in a dict); ``None`` uses its ``epsilon``.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float`` in ``[0, 1]``, usable in
        ``scoring=`` of :func:`~sklearn.model_selection.cross_validate`, its
        ``estimator`` a fitted :class:`MultiplicityAuditor` or a Pipeline
        ending in one (see :ref:`sklearn`).

    See Also
    --------
    neg_ambiguity_scorer : The same held-out people, negated upper bound, to select.
    discrepancy_scorer : Held-out disagreement of the discrepancy model.
    cross_validate_multiplicity : Both bounds and the undecided share per fold.

    Notes
    -----
    Held-out people a limit left undecided (their MIP stopped by
    ``time_limit`` or ``total_time_limit``) are not counted, with a
    :class:`CertificationWarning`: the score is then the certified *lower*
    bound of the held-out ambiguity. With every held-out person decided it is
    the exact value.

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
        _, _, contestable, _ = held_out_people(estimator, X, eps)
        return float(np.mean(contestable))

    return ambiguity


def neg_ambiguity_scorer(eps=None):
    """Scorer for selection: minus the held-out ambiguity's upper bound.

    Scikit-learn's searches maximise a score; like ``neg_log_loss``, this one
    is a loss negated, so that
    :class:`~sklearn.model_selection.GridSearchCV` prefers the setting whose
    held-out people the fold's level set can decide otherwise least often.
    The held-out people are those of :func:`ambiguity_scorer`, which reports
    the same computation.

    Parameters
    ----------
    eps : float in [0, 1] or dict or None, default=None
        Tolerance, as in :func:`ambiguity_scorer`.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float`` in ``[-1, 0]`` (``estimator``
        and ``X`` as for :func:`ambiguity_scorer`), usable in ``scoring=`` of
        :class:`~sklearn.model_selection.GridSearchCV`, and as ``refit=``
        when it is one of several scores.

    See Also
    --------
    ambiguity_scorer : The lower bound, to report.
    neg_discrepancy_scorer : Minus the discrepancy model's held-out disagreement.

    Notes
    -----
    The score is minus the share of held-out people certified contestable
    *or undecided* (a limit stopped their MIP): the certified upper bound of
    the held-out ambiguity, negated. It is the conservative choice for
    selection: a setting cannot look better than it is by leaving its people
    undecided (its time running out), whereas with the lower bound the
    setting whose MIPs are hardest to finish would win. When every held-out
    person is decided, both bounds are the exact value and this score is
    ``-ambiguity_scorer``. A :class:`CertificationWarning` says how many
    people were undecided.

    Examples
    --------
    A search over the baseline's regularisation prefers the setting whose
    level sets leave fewer held-out people contestable:

    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_multiplicity import MultiplicityAuditor, neg_ambiguity_scorer
    >>> rng = np.random.RandomState(3)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + X[:, 1] + rng.rand(40) > 1.2).astype(int)
    >>> search = GridSearchCV(
    ...     MultiplicityAuditor(LogisticRegression(), epsilon=0.05),
    ...     {"estimator__C": [0.001, 1.0]}, cv=2,
    ...     scoring=neg_ambiguity_scorer())
    >>> search.fit(X, y).best_params_
    {'estimator__C': 1.0}
    >>> search.cv_results_["mean_test_score"].round(3).tolist()
    [-1.0, -0.425]
    """

    def neg_ambiguity(estimator, X, y=None):
        _, _, contestable, undecided = held_out_people(estimator, X, eps)
        return -float(np.mean(contestable | undecided))

    return neg_ambiguity


def discrepancy_scorer(eps=None):
    """Scorer for reporting: held-out disagreement of the fold's discrepancy model.

    The model of the training level set that flips the most training
    predictions (:meth:`MultiplicityAuditor.discrepancy_model`) is applied to
    the held-out people; the score is the share whose prediction it changes
    relative to the baseline.

    Greater is more multiplicity: use it to *report* (``cross_validate``);
    to select a model, use :func:`neg_discrepancy_scorer`.

    Parameters
    ----------
    eps : float in [0, 1] or dict or None, default=None
        Tolerance of the level set whose discrepancy model is applied, as in
        :func:`ambiguity_scorer`.

    Returns
    -------
    callable
        The held-out disagreement, in ``[0, 1]``, for ``scoring=`` (see
        :ref:`sklearn`).

    See Also
    --------
    neg_discrepancy_scorer : The same disagreement, negated, to select.
    ambiguity_scorer : Share of held-out people some level-set model flips.

    Notes
    -----
    One model's predictions on the held-out people are known, so no person
    is undecided. The score is that model's held-out disagreement, a lower
    bound of the most any model of the level set disagrees with the baseline
    on the held-out people; the share of :func:`neg_ambiguity_scorer`
    (contestable or undecided) is an upper bound of it.
    """

    def discrepancy(estimator, X, y=None):
        return held_out_disagreement(estimator, X, eps)

    return discrepancy


def neg_discrepancy_scorer(eps=None):
    """Scorer for selection: minus the discrepancy model's held-out disagreement.

    Scikit-learn's searches maximise a score; like ``neg_log_loss``, this one
    is negated so that :class:`~sklearn.model_selection.GridSearchCV` prefers
    the setting whose most different model (of the fold's training level set)
    disagrees with the baseline on the fewest held-out people. It is minus
    :func:`discrepancy_scorer`, the same computation.

    Parameters
    ----------
    eps : float in [0, 1] or dict or None, default=None
        The tolerance of :func:`discrepancy_scorer`.

    Returns
    -------
    callable
        ``-discrepancy_scorer(eps)``, in ``[-1, 0]``, usable in ``scoring=``
        of :class:`~sklearn.model_selection.GridSearchCV`.

    See Also
    --------
    discrepancy_scorer : The same disagreement, to report.
    neg_ambiguity_scorer : Minus the held-out ambiguity's upper bound.

    Notes
    -----
    The model is the one the training audit found flipping the most training
    predictions; under a limit that left the training discrepancy
    uncertified, a model of the level set may flip more. The held-out
    disagreement of one model is a lower bound of the most any model of the
    level set disagrees on the held-out people, so this score is not
    conservative under limits. For a conservative selection, use
    :func:`neg_ambiguity_scorer`, whose upper bound covers every level-set
    model's held-out flips.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import (
    ...     MultiplicityAuditor, discrepancy_scorer, neg_discrepancy_scorer)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> auditor = MultiplicityAuditor(epsilon=0.05).fit(X[:30], y[:30])
    >>> score = discrepancy_scorer()(auditor, X[30:], y[30:])
    >>> 0.0 <= score <= 1.0
    True
    >>> neg_discrepancy_scorer()(auditor, X[30:], y[30:]) == -score
    True
    """

    def neg_discrepancy(estimator, X, y=None):
        return -held_out_disagreement(estimator, X, eps)

    return neg_discrepancy
