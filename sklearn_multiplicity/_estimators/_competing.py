"""``CompetingModel``: a linear model of the level set, as a fitted estimator."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model._base import LinearClassifierMixin


class CompetingModel(LinearClassifierMixin, BaseEstimator):
    """A fitted linear model of the level set, found by the auditor.

    Parameters
    ----------
    coef : array-like of shape (n_features,) or (n_classes, n_features), \
            default=None
        Weights on the audit space: one row for two labels, one row per
        label for more (the label of the highest score wins).
    intercept : float or array-like of shape (n_classes,), default=0.0
        Intercept (one per label for more than two).
    classes : array-like of shape (n_classes,), default=None
        The class labels (for two, negative first).
    n_errors : float, default=None
        Weighted training errors.
    source : str, default=""
        The MIP or heuristic that found it.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights on the audit space (the baseline's input, or the output of
        its pipeline's transformers); one row per label for more than two.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercept.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features of the audit space.
    n_errors_ : float
        Weighted training errors.

    See Also
    --------
    MultiplicityAuditor.competing_model : A model flipping one person.
    MultiplicityAuditor.discrepancy_model : The model flipping the most people.

    Examples
    --------
    >>> from sklearn_multiplicity import CompetingModel
    >>> model = CompetingModel([1.0, -1.0], 0.5, [0, 1], n_errors=3).fit()
    >>> model.predict([[0.0, 1.0], [1.0, 0.0]]).tolist()
    [0, 1]
    """

    def __init__(
        self, coef=None, intercept=0.0, classes=None, n_errors=None, source=""
    ):
        self.coef = coef
        self.intercept = intercept
        self.classes = classes
        self.n_errors = n_errors
        self.source = source

    def fit(self, X=None, y=None):
        """Store the given coefficients as fitted attributes (no learning).

        Parameters
        ----------
        X : None
            Ignored.
        y : None
            Ignored.

        Returns
        -------
        self : CompetingModel
            The fitted model.
        """
        self.classes_ = np.asarray(self.classes)
        rows = 1 if self.classes_.size <= 2 else self.classes_.size
        self.coef_ = np.asarray(self.coef, dtype=float).reshape(rows, -1)
        self.intercept_ = np.asarray(self.intercept, dtype=float).reshape(rows)
        self.n_features_in_ = self.coef_.shape[1]
        self.n_errors_ = self.n_errors
        return self
