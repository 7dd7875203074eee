"""Scorers reporting held-out probabilistic multiplicity in ``cross_validate``."""

import numpy as np

from .._reporting._scorers import audited
from ._auditor import ProbabilisticAuditor


def _audited(estimator, X):
    return audited(
        estimator, X, ProbabilisticAuditor, "Probabilistic multiplicity scorers"
    )


def vpr_width_scorer(eps=None):
    """Scorer: mean width of the held-out people's viable prediction ranges.

    Ranges are over the level set of the fold's training data (see
    :meth:`ProbabilisticAuditor.viable_prediction_range`).

    Parameters
    ----------
    eps : float or None, default=None
        Tolerance of the fold's level set, in nats of mean log-loss;
        ``None`` uses the auditor's ``log_loss_epsilon``.

    Returns
    -------
    callable
        The mean width, for ``scoring=`` of
        :func:`~sklearn.model_selection.cross_validate` (how it is called:
        :ref:`sklearn`).

    See Also
    --------
    probabilistic_ambiguity_scorer : Held-out people whose decision can flip.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn_multiplicity import (
    ...     ProbabilisticAuditor, vpr_width_scorer, probabilistic_ambiguity_scorer)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> scoring = {"width": vpr_width_scorer(),
    ...            "ambiguity": probabilistic_ambiguity_scorer()}
    >>> scores = cross_validate(
    ...     ProbabilisticAuditor(log_loss_epsilon=0.02), X, y, cv=2, scoring=scoring)
    >>> bool(np.all((0 <= scores["test_width"]) & (scores["test_width"] <= 1)))
    True
    """

    def vpr_width(estimator, X, y=None):
        auditor, X = _audited(estimator, X)
        ranges = auditor.viable_prediction_range(X, eps)
        return float(ranges["width"].mean())

    return vpr_width


def probabilistic_ambiguity_scorer(eps=None, threshold=None):
    """Scorer: share of held-out people whose thresholded decision can flip.

    A person counts when some model of the fold's level set puts their
    probability on the other side of the threshold (their attained range
    crosses it).

    Parameters
    ----------
    eps : float or None, default=None
        Tolerance of the fold's level set, as for :func:`vpr_width_scorer`.
    threshold : float or None, default=None
        Decision threshold; ``None`` uses the auditor's ``threshold``.

    Returns
    -------
    callable
        The share of held-out people whose decision can flip: a scorer as
        :ref:`sklearn` describes.

    See Also
    --------
    vpr_width_scorer : Mean width of the held-out ranges.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import (
    ...     ProbabilisticAuditor, probabilistic_ambiguity_scorer)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> auditor = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X[:40], y[:40])
    >>> 0.0 <= probabilistic_ambiguity_scorer()(auditor, X[40:], y[40:]) <= 1.0
    True
    """

    def probabilistic_ambiguity(estimator, X, y=None):
        auditor, X = _audited(estimator, X)
        t = auditor.threshold if threshold is None else threshold
        ranges = auditor.viable_prediction_range(X, eps)
        positive = ranges["baseline"] > t
        flips = np.where(positive, ranges["lower"] <= t, ranges["upper"] > t)
        return float(np.mean(flips))

    return probabilistic_ambiguity
