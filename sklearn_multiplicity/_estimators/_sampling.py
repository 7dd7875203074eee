"""``SamplingAuditor``: the sampled ("ad hoc") estimate of predictive multiplicity."""

import numbers
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted

from .._core import ClassBudget, LevelSet
from .._core._validation import (
    PerClassEpsilon,
    check_binary_target,
    check_tolerance,
    check_weights,
)
from ._baseline import fit_baseline

#: Range of the inverse regularisation strengths ``C`` of the pooled models
#: (``np.logspace(C_RANGE[0], C_RANGE[1], k)`` for each penalty).
C_RANGE = (-4, 2)


def _penalised_logistic(C, l1, random_state):
    """Liblinear logistic regression with an l1 or l2 penalty of strength ``1/C``."""
    if LogisticRegression().get_params().get("penalty") == "deprecated":
        penalty = {"l1_ratio": 1.0 if l1 else 0.0}  # scikit-learn >= 1.8
    else:  # pragma: no cover - scikit-learn < 1.8
        penalty = {"penalty": "l1" if l1 else "l2"}
    return LogisticRegression(
        C=float(C),
        solver="liblinear",
        max_iter=1000,
        random_state=random_state,
        **penalty,
    )


def _coarse_to_fine(n):
    """``range(n)`` in an order whose every prefix spreads over the range.

    Every 2**k-th index before those in between (0, 8, 16, ..., 4, 12, ...,
    then the odd ones), so a pool cut short still spans every ``C``.
    """

    def stride(j):
        return (j & -j).bit_length() if j else n.bit_length() + 1

    return sorted(range(n), key=lambda j: (-stride(j), j))


def _check_n_models(n_models):
    if (
        isinstance(n_models, bool)
        or not isinstance(n_models, numbers.Integral)
        or n_models < 1
    ):
        raise ValueError(f"n_models must be a positive integer, got {n_models!r}.")
    return int(n_models)


class SamplingAuditor(BaseEstimator):
    """Sampled lower estimate of ambiguity and discrepancy (the "ad hoc" audit).

    Fits a pool of penalised logistic regressions on the training data (a
    grid of l1 and l2 strengths), keeps those of the ``eps``-level set of the
    baseline (training error at most the baseline's plus the allowance, as in
    :class:`MultiplicityAuditor`), and reports

    - **ambiguity**: the share of training people whose prediction some
      pooled model of the set flips;
    - **discrepancy**: the largest share of predictions one pooled model of
      the set flips.

    These are **lower estimates**: the pool is a sample of the level set, so
    it can only miss flips, never invent them. The exact measures of
    :class:`MultiplicityAuditor` are at least as large (over linear
    classifiers of the same feature space); a large gap between the two is
    what the paper calls the under-estimation of multiplicity by ad hoc
    sampling.

    Parameters
    ----------
    estimator : estimator, default=None
        The baseline: a binary linear classifier or a Pipeline ending in one
        (the pool is then fitted on its transformed features), cloned and
        fitted on ``(X, y)``; wrap a prefit model in
        :class:`~sklearn.frozen.FrozenEstimator` to use it as is. ``None``:
        :class:`~sklearn.linear_model.LogisticRegression`.
    n_models : int, default=100
        Size of the pool: ``n_models // 2`` l1-penalised and the rest
        l2-penalised logistic regressions, with ``C`` on
        ``np.logspace(-4, 2, k)`` for each penalty (liblinear solver).
    random_state : int, RandomState instance or None, default=None
        Seeds the liblinear solver of the pooled models.
    time_limit : float or None, default=None
        Seconds for fitting the pool. When they run out the pool holds the
        models fitted so far (at least one), taken alternately from both
        penalties and spread over the range of ``C``; ``n_models_`` says how
        many. ``None``: all ``n_models``.
    reference : {"baseline", "best"}, default="baseline"
        What the pooled models are compared with. ``"baseline"``: the level
        set around the baseline and flips of its predictions, a lower
        estimate of the exact measures (the paper's comparison). ``"best"``:
        the level set around the most accurate pooled model and flips of its
        predictions: the multiplicity among the sampled models themselves,
        which stays informative when every pooled model is worse than the
        baseline (a 0-1 optimal one, say) and the baseline's level set holds
        none of them.

    Attributes
    ----------
    estimator_ : estimator
        The fitted baseline.
    classes_ : ndarray of shape (2,)
    baseline_errors_ : float
        Weighted training errors of the baseline.
    baseline_error_ : float
        ``baseline_errors_`` as a share of the total weight.
    models_ : list of LogisticRegression
        The fitted pool (on the baseline's feature space).
    model_errors_ : ndarray of shape (n_models,)
        Weighted training errors of each pooled model.
    model_false_positives_, model_false_negatives_ : ndarray of shape (n_models,)
        The two kinds of weighted training error of each pooled model (for
        per-class tolerances).
    flips_ : ndarray of bool, shape (n_models, n_samples)
        Where each pooled model's prediction differs from the reference's.
    n_models_ : int
        Number of pooled models.
    reference_errors_ : float
        Weighted training errors of the reference.

    See Also
    --------
    MultiplicityAuditor : The exact measures (Marx, Calmon & Ustun, ICML 2020),
        with certified bounds.

    Notes
    -----
    The ``eps``-level set holds the pooled models with weighted training
    error at most ``err(h0) + eps * W`` (``W`` the total weight); with
    integral weights the allowance is rounded down, ``floor(eps * W)`` (so
    ``floor(eps * n)`` extra errors with unit weights), exactly as in
    :class:`MultiplicityAuditor`. Every ``eps`` may also be a dict of one
    tolerance per class label: false positives and false negatives then
    have their own allowances, as in :class:`MultiplicityAuditor`.

    The exact auditor's hypothesis class asks
    every training pattern to score at least a small margin away from the
    threshold; a pooled model scoring a pattern within that margin is, in
    rare cases, outside the class, and only then can a sampled value exceed
    the exact one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import SamplingAuditor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(60, 3))
    >>> y = (X[:, 0] + rng.rand(60) > 0.8).astype(int)
    >>> sampling = SamplingAuditor(n_models=20, random_state=0).fit(X, y)
    >>> sampling.n_models_
    20
    >>> 0.0 <= sampling.discrepancy(0.05) <= sampling.ambiguity(0.05) <= 1.0
    True
    """

    def __init__(
        self,
        estimator=None,
        n_models=100,
        random_state=None,
        time_limit=None,
        reference="baseline",
    ):
        self.estimator = estimator
        self.n_models = n_models
        self.random_state = random_state
        self.time_limit = time_limit
        self.reference = reference

    @classmethod
    def from_auditor(
        cls,
        auditor,
        X,
        y,
        sample_weight=None,
        *,
        n_models=100,
        random_state=None,
        time_limit=None,
        reference="baseline",
    ):
        """Sampled estimate around the baseline of a fitted auditor.

        Parameters
        ----------
        auditor : MultiplicityAuditor
            A fitted auditor; its ``estimator_`` is the baseline, used as is.
        X : array-like of shape (n_samples, n_features)
            The auditor's training data.
        y : array-like of shape (n_samples,)
            The auditor's training labels.
        sample_weight : array-like of shape (n_samples,), default=None
            The weights the auditor was fitted with.
        n_models : int, default=100
            Size of the pool, as in the constructor.
        random_state : int, RandomState instance or None, default=None
            Seeds the pooled models, as in the constructor.
        time_limit : float or None, default=None
            Seconds for fitting the pool, as in the constructor.
        reference : {"baseline", "best"}, default="baseline"
            What the pooled models are compared with, as in the constructor.

        Returns
        -------
        SamplingAuditor
            A sampling auditor fitted on ``(X, y)`` around the auditor's
            baseline.
        """
        from sklearn.frozen import FrozenEstimator

        check_is_fitted(auditor, "estimator_")
        sampling = cls(
            FrozenEstimator(auditor.estimator_),
            n_models=n_models,
            random_state=random_state,
            time_limit=time_limit,
            reference=reference,
        )
        return sampling.fit(X, y, sample_weight=sample_weight)

    def fit(self, X, y, sample_weight=None):
        """Fit the baseline and the pool of penalised logistic regressions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels, two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative; passed to every fit and used in every error count.

        Returns
        -------
        self : SamplingAuditor
            The fitted sampling auditor.
        """
        n_models = _check_n_models(self.n_models)
        if self.time_limit is not None and not (
            isinstance(self.time_limit, numbers.Real) and self.time_limit >= 0
        ):
            raise ValueError(
                "time_limit must be a non-negative number or None, got "
                f"{self.time_limit!r}."
            )
        if self.reference not in ("baseline", "best"):
            raise ValueError(
                f"reference must be 'baseline' or 'best', got {self.reference!r}."
            )
        y = np.asarray(y)
        self.classes_, y01 = check_binary_target(y)
        Z_probe = check_array(X, dtype=None, ensure_all_finite=False)
        weight = check_weights(sample_weight, Z_probe)
        unit = sample_weight is None
        baseline = fit_baseline(
            self.estimator if self.estimator is not None else LogisticRegression(),
            X,
            y,
            None if unit else weight,
        )
        self.estimator_ = baseline.estimator
        Z = check_array(baseline.transform(X), dtype=np.float64)
        truth = y01.astype(bool)
        base = np.asarray(self.estimator_.predict(X)) == self.classes_[1]
        self.models_ = self._fit_pool(Z, y, None if unit else weight, n_models)
        predictions = np.array(
            [model.predict(Z) == self.classes_[1] for model in self.models_]
        )
        self._weight = weight
        self.baseline_errors_ = float(weight @ (base != truth))
        self.baseline_error_ = self.baseline_errors_ / weight.sum()
        self.model_errors_ = (predictions != truth) @ weight
        self.model_false_positives_ = (predictions & ~truth) @ weight
        self.model_false_negatives_ = (~predictions & truth) @ weight
        self.reference_errors_ = self.baseline_errors_
        if self.reference == "best":
            best = int(np.argmin(self.model_errors_))
            base = predictions[best]
            self.reference_errors_ = float(self.model_errors_[best])
        self._reference = base
        self._truth = truth
        self.flips_ = predictions != base
        self.n_models_ = len(self.models_)
        return self

    def _fit_pool(self, Z, y, sample_weight, n_models):
        rng = check_random_state(self.random_state)
        n_l1 = n_models // 2
        grid = [(C, True) for C in np.logspace(*C_RANGE, n_l1)]
        grid += [(C, False) for C in np.logspace(*C_RANGE, n_models - n_l1)]
        seeds = [int(rng.randint(np.iinfo(np.int32).max)) for _ in grid]
        l1 = _coarse_to_fine(n_l1)
        l2 = [n_l1 + j for j in _coarse_to_fine(n_models - n_l1)]
        order = [j for pair in zip(l2, l1, strict=False) for j in pair]
        order += l2[len(l1) :] + l1[len(l2) :]
        end = None if self.time_limit is None else time.perf_counter() + self.time_limit
        models = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for j in order:
                if models and end is not None and time.perf_counter() >= end:
                    break
                model = _penalised_logistic(*grid[j], seeds[j])
                models[j] = model.fit(Z, y, sample_weight=sample_weight)
        return [models[j] for j in sorted(models)]

    # -------------------------------------------------------------- measures
    def comparison(self):
        """What the estimates compare, in words.

        Returns
        -------
        str
            The pool, the reference it is compared with, and whether the
            estimates bound the exact values from below.
        """
        check_is_fitted(self, "flips_")
        pool = f"{self.n_models_} penalised logistic regressions"
        if self.reference == "best":
            return (
                f"{pool} within eps of the most accurate of them, against its "
                "predictions (multiplicity among the sampled models, not a "
                "bound on the exact values)"
            )
        return (
            f"{pool} within eps of the baseline, against its predictions (a "
            "lower estimate of the exact values)"
        )

    def _level_set(self):
        weight, truth, reference = self._weight, self._truth, self._reference
        scalar = LevelSet.from_weights(weight, self.reference_errors_)
        return LevelSet(
            scalar.baseline_errors,
            scalar.total_weight,
            scalar.integral,
            float(weight @ (reference & ~truth)),
            float(weight @ (~reference & truth)),
            float(weight @ ~truth),
            float(weight @ truth),
            scalar.unit,
        )

    def in_level_set(self, eps):
        """Mask of the pooled models in the ``eps``-level set.

        Parameters
        ----------
        eps : float in [0, 1] or dict
            Error tolerance, a share of the total training weight, or one
            per class label (a share of that class's weight; see Notes).

        Returns
        -------
        ndarray of bool, shape (``n_models_``,)
            True for the pooled models whose training error is within the
            allowance of the baseline's.
        """
        check_is_fitted(self, "flips_")
        budget = self._level_set().budget(check_tolerance(eps, self.classes_))
        if isinstance(budget, ClassBudget):
            return budget.admits(
                self.model_false_positives_, self.model_false_negatives_
            )
        return LevelSet.within(self.model_errors_, budget)

    def ambiguity(self, eps):
        """Share of people whose prediction some pooled level-set model flips.

        A lower estimate of the exact ambiguity.

        Parameters
        ----------
        eps : float in [0, 1] or dict
            Tolerance of the pooled models that may flip a person.

        Returns
        -------
        float
            Weighted share of the training rows flipped by at least one
            pooled level-set model.
        """
        return float(self._weight @ self.contestable(eps) / self._weight.sum())

    def discrepancy(self, eps):
        """Largest share of predictions one pooled level-set model flips.

        A lower estimate of the exact discrepancy (0 when no pooled model is
        in the set: the baseline alone flips nothing).

        Parameters
        ----------
        eps : float in [0, 1] or dict
            Tolerance: each pooled model within it is compared with the
            baseline.

        Returns
        -------
        float
            Largest weighted share of the training rows one pooled level-set
            model flips.
        """
        flips = self.flips_[self.in_level_set(eps)]
        if flips.shape[0] == 0:
            return 0.0
        return float(np.max(flips @ self._weight) / self._weight.sum())

    def contestable(self, eps):
        """Per training row: whether a pooled level-set model flips it.

        Parameters
        ----------
        eps : float in [0, 1] or dict
            Tolerance of the pooled models asked, row by row.

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            True for the training rows some pooled level-set model flips.
        """
        return self.flips_[self.in_level_set(eps)].any(axis=0)

    def path(self, max_epsilon, *, step=None):
        """Sampled ambiguity and discrepancy for tolerances up to ``max_epsilon``.

        The grid is the one of :meth:`MultiplicityAuditor.path`: with
        integral weights every whole number of extra errors from 0 to
        ``floor(max_epsilon * W)``; otherwise ``step``-spaced tolerances
        (default: 11 equally spaced from 0 to ``max_epsilon``). With a dict
        of per-class tolerances, both rates grow in equal steps, each capped
        at its own maximum.

        Parameters
        ----------
        max_epsilon : float in [0, 1] or dict
            Largest error tolerance of the grid (or one per class label).
        step : float, default=None
            Spacing of tolerances when weights are not integral or the
            tolerances are per class.

        Returns
        -------
        pandas.DataFrame
            Columns ``epsilon``, ``ambiguity``, ``discrepancy``,
            ``n_models_in_set``; per class, ``epsilon`` is the step's
            common rate and ``epsilon_<label>`` each class's tolerance.
        """
        check_is_fitted(self, "flips_")
        max_eps = check_tolerance(max_epsilon, self.classes_, "max_epsilon")
        if isinstance(max_eps, PerClassEpsilon):
            steps = [
                (common, eps, eps.columns()) for common, eps in max_eps.steps(step)
            ]
        else:
            epsilons, _, _ = self._level_set().grid(max_eps, step)
            steps = [(float(e), float(e), {}) for e in np.minimum(epsilons, 1.0)]
        rows = [
            {
                "epsilon": float(common),
                **columns,
                "ambiguity": self.ambiguity(eps),
                "discrepancy": self.discrepancy(eps),
                "n_models_in_set": int(self.in_level_set(eps).sum()),
            }
            for common, eps, columns in steps
        ]
        return pd.DataFrame(rows)
