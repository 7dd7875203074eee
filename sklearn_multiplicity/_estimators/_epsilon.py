"""``suggest_epsilon``: the error tolerance from the uncertainty of an error."""

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.base import clone, is_classifier
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state
from sklearn.utils.validation import _num_samples

METHODS = ("bootstrap", "cv")


@dataclass(frozen=True)
class EpsilonSuggestion:
    """An error tolerance for the level set, and how it was derived.

    Returned by :func:`suggest_epsilon`; each parameter is stored as the
    attribute of the same name. ``float(suggestion)`` is ``epsilon``.

    Parameters
    ----------
    epsilon : float
        The suggested tolerance, a share of the training set in [0, 1].
    method : {"bootstrap", "cv"}
        How the confidence interval was computed.
    error : float
        The baseline's error estimate the interval is around (training error
        for ``"bootstrap"``, mean fold error for ``"cv"``).
    interval : tuple of float
        The confidence interval ``(lo, hi)`` of that error, clipped to [0, 1].
    description : str
        One sentence stating the definition and the numbers.

    See Also
    --------
    suggest_epsilon : Computes the suggestion.

    Examples
    --------
    >>> from sklearn_multiplicity import EpsilonSuggestion
    >>> s = EpsilonSuggestion(0.05, "cv", 0.2, (0.15, 0.25), "an example")
    >>> float(s)
    0.05
    """

    epsilon: float
    method: str
    error: float
    interval: tuple
    description: str

    def __float__(self):
        return float(self.epsilon)


def _check_params(method, n_resamples, confidence):
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, numbers.Integral)
        or n_resamples < 2
    ):
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}.")
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, numbers.Real)
        or not 0 < confidence < 1
    ):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")


def _weights(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    weight = np.asarray(sample_weight, dtype=float)
    if weight.shape != (n,) or np.any(weight < 0) or weight.sum() <= 0:
        raise ValueError(
            "sample_weight must be non-negative, one per row, with a positive sum."
        )
    return weight


def _fit(estimator, X, y, sample_weight):
    fitted = clone(estimator)
    if sample_weight is None:
        return fitted.fit(X, y)
    return fitted.fit(X, y, sample_weight=sample_weight)


def _take(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else np.asarray(X)[index]


def _bootstrap(estimator, X, y, weight, sample_weight, n_resamples, confidence, rng):
    """Percentile bootstrap over rows of the fitted model's training error."""
    wrong = np.asarray(_fit(estimator, X, y, sample_weight).predict(X)) != y
    error = float(weight @ wrong / weight.sum())
    n = y.shape[0]
    resampled = np.empty(n_resamples)
    for r in range(n_resamples):
        rows = rng.randint(0, n, size=n)
        total = weight[rows].sum()
        resampled[r] = weight[rows] @ wrong[rows] / total if total > 0 else error
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(resampled, [alpha, 1 - alpha])
    return error, float(lo), float(hi)


def _cross_validation(estimator, X, y, weight, sample_weight, cv, confidence):
    """Student-t interval of the mean of the held-out fold errors."""
    splitter = check_cv(cv, y, classifier=is_classifier(estimator))
    errors = []
    for train, test in splitter.split(X, y):
        fitted = _fit(
            estimator,
            _take(X, train),
            y[train],
            None if sample_weight is None else weight[train],
        )
        wrong = np.asarray(fitted.predict(_take(X, test))) != y[test]
        errors.append(weight[test] @ wrong / weight[test].sum())
    errors = np.asarray(errors, dtype=float)
    k = errors.size
    if k < 2:
        raise ValueError("cv must give at least 2 folds.")
    mean = float(errors.mean())
    sem = errors.std(ddof=1) / np.sqrt(k)
    half = float(stats.t.ppf((1 + confidence) / 2, df=k - 1) * sem)
    return mean, mean - half, mean + half, k


def suggest_epsilon(
    estimator,
    X,
    y,
    *,
    method="bootstrap",
    n_resamples=100,
    confidence=0.95,
    cv=5,
    sample_weight=None,
    random_state=None,
):
    """Suggest the error tolerance ``eps`` of the level set.

    The level set should contain, with high probability, the model that would
    be best in deployment. Training errors are noisy estimates of deployment
    errors: a competitor whose training error is within the statistical
    uncertainty of the baseline's error cannot be told apart from it. The
    suggested ``eps`` is therefore the half-width of a confidence interval of
    the baseline's error:

    - ``"bootstrap"``: the baseline is fitted once on ``(X, y)``; its per-row
      training mistakes are resampled with replacement ``n_resamples`` times
      and ``(lo, hi)`` are the ``(1 - confidence) / 2`` and
      ``(1 + confidence) / 2`` quantiles of the resampled (weighted) error
      rates; ``eps = (hi - lo) / 2``. This is about ``z * sqrt(p (1 - p) /
      n)`` for a training error ``p``.
    - ``"cv"``: the baseline is fitted on each of the ``cv`` training folds
      and scored on its held-out fold; with the mean ``m`` and the standard
      deviation ``s`` of the ``k`` fold errors, ``eps = t_{(1 + confidence) /
      2, k - 1} * s / sqrt(k)`` and ``(lo, hi) = (m - eps, m + eps)``.

    ``eps`` is clipped to [0, 1].

    Parameters
    ----------
    estimator : estimator
        The baseline; cloned and fitted (a
        :class:`~sklearn.frozen.FrozenEstimator` is used as is, so that the
        bootstrap does not refit an expensive model).
    X : array-like of shape (n_samples, n_features)
        Training data, as given to the baseline's ``fit``.
    y : array-like of shape (n_samples,)
        Target labels.
    method : {"bootstrap", "cv"}, default="bootstrap"
        How the uncertainty of the error is estimated (see above).
    n_resamples : int, default=100
        Bootstrap resamples (``"bootstrap"`` only).
    confidence : float in (0, 1), default=0.95
        Confidence level of the interval.
    cv : int, cross-validation generator or iterable, default=5
        Folds for ``"cv"`` (stratified for classifiers, as in scikit-learn).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the error counts (and of the fits).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap.

    Returns
    -------
    EpsilonSuggestion
        ``epsilon``, ``method``, ``error``, ``interval`` and ``description``.

    See Also
    --------
    MultiplicityAuditor : Audits the level set of the suggested tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_multiplicity import suggest_epsilon
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> s = suggest_epsilon(LogisticRegression(), X, y, random_state=0)
    >>> 0 < s.epsilon < 0.2
    True
    """
    _check_params(method, n_resamples, confidence)
    y = np.asarray(y)
    n = _num_samples(X)
    if y.shape != (n,):
        raise ValueError(f"y has shape {y.shape}; expected ({n},).")
    weight = _weights(sample_weight, n)
    level = f"{confidence:.0%}"
    if method == "bootstrap":
        rng = check_random_state(random_state)
        error, lo, hi = _bootstrap(
            estimator, X, y, weight, sample_weight, n_resamples, confidence, rng
        )
        epsilon = (hi - lo) / 2
        description = (
            f"half-width of the {level} percentile bootstrap interval "
            f"({n_resamples} resamples of the {n} rows) of the baseline's "
            f"training error {error:.4f}: ({lo:.4f}, {hi:.4f})"
        )
    else:
        error, lo, hi, k = _cross_validation(
            estimator, X, y, weight, sample_weight, cv, confidence
        )
        epsilon = (hi - lo) / 2
        description = (
            f"half-width of the {level} Student-t interval of the mean "
            f"held-out error {error:.4f} over {k} cross-validation folds: "
            f"({lo:.4f}, {hi:.4f})"
        )
    epsilon = float(np.clip(epsilon, 0.0, 1.0))
    interval = (float(np.clip(lo, 0.0, 1.0)), float(np.clip(hi, 0.0, 1.0)))
    return EpsilonSuggestion(epsilon, method, float(error), interval, description)
