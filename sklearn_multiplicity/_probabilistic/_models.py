"""The models of a :class:`ProbabilisticAuditor`'s level set: its objective,
its level and the models attaining a person's range (or giving a label)."""

from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .._engine import Deadline


class ModelsMixin:
    """Models of :class:`ProbabilisticAuditor`.

    Reads the auditor's ``_eps``, ``_level_set``, ``_labels`` (the K-label
    audit, None for two labels), ``_rows``, ``_baseline`` and ``tol``.
    """

    def objective_level(self, eps=None):
        """The largest objective of a model of the level set.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        float
            ``F(baseline) + eps``.
        """
        return self._level_set.level(self._eps(eps))

    def objective(self, estimator):
        """The level set's objective ``F`` of a model on the training data.

        Parameters
        ----------
        estimator : estimator
            A fitted ``LogisticRegression`` of the audit space, or a Pipeline
            ending in one (e.g. from :meth:`extreme_models`).

        Returns
        -------
        float
            ``F(coef_, intercept_)``; the model is in the level set at ``eps``
            when this is at most :meth:`objective_level` ``(eps)``.
        """
        check_is_fitted(self)
        last = estimator[-1] if isinstance(estimator, Pipeline) else estimator
        objective = self._level_set.objective
        theta = objective.theta(last.coef_, last.intercept_)
        return float(np.ravel(objective.value(theta[:, None]))[0])

    def extreme_models(self, i, eps=None):
        """The two models of the level set attaining training person ``i``'s range.

        Two labels only (for more, :meth:`label_model`).

        Parameters
        ----------
        i : int
            Position of the person in the training data.
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        tuple of estimator
            ``(lowest, highest)``: fitted copies of the baseline (Pipelines
            when it is one) whose probability for person ``i`` is the range's
            ``lower`` and ``upper``; :meth:`objective` shows they are in the
            set.
        """
        eps = self._eps(eps)
        if self._labels is not None:
            raise ValueError(
                "extreme_models is defined for two labels; with "
                f"{len(self.classes_)} labels use label_model(i, label) (a "
                "model of the set giving person i the label) and "
                "viable_prediction_range."
            )
        i = self._person(i)
        row = self._rows[[i]]
        ranges = self._level_set.ranges(
            row,
            eps,
            lambda b: (np.ones(1, bool), np.ones(1, bool)),
            self.tol,
            deadline=Deadline(None),
        )
        thetas = [
            self._level_set.attaining(ranges, 0, row[0], end, eps)
            for end in ("lower", "upper")
        ]
        return tuple(self._model(theta) for theta in thetas)

    def _person(self, i):
        n = len(self._weight)
        if not isinstance(i, Integral) or not -n <= i < n:
            raise IndexError(f"i must be a training row in [0, {n}), got {i!r}.")
        return int(i) % n

    def _model(self, theta):
        """A fitted copy of the baseline with the parameters ``theta``."""
        lr = self._baseline.linear
        model = clone(lr)
        for name in ("classes_", "n_features_in_", "feature_names_in_", "n_iter_"):
            if hasattr(lr, name):
                setattr(model, name, getattr(lr, name))
        if self._labels is None:
            coef, intercept = self._level_set.objective.split(np.asarray(theta))
            model.coef_ = coef.reshape(1, -1)
            model.intercept_ = np.array([intercept])
        else:
            model.coef_, model.intercept_ = self._labels.coefficients(theta)
        if self._baseline.pipeline is None:
            return model
        steps = list(self._baseline.pipeline.steps)
        return Pipeline(steps[:-1] + [(steps[-1][0], model)])
