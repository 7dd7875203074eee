"""Turn the estimator given to the auditor into a fitted linear baseline."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, has_fit_parameter

from . import _dask_patterns as dask_patterns

SUPPORTED = (
    "a linear classifier exposing coef_ and intercept_ (LogisticRegression, "
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

    @property
    def scores(self):
        """``(coef (K, d), intercept (K,))`` of a K-class baseline."""
        linear = self.linear
        return (
            np.asarray(linear.coef_, dtype=float),
            np.asarray(linear.intercept_, dtype=float).ravel(),
        )


#: How to use text columns, said by every error about them.
ENCODE_TEXT = (
    "encode them first (e.g. in a Pipeline starting with a ColumnTransformer "
    "that one-hot encodes them with a OneHotEncoder) or drop them"
)


def text_columns(X):
    """The columns of ``X`` holding text (strings that are not numbers):
    names for a DataFrame, ``column j`` for an array; empty when there are
    none (or ``X`` is neither a DataFrame nor a 2-D array)."""
    if isinstance(X, pd.DataFrame):
        return [
            str(name)
            for name, column in X.items()
            if not pd.api.types.is_numeric_dtype(column)
            and not pd.api.types.is_bool_dtype(column)
            and _holds_text(column.dropna())
        ]
    array = np.asarray(X) if hasattr(X, "__array__") else None
    if array is None or array.ndim != 2 or array.dtype.kind not in "OUS":
        return []
    return [f"column {j}" for j in range(array.shape[1]) if _holds_text(array[:, j])]


def _holds_text(values):
    """Whether some value is a string that is not a number ("1.5" converts)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.cat.categories
    return any(isinstance(v, (str, bytes)) and not _is_number(v) for v in values)


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_no_text(X, model):
    """Raise a ``ValueError`` naming the text columns of ``X`` when the
    numeric ``model`` (its name) would take them as they are."""
    text = text_columns(X)
    if text:
        raise ValueError(
            f"X has text column(s) {', '.join(map(repr, text))} that {model} "
            f"cannot use as numbers; {ENCODE_TEXT}."
        )


def _unfrozen(estimator):
    if isinstance(estimator, FrozenEstimator):
        return estimator.estimator, True
    return estimator, False


def fit_baseline(estimator, X, y, sample_weight=None):
    """Fit (or take as is, when frozen) the baseline and check it is linear.

    Text columns are refused up front when ``X`` goes straight to the linear
    model; a Pipeline may encode them, so only its failure names them.
    """
    inner, frozen = _unfrozen(estimator)
    if not isinstance(inner, Pipeline):
        check_no_text(X, type(inner).__name__)
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
        _fit_naming_text(fitted, X, y, kwargs)
        inner = fitted
    if isinstance(inner, Pipeline):
        linear, prefix, pipeline = inner.steps[-1][1], inner.steps[:-1], inner
    else:
        linear, prefix, pipeline = inner, [], None
    _check_linear_type(linear)
    check_is_fitted(linear)
    _check_linear_fitted(linear)
    return Baseline(fitted, pipeline, linear, prefix)


def _fit_naming_text(estimator, X, y, kwargs):
    """``estimator.fit``; a failure to read text as numbers names the text
    columns of ``X``."""
    try:
        estimator.fit(X, y, **kwargs)
    except (ValueError, TypeError) as exc:
        # numpy's "could not convert string to float" and scikit-learn's
        # "not compatible with arrays of bytes/strings" both say "string".
        text = text_columns(X)
        if not text or "string" not in str(exc):
            raise
        raise ValueError(
            f"{type(estimator).__name__}.fit could not use the text column(s) "
            f"{', '.join(map(repr, text))} of X ({exc}); {ENCODE_TEXT}."
        ) from exc


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
    coef, K = np.asarray(coef), len(classes)
    if K > 2:
        # K labels: one row of scores per label, the prediction their argmax.
        if coef.ndim != 2 or coef.shape[0] != K or np.size(intercept) != K:
            raise TypeError(
                f"{name} has {K} classes, coef_ of shape {coef.shape} and "
                f"{np.size(intercept)} intercepts; a K-class linear classifier "
                f"has coef_ of shape ({K}, n_features) and {K} intercepts."
            )
        return
    if K != 2 or not (coef.ndim == 1 or coef.shape[0] == 1):
        raise TypeError(
            f"{name} has {K} classes and coef_ of shape {coef.shape}; "
            f"the auditor needs {SUPPORTED}."
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
        X : array-like of shape (n_samples, n_features) or dask DataFrame
            People to predict.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted classes (for a dask DataFrame, a dask Series named
            ``"prediction"`` with its index, computed per partition).
        """
        return self._delegate("predict", X)

    @available_if(_baseline_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the baseline.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People to score on the baseline's scale.

        Returns
        -------
        ndarray of shape (n_samples,)
            Scores (positive: the second class).
        """
        return self._delegate("decision_function", X)

    @available_if(_baseline_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the baseline (when it has them).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People whose class probabilities are asked for.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Probabilities of both classes.
        """
        return self._delegate("predict_proba", X)

    def _delegate(self, method, X):
        """The fitted baseline's ``method`` on ``X`` (predictions of a dask
        DataFrame per partition)."""
        check_is_fitted(self)
        if method == "predict" and dask_patterns.is_dask(X):
            return dask_patterns.per_partition(X, self.estimator_.predict, "prediction")
        return getattr(self.estimator_, method)(X)
