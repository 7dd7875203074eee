"""Cross-validated multiplicity: per fold, the training audit's bands and
what the fold's level set says about its held-out people."""

import numpy as np
import pandas as pd
from sklearn.model_selection import cross_validate

from .._core import certified
from ._scorers import held_out_disagreement, held_out_people

#: The columns of :func:`cross_validate_multiplicity`, in order.
COLUMNS = (
    "train_ambiguity_lower",
    "train_ambiguity_upper",
    "train_ambiguity_certified",
    "train_discrepancy_lower",
    "train_discrepancy_upper",
    "train_discrepancy_certified",
    "test_contestable",
    "test_undecided",
    "test_certified",
    "test_disagreement",
    "test_error",
    "fit_time",
    "score_time",
)


def fold_scorer(eps):
    """The scorer of one fold: a dict of the columns of
    :func:`cross_validate_multiplicity` (the times aside)."""

    def fold(estimator, X, y):
        auditor, Z, contestable, undecided = held_out_people(estimator, X, eps)
        ambiguity = auditor.ambiguity_bounds(eps)  # read: the audit ran above
        discrepancy = auditor.discrepancy_bounds(eps)
        return {
            "train_ambiguity_lower": ambiguity[0],
            "train_ambiguity_upper": ambiguity[1],
            "train_ambiguity_certified": bool(certified(*ambiguity)),
            "train_discrepancy_lower": discrepancy[0],
            "train_discrepancy_upper": discrepancy[1],
            "train_discrepancy_certified": bool(certified(*discrepancy)),
            "test_contestable": float(np.mean(contestable)),
            "test_undecided": float(np.mean(undecided)),
            "test_certified": not undecided.any(),
            "test_disagreement": held_out_disagreement(auditor, Z, eps),
            "test_error": float(np.mean(auditor.predict(Z) != np.asarray(y))),
        }

    return fold


def cross_validate_multiplicity(
    auditor, X, y, *, eps=None, cv=5, groups=None, params=None, n_jobs=None
):
    """Multiplicity per fold: the training audit's bands and the held-out people.

    In each fold of ``cv``, ``auditor`` is fitted on the training part and
    audited at ``eps`` (within its ``total_time_limit``); its level set is
    then asked about each held-out person, as
    :meth:`MultiplicityAuditor.ambiguous` does. This is the cross-validated
    multiplicity reporting of :func:`ambiguity_scorer` and
    :func:`discrepancy_scorer` with both bounds and the certification of each
    number kept.

    Parameters
    ----------
    auditor : MultiplicityAuditor or Pipeline
        An (unfitted) auditor, or a Pipeline (possibly nested) ending in one;
        cloned and fitted in every fold.
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,)
        Labels.
    eps : float or dict, default=None
        Error tolerance (or one per class label); ``None`` uses the
        auditor's ``epsilon``.
    cv : int, cross-validation generator or iterable, default=5
        Splitting strategy, as in
        :func:`~sklearn.model_selection.cross_validate` (an int: stratified
        folds for a classifier).
    groups : array-like of shape (n_samples,), default=None
        Group labels for a group splitter such as
        :class:`~sklearn.model_selection.GroupKFold`, as in
        :func:`~sklearn.model_selection.cross_validate`. The auditor's own
        ``groups`` (people's groups for :meth:`MultiplicityAuditor.by_group`)
        go through ``params={"groups": ...}``.
    params : dict, default=None
        Parameters passed to the auditor's ``fit`` (split with the folds),
        such as ``sample_weight`` or ``groups``.
    n_jobs : int, default=None
        Folds fitted and audited at once, as in
        :func:`~sklearn.model_selection.cross_validate`.

    Returns
    -------
    pandas.DataFrame
        One row per fold (index ``fold``):

        - ``train_ambiguity_lower``, ``train_ambiguity_upper``,
          ``train_discrepancy_lower``, ``train_discrepancy_upper``: the
          certified bands of the fold's training audit (shares of its
          training people), and ``train_ambiguity_certified``,
          ``train_discrepancy_certified``: whether each band pins its value;
        - ``test_contestable``: share of held-out people certified
          contestable (a model of the training level set predicts them
          otherwise); ``test_undecided``: share a limit left undecided. The
          held-out ambiguity lies in ``[test_contestable, test_contestable +
          test_undecided]``; ``test_certified``: no held-out person is
          undecided;
        - ``test_disagreement``: share of held-out people the fold's
          discrepancy model predicts otherwise (:func:`discrepancy_scorer`);
        - ``test_error``: the baseline's held-out error rate;
        - ``fit_time``, ``score_time``: seconds, as in ``cross_validate``
          (the audit runs at scoring time).

        ``attrs["epsilon"]`` holds ``eps``.

    See Also
    --------
    FoldMultiplicityDisplay : Draws the table.
    ambiguity_scorer : The held-out lower bound alone, for ``cross_validate``.
    neg_ambiguity_scorer : The held-out upper bound, negated, for a search.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import (
    ...     MultiplicityAuditor, cross_validate_multiplicity)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> table = cross_validate_multiplicity(
    ...     MultiplicityAuditor(), X, y, eps=0.05, cv=2)
    >>> table.shape
    (2, 13)
    >>> bool((table["train_ambiguity_lower"] <= table["train_ambiguity_upper"]).all())
    True
    >>> bool(table["test_certified"].all())
    True
    """
    result = cross_validate(
        auditor,
        X,
        y,
        groups=groups,
        cv=cv,
        scoring=fold_scorer(eps),
        params=params,
        n_jobs=n_jobs,
        error_score="raise",
    )
    table = pd.DataFrame({name: result[_key(name)] for name in COLUMNS})
    flags = [name for name in COLUMNS if name.endswith("_certified")]
    table[flags] = table[flags].astype(bool)
    table.index.name = "fold"
    table.attrs["epsilon"] = eps
    return table


def _key(name):
    """The key of ``cross_validate``'s result holding column ``name``."""
    return name if name.endswith("_time") else f"test_{name}"
