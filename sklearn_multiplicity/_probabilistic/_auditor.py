"""``ProbabilisticAuditor``: certified viable prediction ranges of a logistic model."""

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
)
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._baseline import BaselineDelegationMixin, fit_baseline
from .._core._validation import check_binary_target, check_weights
from .._progress import StageProgress
from . import _measures
from ._family import check_logistic, describe, objective_of, penalty_of
from ._level_set import LevelSet
from ._models import ModelsMixin
from ._multinomial_audit import (
    LabelAudit,
    LabelsMixin,
    check_label_target,
    describe_multinomial,
)
from ._reading import MeasuresMixin
from ._solver import prob_gap
from ._time import more_time, request_deadline


class ProbabilisticAuditor(
    LabelsMixin,
    ModelsMixin,
    MeasuresMixin,
    BaselineDelegationMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Certified viable prediction ranges of a logistic regression.

    Fits (or takes, when frozen) a baseline
    :class:`~sklearn.linear_model.LogisticRegression` and measures how far
    its predicted probabilities can move among equally good models: the
    level set holds the binary logistic models (coefficients and intercept of
    the baseline's family: its penalty, intercept and class weights) whose
    training objective

        ``F(w, b) = sum_i a_i log(1 + exp(-s_i (w . x_i + b))) + ||w||^2 / (2 C W)``

    is at most ``F(baseline) + eps``. Here ``a_i`` is row i's share of the
    total weight ``W`` (``sample_weight`` times class weights), ``s_i = +-1``
    its label and ``C`` the baseline's (``penalty=None``: no penalty term).
    This is scikit-learn's objective divided by ``C * W``, so ``eps`` is in
    nats of mean log-loss. The level set is convex, and every range is
    certified: a model of the set attains its ends (``lower``, ``upper``) and
    a Lagrangian dual bound proves nothing exceeds them by more than ``tol``.

    Parameters
    ----------
    estimator : estimator, default=None
        A ``LogisticRegression`` (L2 penalty or none; multinomial for three
        or more labels), a
        :class:`~sklearn.pipeline.Pipeline` ending in one (audited in the
        space of its transformed features), or either wrapped in
        :class:`~sklearn.frozen.FrozenEstimator` to audit a prefit model as
        is. Unfrozen estimators are cloned and fitted on ``(X, y)``.
        ``None``: ``LogisticRegression()``.
    epsilon : float, default=0.01
        Default tolerance of the level set, in nats of (weighted) mean
        log-loss, the unit of ``F`` above.
    threshold : float, default=0.5
        Default decision threshold on the probability of the second class
        (a decision is positive when the probability exceeds it).
    tol : float, default=1e-4
        Width, on the probability scale, within which every end of a range is
        certified.
    refine : {"all", "threshold", "none"}, default="all"
        Which ends the boundary walk and the exact solver settle after the
        closed-form bounds:
        ``"all"``, every end left wider than ``tol``; ``"threshold"``, only
        the ends that decide whether a person's thresholded decision can flip
        (faster on large tables: ambiguity stays exact, other ranges are
        reported as certified brackets); ``"none"``, none (closed forms only,
        for very large tables: every value is a certified bracket).
    n_jobs : int or None, default=None
        Parallel batches of the walk and the exact solver (joblib; ``-1``:
        every core).
    total_time_limit : float or None, default=300
        Seconds for one request (one ``viable_prediction_range``,
        ``ambiguity`` ... call at one tolerance; ``fit`` excluded), like
        ``max_iter``: the walk and the exact solver stop when it runs out,
        the ends still open keep certified brackets (the closed forms or the
        solvers' last), ranges are reported with ``certified`` False and
        measures as bounds. A request with more time solves them again.
        The ellipsoids around the set (the closed forms) are computed first
        at each tolerance, whatever the limit; with three or more labels the
        inner ellipsoid's witnesses, the walk and the exact solver stop at
        it, and the pairs left are open. ``None``: unlimited.
    random_state : int, RandomState instance or None, default=None
        Seed of the one random step of the audit: when more than 2000 people
        are ambiguous, the discrepancy's lower bound tries the models
        attaining the ranges of a random sample of 2000 of them. Ranges,
        ambiguity and the other measures do not depend on it. Pass an int
        for the same bound at every call (``None``: numpy's global random
        state).
    verbose : int, default=0
        ``>= 1``: a progress line for each stage of a request's ranges (the
        closed-form bounds, the boundary walk and the exact solver), with
        the ends it settled and its time, and while a stage runs a bar of
        the ends settled so far, read every two seconds. With three or more
        labels, the same for the label reach: the pairs (person, label) the
        ellipsoids, the walk and the exact solver settle.
    time_limit : float or None, default="deprecated"
        Former name of ``total_time_limit``; when set, its value is used.

        .. deprecated:: 0.2
           `time_limit` was renamed `total_time_limit` in 0.2 and will be
           removed in 0.4.

    Attributes
    ----------
    estimator_ : estimator
        The fitted baseline.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.
    baseline_objective_ : float
        ``F`` of the baseline.
    min_objective_bounds_ : tuple of float
        Certified ``(lower, upper)`` bounds on the minimum of ``F``.
    level_set_ : str
        The family and objective of the level set, in words.

    See Also
    --------
    MultiplicityAuditor : Exact ambiguity and discrepancy of 0-1 level sets.
    ViablePredictionRangeDisplay : Plot of the ranges.

    Notes
    -----
    The closed-form bounds are two ellipsoids around the minimiser: inside
    the set, from the curvature bound 1/4 of the logistic loss; around it,
    from its self-concordance (Bach, 2010). Ends they leave open go to a
    boundary walk (models of the set pulled back to its boundary along rays
    from the minimiser, each with a quadratic lower model of ``F`` that holds
    on the whole set and bounds the end from above), and the ends the walk
    leaves open to a 1-D Lagrangian search (``max x . theta - t (F(theta) -
    L)``) with a duality-gap certificate. Rounding is absorbed by a relative margin of
    ``1e-11`` on every comparison with the level ``F(baseline) + eps``.

    **Three or more labels.** The level set holds the multinomial models of
    the baseline's family within ``eps`` of the optimum (scikit-learn's
    objective over the weight sum, the penalty on the label-centred
    coefficients). A decision is the most probable label, so there is no
    ``threshold``: :meth:`reachable_labels` says, per person and label,
    whether a model of the set predicts it (a witness model,
    :meth:`label_model`) or certainly none does (a tangent plane of ``F`` at
    a point where its gradient nearly lies in the normal cone of the label's
    region, with the outer ellipsoid; or a Lagrangian bound). The witnesses
    are points of an ellipsoid certified inside the set, or come from
    projected Newton walks into each label's region with the minimiser's
    Hessian (checked by evaluating ``F``), every model the walk finds inside
    the set settling every (person, label) it gives. :meth:`ambiguity` is
    exact when no pair is left open; :meth:`viable_prediction_range` gives
    per-class certified brackets (columns ``(field, class)``),
    :meth:`rashomon_capacity` a certified lower bound (Blahut-Arimoto over
    witnesses), and
    :meth:`discrepancy_bounds` and :meth:`delta_ambiguity` their bounds.
    :meth:`extreme_models` and ``threshold`` are for two labels.

    References
    ----------
    .. [1] J. Watson-Daniels, D. C. Parkes and B. Ustun. "Predictive
       Multiplicity in Probabilistic Classification". AAAI 2023.
    .. [2] H. Hsu and F. Calmon. "Rashomon Capacity: A Metric for Predictive
       Multiplicity in Classification". NeurIPS 2022.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_multiplicity import ProbabilisticAuditor
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> auditor = ProbabilisticAuditor(model, epsilon=0.01).fit(X[:, :5], y)
    >>> ranges = auditor.viable_prediction_range()
    >>> list(ranges.columns[:3])
    ['lower', 'upper', 'baseline']
    >>> bool(((ranges.lower <= ranges.baseline)
    ...       & (ranges.baseline <= ranges.upper)).all())
    True
    >>> 0.0 <= auditor.ambiguity() <= 1.0
    True
    """

    #: The K-label audit (three or more labels), set by ``fit``.
    _labels = None

    _parameter_constraints: dict = {
        "estimator": "no_validation",  # fit_baseline and check_logistic say why
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "threshold": [Interval(Real, 0, 1, closed="neither")],
        "tol": [Interval(Real, 0, 1, closed="neither")],
        "refine": [StrOptions({"all", "threshold", "none"})],
        "n_jobs": [Integral, None],
        "total_time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "time_limit": [
            Interval(Real, 0, None, closed="neither"),
            None,
            Hidden(StrOptions({"deprecated"})),
        ],
    }

    def __init__(
        self,
        estimator=None,
        *,
        epsilon=0.01,
        threshold=0.5,
        tol=1e-4,
        refine="all",
        n_jobs=None,
        total_time_limit=300,
        random_state=None,
        verbose=0,
        time_limit="deprecated",
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.threshold = threshold
        self.tol = tol
        self.refine = refine
        self.n_jobs = n_jobs
        self.total_time_limit = total_time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.time_limit = time_limit

    def _default(self):
        return LogisticRegression()

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the baseline and certify the minimum of its objective.

        Ranges and measures are computed on request (and cached), at any
        ``eps``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of shape (n_samples,)
            Two classes, or three or more (each on at least two rows).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of every row.

        Returns
        -------
        self : ProbabilisticAuditor
            The fitted auditor.
        """
        X_checked, y = validate_data(
            self, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=2
        )
        labels = type_of_target(y, input_name="y") == "multiclass"
        if labels:
            self.classes_ = check_label_target(y)
        else:
            self.classes_, y01 = check_binary_target(y)
        weight = check_weights(sample_weight, X_checked)
        estimator = self._default() if self.estimator is None else self.estimator
        baseline = fit_baseline(estimator, X, y, sample_weight)
        lr = check_logistic(baseline.linear)
        if not np.array_equal(np.asarray(lr.classes_), self.classes_):
            raise ValueError("The baseline's classes_ differ from the labels of y.")
        Z = baseline.audit_space(X)
        self.estimator_, self._baseline = baseline.estimator, baseline
        self._weight = weight
        # Per-person tables of the training rows keep the caller's row labels.
        self._row_index = _index_of(X)
        self._cache = {}
        self._labels = None
        if labels:
            C = penalty_of(lr)
            self._labels = LabelAudit(lr, Z, y, weight)
            self._level_set = self._labels.level_set
            objective = self._level_set.objective
            self.level_set_ = describe_multinomial(objective, C)
        else:
            objective = objective_of(lr, Z, y, y01, weight)
            theta0 = objective.theta(lr.coef_, lr.intercept_)
            self._level_set = LevelSet(objective, theta0)
            self.level_set_ = describe(objective, penalty_of(lr))
        self._rows = objective.augment(Z)
        ls = self._level_set
        self.baseline_objective_ = ls.baseline_objective
        self.min_objective_bounds_ = (ls.min_lower, ls.min_upper)
        return self

    # ------------------------------------------------------------ requests
    def _eps(self, eps):
        check_is_fitted(self)
        self._validate_params()
        eps = self.epsilon if eps is None else eps
        if (
            isinstance(eps, bool)
            or not isinstance(eps, Real)
            or not np.isfinite(eps)
            or eps < 0
        ):
            raise ValueError(f"eps must be a non-negative number, got {eps!r}.")
        return float(eps)

    def _threshold(self, threshold):
        threshold = self.threshold if threshold is None else threshold
        if not isinstance(threshold, Real) or not 0 < threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}.")
        return float(threshold)

    def _refiner(self, threshold):
        tol = self.tol

        def refine(bounds):
            sure, possible = _measures.flips(bounds, threshold)
            open_side = possible & ~sure
            positive = bounds.baseline > _measures.threshold_logit(threshold)
            need_lo, need_hi = open_side & positive, open_side & ~positive
            if self.refine == "none":
                return np.zeros_like(need_lo), np.zeros_like(need_hi)
            if self.refine == "all":
                need_lo |= prob_gap(bounds.lower_out, bounds.lower_in) > tol
                need_hi |= prob_gap(bounds.upper_in, bounds.upper_out) > tol
            return need_lo, need_hi

        return refine

    def _ranges(self, eps, threshold=None, rows=None):
        """Certified ranges of the training rows (cached) or of ``rows``.

        Ranges a time limit left open are solved again only when a request
        comes with more time.
        """
        eps, threshold = self._eps(eps), self._threshold(threshold)
        key = (eps, threshold, self.tol, self.refine)
        deadline = self._deadline()
        # The seconds of this request (inf: unlimited), shortened by any
        # ``capped`` block around it.
        budget = deadline.remaining()
        if rows is None and key in self._cache:
            ranges, before = self._cache[key]
            if ranges.complete or not more_time(budget, before):
                return ranges
        ranges = self._level_set.ranges(
            self._rows if rows is None else rows,
            eps,
            self._refiner(threshold),
            self.tol,
            deadline=deadline,
            n_jobs=self.n_jobs,
            progress=self._progress(eps) if self.verbose >= 1 else None,
        )
        if rows is None:
            self._cache[key] = (ranges, budget)
        return ranges

    def _progress(self, eps, unit="end"):
        """The progress of a request at ``eps`` (``verbose >= 1``): a line
        per stage, a bar of the ends (or label pairs) settled while a stage
        runs."""
        return StageProgress(f"[{type(self).__name__}] eps={eps:g} nats: ", unit)

    def _deadline(self):
        """The deadline of a request starting now (see :func:`request_deadline`)."""
        return request_deadline(self.total_time_limit, self.time_limit)

    def _new_rows(self, X):
        check_is_fitted(self)
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        Z = self._baseline.audit_space(X)
        return self._level_set.objective.augment(Z)

    # -------------------------------------------------------------- ranges
    def viable_prediction_range(self, X=None, eps=None):
        """Certified range of every person's probability over the level set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People to score; ``None``: the training rows.
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        pandas.DataFrame
            One row per person, indexed by ``X``'s index for a DataFrame (by
            the index of the DataFrame given to ``fit`` for the training
            rows; a ``RangeIndex`` for arrays): ``lower`` and
            ``upper``, the smallest and largest probability of the second
            class attained by models of the level set; ``baseline``, the
            baseline's; ``lower_bound`` and ``upper_bound``, certified limits
            no model of the set passes (``lower_bound <= lower``,
            ``upper <= upper_bound``); ``width`` (``upper - lower``) and
            ``certified`` (both ends pinned within ``tol``).
        """
        if self._labels is not None:
            return self._label_ranges(X, eps)
        rows = None if X is None else self._new_rows(X)
        ranges = self._ranges(eps, rows=rows)
        b = ranges.bounds
        frame = pd.DataFrame(
            {
                "lower": expit(b.lower_in),
                "upper": expit(b.upper_in),
                "baseline": expit(b.baseline),
                "lower_bound": expit(b.lower_out),
                "upper_bound": expit(b.upper_out),
            },
            index=self._row_index if X is None else _index_of(X),
        )
        frame["width"] = frame["upper"] - frame["lower"]
        frame["certified"] = ranges.certified(self.tol)
        return frame

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _index_of(X):
    """The row labels of ``X`` when it is a DataFrame, else None."""
    return X.index if isinstance(X, pd.DataFrame) else None
