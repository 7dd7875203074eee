"""Turn the estimator given to the auditor into a fitted linear baseline."""

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, has_fit_parameter

SUPPORTED = (
    "a binary linear classifier exposing coef_ and intercept_ (LogisticRegression, "
    "LinearSVC, SGDClassifier, RidgeClassifier, ZeroOneLinearClassifier, ...), "
    "a Pipeline ending in one, or either wrapped in sklearn.frozen.FrozenEstimator"
)


@dataclass
class Baseline:
    """A fitted baseline: the estimator, the audit space and its linear model.

    Attributes
    ----------
    estimator : the fitted estimator (as given, frozen, or a fitted clone).
    pipeline : the fitted Pipeline whose transformers map user ``X`` to the
        audit space, or None (the audit space is the input space).
    linear : the final linear classifier.
    prefix : list of fitted pipeline steps before ``linear`` (empty if none).
    """

    estimator: object
    pipeline: object
    linear: object
    prefix: list

    @classmethod
    def of(cls, linear):
        """The baseline of a fitted linear classifier used as is."""
        return cls(linear, None, linear, [])

    def transform(self, X):
        """User ``X`` in the audit space."""
        return X if self.pipeline is None else self.pipeline[:-1].transform(X)

    def audit_space(self, X):
        """User ``X`` in the audit space, as a finite float array."""
        return check_array(
            self.transform(X),
            dtype=np.float64,
            input_name="X (in the baseline's feature space)",
        )

    @property
    def feature_names(self):
        """Names of the audit space's columns, when the estimator knows them."""
        if self.pipeline is None:
            return getattr(self.linear, "feature_names_in_", None)
        try:
            return self.pipeline[:-1].get_feature_names_out()
        except (AttributeError, ValueError, TypeError):
            return None

    @property
    def coef(self):
        return np.asarray(self.linear.coef_, dtype=float).ravel()

    @property
    def intercept(self):
        return float(np.ravel(self.linear.intercept_)[0])


def _unfrozen(estimator):
    if isinstance(estimator, FrozenEstimator):
        return estimator.estimator, True
    return estimator, False


def fit_baseline(estimator, X, y, sample_weight=None):
    """Fit (or take as is, when frozen) the baseline and check it is linear."""
    inner, frozen = _unfrozen(estimator)
    if frozen:
        fitted = estimator
    else:
        try:
            fitted = clone(estimator)
        except TypeError as exc:
            raise TypeError(
                f"The estimator {estimator!r} cannot be cloned ({exc}); the auditor "
                f"needs {SUPPORTED}."
            ) from exc
        _check_linear_type(fitted)
        kwargs = {}
        if sample_weight is not None:
            if not _accepts_sample_weight(fitted):
                raise TypeError(
                    f"{type(fitted).__name__}.fit does not accept sample_weight."
                )
            kwargs = _sample_weight_kwargs(fitted, sample_weight)
        fitted.fit(X, y, **kwargs)
        inner = fitted
    if isinstance(inner, Pipeline):
        linear, prefix, pipeline = inner.steps[-1][1], inner.steps[:-1], inner
    else:
        linear, prefix, pipeline = inner, [], None
    _check_linear_type(linear)
    check_is_fitted(linear)
    _check_linear_fitted(linear)
    return Baseline(fitted, pipeline, linear, prefix)


def _check_linear_type(estimator):
    if isinstance(estimator, Pipeline):
        estimator = estimator.steps[-1][1]
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise TypeError(
            f"{estimator!r} is not an estimator; the auditor needs {SUPPORTED}."
        )


def _check_linear_fitted(linear):
    name = type(linear).__name__
    coef = getattr(linear, "coef_", None)
    intercept = getattr(linear, "intercept_", None)
    classes = getattr(linear, "classes_", None)
    if coef is None or intercept is None or classes is None:
        raise TypeError(
            f"{name} is not a linear classifier (it lacks coef_, intercept_ or "
            f"classes_); the auditor needs {SUPPORTED}."
        )
    coef = np.asarray(coef)
    if len(classes) != 2 or not (coef.ndim == 1 or coef.shape[0] == 1):
        raise TypeError(
            f"{name} has {len(classes)} classes and coef_ of shape {coef.shape}; "
            f"only binary problems are supported ({SUPPORTED})."
        )
    if np.size(np.ravel(intercept)) != 1:
        raise TypeError(f"{name}.intercept_ must hold one value for a binary problem.")


def _accepts_sample_weight(estimator):
    if isinstance(estimator, Pipeline):
        return has_fit_parameter(estimator.steps[-1][1], "sample_weight")
    return has_fit_parameter(estimator, "sample_weight")


def _sample_weight_kwargs(estimator, sample_weight):
    if isinstance(estimator, Pipeline):
        return {f"{estimator.steps[-1][0]}__sample_weight": sample_weight}
    return {"sample_weight": sample_weight}


def _baseline_has(name):
    """``available_if`` check: the (fitted or given) baseline has ``name``."""

    def check(self):
        baseline = getattr(self, "estimator_", None) or self.estimator
        return hasattr(baseline if baseline is not None else self._default(), name)

    return check


class BaselineDelegationMixin:
    """``predict``, ``decision_function`` and ``predict_proba`` of ``estimator_``.

    For meta-estimators whose fitted baseline is ``estimator_``; the methods
    exist when the baseline has them (``estimator``, or ``_default()`` when it
    is ``None``).
    """

    def predict(self, X):
        """Predictions of the baseline.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People to predict.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted classes.
        """
        check_is_fitted(self)
        return self.estimator_.predict(X)

    @available_if(_baseline_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the baseline.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            Scores (positive: the second class).
        """
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    @available_if(_baseline_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the baseline (when it has them).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People to score.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Probabilities of both classes.
        """
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)
