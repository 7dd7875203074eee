"""Scorers reporting held-out multiplicity in ``cross_validate``."""

import numpy as np

from ._auditor import MultiplicityAuditor


def _auditor_of(estimator):
    if isinstance(estimator, MultiplicityAuditor):
        return estimator
    steps = getattr(estimator, "steps", None)
    if steps and isinstance(steps[-1][1], MultiplicityAuditor):
        raise TypeError(
            "Put the MultiplicityAuditor outermost (audit a Pipeline by passing it "
            "as the auditor's estimator) so that scorers see the audited space."
        )
    raise TypeError(
        f"Multiplicity scorers need a fitted MultiplicityAuditor, got "
        f"{type(estimator).__name__}."
    )


def ambiguity_scorer(eps=None):
    """Scorer: share of held-out people a level-set model predicts differently.

    The level set is the one of the fold's training data (models within
    ``eps`` of the fitted baseline's training error); a held-out person counts
    when some model of that set gives them the other prediction (certified by
    a flip MIP per distinct held-out pattern, see
    :meth:`MultiplicityAuditor.ambiguous`).

    Parameters
    ----------
    eps : float in [0, 1] or None
        Error tolerance; ``None`` uses the auditor's ``epsilon``.

    Returns
    -------
    callable
        ``scorer(auditor, X, y) -> float``, usable in ``scoring=`` of
        :func:`~sklearn.model_selection.cross_validate`.
    """

    def ambiguity(estimator, X, y=None):
        return float(np.mean(_auditor_of(estimator).ambiguous(X, eps)))

    return ambiguity


def discrepancy_scorer(eps=None):
    """Scorer: held-out disagreement of the fold's discrepancy model.

    The model of the training level set that flips the most training
    predictions (:meth:`MultiplicityAuditor.discrepancy_model`) is applied to
    the held-out people; the score is the share whose prediction it changes
    relative to the baseline.

    Parameters
    ----------
    eps : float in [0, 1] or None

    Returns
    -------
    callable
        ``scorer(auditor, X, y) -> float``.
    """

    def discrepancy(estimator, X, y=None):
        auditor = _auditor_of(estimator)
        model = auditor.discrepancy_model(eps)
        if model is None:
            return 0.0
        return float(np.mean(model.predict(X) != auditor.predict(X)))

    return discrepancy
