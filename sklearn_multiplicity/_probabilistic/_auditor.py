"""``ProbabilisticAuditor``: certified viable prediction ranges of a logistic model."""

import time
import warnings
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
)
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core import certified
from .._core._validation import check_binary_target, check_epsilon, check_weights
from .._engine import Deadline
from .._estimators._baseline import BaselineDelegationMixin, fit_baseline
from .._exceptions import CertificationWarning
from .._reporting._progress import StageProgress
from . import _measures
from ._label_cone import NO, OPEN, YES
from ._level_set import Brackets, LevelSet
from ._objective import (
    check_full_rank,
    check_logistic,
    describe,
    objective_of,
    penalty_of,
)
from ._solver import prob_gap

#: Two labels: most ambiguous people whose range-attaining models the
#: discrepancy's lower bound tries (a sample of them, drawn with
#: ``random_state``, beyond it).
MAX_FLIP_MODELS = 2000
#: K labels: models of the set the discrepancy's lower bound tries (at most).
DISCREPANCY_MODELS = 2000
#: Names of the pair statuses of :meth:`ProbabilisticAuditor.reachable_labels`.
STATUS = {YES: "yes", NO: "no", OPEN: "open"}


class ProbabilisticAuditor(
    BaselineDelegationMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Certified viable prediction ranges of a logistic regression.

    Fits (or takes, when frozen) a baseline
    :class:`~sklearn.linear_model.LogisticRegression` and measures how far
    its predicted probabilities can move among equally good models: the
    level set holds the logistic models (coefficients and intercept of the
    baseline's family: its penalty, intercept and class weights) whose
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
    log_loss_epsilon : float, default=0.01
        Default tolerance of the level set, in nats of (weighted) mean
        log-loss, the unit of ``F`` above. Every method's ``eps`` is such a
        tolerance, and ``eps=None`` stands for this one.
    threshold : float, default=0.5
        Default decision threshold on the probability of the second class
        (a decision is positive when the probability exceeds it); a method's
        ``threshold=None`` stands for it.
    tol : float, default=1e-4
        Width, on the probability scale, within which every end of a range is
        certified.
    refine : {"all", "threshold", "none"}, default="all"
        Which ends the boundary walk and the exact solver settle after the
        closed-form bounds:
        ``"all"``, every end left wider than ``tol``; ``"threshold"``, only
        the ends that decide whether a person's thresholded decision can flip
        (faster on large tables: ambiguity stays exact, other ranges are
        reported as certified brackets); ``"none"``, none (closed forms
        only, for very large tables: every value is a certified bracket).
    n_jobs : int or None, default=None
        Parallel batches of the walk and the exact solver (joblib; ``-1``:
        every core).
    total_time_limit : float or None, default=300
        Seconds that the audit of one tolerance may spend, over every call
        that asks about it (``viable_prediction_range``, ``ambiguity``,
        ``reachable_labels`` ... at one ``eps``, on the training rows or on
        new ones; ``fit`` excluded), as in
        :class:`~sklearn_multiplicity.MultiplicityAuditor`. A call draws on
        what earlier calls at its tolerance left: the walk and the exact
        solver stop when it runs out, the ends still open keep certified
        brackets (the closed forms or the solvers' last), ranges are
        reported with ``certified`` False and measures as bounds. A larger
        limit (``set_params``) solves them again. The ellipsoids around the
        set (the closed forms) are computed first at each tolerance,
        whatever the limit; with three or more labels the inner ellipsoid's
        witnesses, the walk and the exact solver stop at it, and the pairs
        left are open. ``None``: unlimited.
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
    epsilon : float, default="deprecated"
        Former name of ``log_loss_epsilon``; when set, its value is used.

        .. deprecated:: 0.3
           `epsilon` was renamed `log_loss_epsilon` in 0.3 and will be
           removed in 0.5.

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
    >>> auditor = ProbabilisticAuditor(model, log_loss_epsilon=0.01)
    >>> auditor = auditor.fit(X[:, :5], y)
    >>> ranges = auditor.viable_prediction_range()
    >>> list(ranges.columns[:3])
    ['lower', 'upper', 'baseline']
    >>> bool(((ranges.lower <= ranges.baseline)
    ...       & (ranges.baseline <= ranges.upper)).all())
    True
    >>> 0.0 <= auditor.ambiguity() <= 1.0
    True
    """

    _parameter_constraints: dict = {
        "estimator": "no_validation",  # fit_baseline and check_logistic say why
        "log_loss_epsilon": [Interval(Real, 0, None, closed="left")],
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
        "epsilon": [
            Interval(Real, 0, None, closed="left"),
            Hidden(StrOptions({"deprecated"})),
        ],
    }

    def __init__(
        self,
        estimator=None,
        *,
        log_loss_epsilon=0.01,
        threshold=0.5,
        tol=1e-4,
        refine="all",
        n_jobs=None,
        total_time_limit=300,
        random_state=None,
        verbose=0,
        time_limit="deprecated",
        epsilon="deprecated",
    ):
        self.estimator = estimator
        self.log_loss_epsilon = log_loss_epsilon
        self.threshold = threshold
        self.tol = tol
        self.refine = refine
        self.n_jobs = n_jobs
        self.total_time_limit = total_time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.time_limit = time_limit
        self.epsilon = epsilon

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
        self._default_eps(warn=True)
        X_checked, y = validate_data(
            self, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=2
        )
        if type_of_target(y, input_name="y") == "multiclass":
            self.classes_ = _check_label_target(y)
        else:
            self.classes_, _ = check_binary_target(y)
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
        self._cache, self._spent = {}, {}
        objective, theta0 = objective_of(lr, Z, y, weight)
        names = baseline.feature_names
        if names is None:
            names = getattr(self, "feature_names_in_", None)
        check_full_rank(objective, names)
        self._level_set = LevelSet(objective, theta0)
        self.level_set_ = describe(objective, penalty_of(lr))
        self._Z, self._rows = Z, objective.augment(Z)
        ls = self._level_set
        self.baseline_objective_ = ls.baseline_objective
        self.min_objective_bounds_ = (ls.min_lower, ls.min_upper)
        return self

    @property
    def _multiclass(self):
        check_is_fitted(self)
        return self._level_set.objective.is_multiclass

    # ------------------------------------------------------------ requests
    def _default_eps(self, warn=False):
        """``log_loss_epsilon``, or the deprecated ``epsilon`` when set."""
        if isinstance(self.epsilon, str) and self.epsilon == "deprecated":
            return self.log_loss_epsilon
        if warn:
            warnings.warn(
                "`epsilon` was renamed `log_loss_epsilon` in 0.3 and will be "
                "removed in 0.5.",
                FutureWarning,
                stacklevel=3,
            )
        return self.epsilon

    def _eps(self, eps):
        check_is_fitted(self)
        self._validate_params()
        eps = self._default_eps() if eps is None else eps
        if (
            isinstance(eps, bool)
            or not isinstance(eps, Real)
            or not np.isfinite(eps)
            or eps < 0
        ):
            raise ValueError(f"eps must be a non-negative number, got {eps!r}.")
        return float(eps)

    def _threshold(self, threshold):
        if self._multiclass and threshold is not None:
            raise ValueError(
                "threshold applies to two labels; with more, a decision is the "
                "most probable label."
            )
        threshold = self.threshold if threshold is None else threshold
        if not isinstance(threshold, Real) or not 0 < threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}.")
        return float(threshold)

    @contextmanager
    def _charged(self, eps):
        """A :class:`~sklearn_multiplicity._engine.Deadline` of what the
        tolerance ``eps`` has left of ``total_time_limit`` (ending no later
        than any ``capped`` block around it); the block's time is charged to
        ``eps``."""
        limit = self.total_time_limit
        if not (isinstance(self.time_limit, str) and self.time_limit == "deprecated"):
            warnings.warn(
                "`time_limit` was renamed `total_time_limit` in 0.2 and will be "
                "removed in 0.4.",
                FutureWarning,
                stacklevel=5,
            )
            limit = self.time_limit
        spent = self._spent.get(eps, 0.0)
        start = time.perf_counter()
        try:
            yield Deadline(None if limit is None else max(limit - spent, 0.0))
        finally:
            self._spent[eps] = spent + time.perf_counter() - start

    def _solved(self, key, eps, solve):
        """``solve(deadline)`` of the training rows at ``eps``, cached under
        ``key``: an answer a time limit left open is solved again only when
        a request comes with more time (a larger limit, or outside a
        ``capped`` block)."""
        with self._charged(eps) as deadline:
            budget = deadline.remaining()
            if key in self._cache:
                answer, before = self._cache[key]
                # A millisecond absorbs the time between making a deadline
                # and reading it.
                if answer.complete or not budget > before + 1e-3:
                    return answer
            answer = solve(deadline)
        self._cache[key] = (answer, budget)
        return answer

    def _progress(self, eps, unit="end"):
        """The progress of a request at ``eps`` (``verbose >= 1``): a line
        per stage, a bar of the ends (or label pairs) settled while a stage
        runs."""
        if self.verbose < 1:
            return None
        return StageProgress(f"[{type(self).__name__}] eps={eps:g} nats: ", unit)

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
        """Two labels: certified score ranges of the training rows (cached)
        or of the augmented ``rows``."""
        eps, threshold = self._eps(eps), self._threshold(threshold)

        def solve(deadline):
            return self._level_set.ranges(
                self._rows if rows is None else rows,
                eps,
                self._refiner(threshold),
                self.tol,
                deadline=deadline,
                n_jobs=self.n_jobs,
                progress=self._progress(eps),
            )

        if rows is not None:
            with self._charged(eps) as deadline:
                return solve(deadline)
        return self._solved((eps, threshold, self.tol, self.refine), eps, solve)

    def _reach(self, eps, Z=None):
        """K labels: the label reach of the training rows (cached) or of the
        audit-space rows ``Z``."""

        def solve(deadline):
            return self._level_set.label_reach(
                self._Z if Z is None else Z,
                eps,
                deadline=deadline,
                n_jobs=self.n_jobs,
                progress=self._progress(eps, unit="pair"),
            )

        if Z is not None:
            with self._charged(eps) as deadline:
                return solve(deadline)
        return self._solved(eps, eps, solve)

    def _audit_rows(self, X):
        """The people ``X`` in the audit space (training rows: None)."""
        check_is_fitted(self)
        if X is None:
            return None
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        return self._baseline.audit_space(X)

    def _label_audit(self, name):
        check_is_fitted(self)
        if not self._multiclass:
            raise ValueError(
                f"{name} is defined for targets of three or more labels; for "
                "two labels use viable_prediction_range, ambiguity and "
                "extreme_models."
            )

    # -------------------------------------------------------------- ranges
    def viable_prediction_range(self, X=None, eps=None):
        """Certified range of every person's probability over the level set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People to score; ``None``: the training rows.
        eps : float, default=None
            Tolerance of the level set whose models range.

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
            ``certified`` (both ends pinned within ``tol``). With three or
            more labels, the same fields per class (columns ``(field,
            class)``), certified brackets of each class's probability.
        """
        r = self._probabilities(self._eps(eps), self._audit_rows(X))
        fields = {
            "lower": r.lower_in,
            "upper": r.upper_in,
            "baseline": r.baseline,
            "lower_bound": r.lower_out,
            "upper_bound": r.upper_out,
            "width": r.upper_in - r.lower_in,
            "certified": (r.lower_in - r.lower_out <= self.tol)
            & (r.upper_out - r.upper_in <= self.tol),
        }
        index = self._row_index if X is None else _index_of(X)
        if not self._multiclass:
            return pd.DataFrame(fields, index=index)
        columns = pd.MultiIndex.from_product(
            [list(fields), self.classes_], names=["field", "class"]
        )
        values = {
            (field, c): block[:, k]
            for field, block in fields.items()
            for k, c in enumerate(self.classes_)
        }
        return pd.DataFrame(values, index=index, columns=columns)

    def _probabilities(self, eps, Z=None):
        """:class:`Brackets` of the probabilities of the training rows or of
        the audit-space rows ``Z``: of the second class (n,) for two labels,
        of every label (n, K) for K labels."""
        if self._multiclass:
            reach = self._reach(eps, Z)
            rows = self._Z if Z is None else Z
            return self._level_set.probability_ranges(rows, eps, reach)
        rows = None if Z is None else self._level_set.objective.augment(Z)
        b = self._ranges(eps, rows=rows).bounds
        ends = (b.lower_out, b.lower_in, b.upper_in, b.upper_out, b.baseline)
        return Brackets(*(expit(v) for v in ends))

    def reachable_labels(self, X=None, eps=None):
        """Which labels models of the level set give each person.

        Three or more labels only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People to score; ``None``: the training rows.
        eps : float, default=None
            Tolerance of the models that may predict a label.

        Returns
        -------
        pandas.DataFrame
            One row per person, one column per class: ``"yes"`` (a model of
            the set, :meth:`label_model`, predicts the class), ``"no"``
            (certified: no model of the set predicts it) or ``"open"`` (the
            time limit ran out, or tied with the level within rounding).
        """
        self._label_audit("reachable_labels")
        reach = self._reach(self._eps(eps), self._audit_rows(X))
        names = np.vectorize(STATUS.get, otypes=[object])(reach.status)
        index = self._row_index if X is None else _index_of(X)
        return pd.DataFrame(names, index=index, columns=self.classes_)

    # ------------------------------------------------------------ measures
    def ambiguity_bounds(self, eps=None, threshold=None):
        """Certified ``(lower, upper)`` bounds on ambiguity.

        Parameters
        ----------
        eps : float, default=None
            Tolerance whose ranges are read, without warning when
            they leave the measure open.
        threshold : float, default=None
            The threshold whose crossings are counted.

        Returns
        -------
        tuple of float
            ``lower <= ambiguity <= upper``.
        """
        eps = self._eps(eps)
        threshold = self._threshold(threshold)
        if self._multiclass:
            b = self._reach(eps).ambiguity(self._weight)
        else:
            b = _measures.ambiguity(
                self._ranges(eps, threshold).bounds, self._weight, threshold
            )
        return b.lower, b.upper

    def ambiguity(self, eps=None, threshold=None):
        """Share of training people whose decision a model of the set changes.

        Exact from the ranges: the set is convex, so a thresholded decision
        can flip if and only if the person's range crosses the threshold
        (three or more labels: some model gives another label).

        Parameters
        ----------
        eps : float, default=None
            How far above the minimum of ``F`` a model that flips a
            decision may be.
        threshold : float, default=None
            Decision threshold: a decision flips when a model's
            probability crosses it.

        Returns
        -------
        float
            The certified value (weighted by ``sample_weight``), or its lower
            bound with a :class:`CertificationWarning` when ranges that touch
            the threshold within ``tol`` leave it open.
        """
        return _value(self.ambiguity_bounds(eps, threshold), "ambiguity")

    def discrepancy_bounds(self, eps=None, threshold=None):
        """Certified ``(lower, upper)`` bounds on discrepancy.

        Parameters
        ----------
        eps : float, default=None
            Tolerance of the models found; bounds left apart raise
            no warning.
        threshold : float, default=None
            The threshold the found models' decisions are read at.

        Returns
        -------
        tuple of float
            Below: the most decisions changed by a model found (the models
            attaining the people's ranges; of a sample of 2000 people drawn
            with ``random_state`` when more are ambiguous; three or more
            labels: a sample of 2000 witnesses); above: the ambiguity's upper
            bound.
        """
        eps, threshold = self._eps(eps), self._threshold(threshold)
        objective = self._level_set.objective
        if self._multiclass:
            reach = self._reach(eps)
            models = reach.harvest.sample(DISCREPANCY_MODELS)
            baseline, upper = reach.baseline, reach.ambiguity(self._weight).upper
        else:
            ranges = self._ranges(eps, threshold)
            models = self._flip_models(ranges, eps, threshold)
            tau = _measures.threshold_logit(threshold)
            baseline = ranges.bounds.baseline > tau
            upper = _measures.ambiguity(ranges.bounds, self._weight, threshold).upper
        changed = _measures.changed_decisions(
            objective, self._rows, models, baseline, threshold
        )
        b = _measures.discrepancy(changed, self._weight, upper)
        return b.lower, b.upper

    def discrepancy(self, eps=None, threshold=None):
        """Largest share of training decisions that one model of the set changes.

        Parameters
        ----------
        eps : float, default=None
            Tolerance of the one model that changes the decisions.
        threshold : float, default=None
            Decision threshold of the changed decisions.

        Returns
        -------
        float
            The certified lower bound (weighted); a
            :class:`CertificationWarning` says when it is not pinned (see
            :meth:`discrepancy_bounds`).
        """
        return _value(self.discrepancy_bounds(eps, threshold), "discrepancy")

    def _flip_models(self, ranges, eps, threshold):
        """Two labels: models of the set flipping some decisions: those
        attaining each ambiguous person's crossing end (of a sample of
        ``MAX_FLIP_MODELS`` people when there are more), and models pushing
        many people across at once (``max c . theta`` with ``c`` a weighted
        sum of the ambiguous people's rows, the nearer to the threshold the
        heavier)."""
        b = ranges.bounds
        sure, _ = _measures.flips(b, threshold)
        tau = _measures.threshold_logit(threshold)
        positive = b.baseline > tau
        people = np.flatnonzero(sure)
        p = self._rows.shape[1]
        if people.size == 0:
            return np.empty((p, 0))
        chosen = people
        if people.size > MAX_FLIP_MODELS:
            rng = check_random_state(self.random_state)
            chosen = rng.choice(people, MAX_FLIP_MODELS, replace=False)
        models = [
            self._level_set.attaining(
                ranges, i, self._rows[i], "lower" if positive[i] else "upper", eps
            )
            for i in chosen
        ]
        rows = self._rows[people]
        direction = np.where(positive[people], -1.0, 1.0)[:, None] * rows
        direction /= np.maximum(np.linalg.norm(rows, axis=1), 1e-300)[:, None]
        # How far each person must move, relative to how far they can.
        lo, hi, base = b.lower_in[people], b.upper_in[people], b.baseline[people]
        reach = np.where(positive[people], base - lo, hi - base)
        need = np.abs(base - tau) / np.maximum(reach, 1e-12)
        weights = [np.ones(people.size), 1 / (need + 0.05), 1 / (need + 0.05) ** 2]
        for share in (0.25, 0.5, 0.75):
            weights.append((need <= np.quantile(need, share)).astype(float))
        C = np.column_stack([w @ direction for w in weights])
        C = C[:, np.linalg.norm(C, axis=0) > 0]
        with self._charged(eps) as deadline:
            pushed = self._level_set.maximisers(
                C, eps, self.tol, deadline=deadline, n_jobs=self.n_jobs
            )
        return np.column_stack(models + [pushed])

    def delta_ambiguity(self, eps=None, delta=0.1):
        """Share of training people whose probability can move by more than ``delta``.

        Parameters
        ----------
        eps : float, default=None
            Tolerance of the models whose probabilities move.
        delta : float, default=0.1
            Change of the probability, in [0, 1].

        Returns
        -------
        float
            The certified share (weighted) of people for whom some model of
            the set gives a probability (three or more labels: of some class)
            more than ``delta`` away from the baseline's (lower bound with a
            :class:`CertificationWarning` when not pinned).
        """
        delta = check_epsilon(delta, name="delta")
        probabilities = self._probabilities(self._eps(eps))
        b = _measures.delta_ambiguity(probabilities, self._weight, delta)
        return _value((b.lower, b.upper), "delta-ambiguity")

    def rashomon_capacity(self, X=None, eps=None):
        """Rashomon capacity of every person's set of predicted probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People whose capacity is measured; ``None``: the training rows.
        eps : float, default=None
            Tolerance of the set of models that form each person's
            channel.

        Returns
        -------
        pandas.Series
            ``2 ** C`` in [1, 2], with ``C`` the capacity (bits) of the channel
            from the models of the set to the label drawn with their
            probability. For two classes it is attained at the two ends of the
            range: ``2 ** c0 + 2 ** c1`` with ``c0 = (a h(b) - b h(a)) / (b - a)``
            and ``c1 = ((1 - b) h(a) - (1 - a) h(b)) / (b - a)``, ``[a, b]``
            the attained range and ``h`` the binary entropy in bits. For
            three or more labels, in [1, K]: a certified lower bound, the
            information of the Blahut-Arimoto input distribution over the
            person's models of the set found (baseline, witnesses, the inner
            ellipsoid's most probable points).
        """
        eps, Z = self._eps(eps), self._audit_rows(X)
        index = self._row_index if X is None else _index_of(X)
        if self._multiclass:
            reach = self._reach(eps, Z)
            rows = self._Z if Z is None else Z
            lower, _ = self._level_set.rashomon_capacity(rows, eps, reach)
        else:
            r = self._probabilities(eps, Z)
            lower = _measures.rashomon_capacity(r.lower_in, r.upper_in)
        return pd.Series(lower, index=index, name="rashomon_capacity")

    # -------------------------------------------------------------- models
    def objective_level(self, eps=None):
        """The largest objective of a model of the level set.

        Parameters
        ----------
        eps : float, default=None
            The level's distance above ``F(baseline)``.

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
            Tolerance of the two models.

        Returns
        -------
        tuple of estimator
            ``(lowest, highest)``: fitted copies of the baseline (Pipelines
            when it is one) whose probability for person ``i`` is the range's
            ``lower`` and ``upper``; :meth:`objective` shows they are in the
            set.
        """
        eps = self._eps(eps)
        if self._multiclass:
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

    def label_model(self, i, label, eps=None):
        """A model of the level set predicting ``label`` for training person ``i``.

        Three or more labels only.

        Parameters
        ----------
        i : int
            Position of the person in the training data.
        label : object
            One of ``classes_``.
        eps : float, default=None
            Tolerance of the model sought.

        Returns
        -------
        estimator
            A fitted copy of the baseline (a Pipeline when it is one);
            :meth:`objective` shows it is in the set.

        Raises
        ------
        LookupError
            When no model of the set predicts ``label`` for person ``i`` (or
            none was found before the time limit: see
            :meth:`reachable_labels`).
        """
        self._label_audit("label_model")
        i = self._person(i)
        where = np.flatnonzero(self.classes_ == label)
        if where.size == 0:
            raise ValueError(f"label must be one of {self.classes_.tolist()}.")
        reach = self._reach(self._eps(eps))
        if reach.status[i, where[0]] != YES:
            raise LookupError(
                f"No model of the level set predicting {label!r} for person {i} "
                f"is known (status: {STATUS[reach.status[i, where[0]]]})."
            )
        return self._model(reach.witness(i, where[0]))

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
        objective = self._level_set.objective
        model.coef_, model.intercept_ = objective.coefficients(np.asarray(theta))
        if self._baseline.pipeline is None:
            return model
        steps = list(self._baseline.pipeline.steps)
        return Pipeline(steps[:-1] + [(steps[-1][0], model)])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _value(bounds, name):
    lower, upper = bounds
    if not certified(lower, upper):
        warnings.warn(
            f"The {name} is not pinned by the certified ranges: reporting its "
            f"lower bound {lower:.6g} (upper bound {upper:.6g}); see the "
            "*_bounds methods, or lower tol.",
            CertificationWarning,
            stacklevel=3,
        )
    return lower


def _check_label_target(y):
    """The classes of a target of three or more labels, each on at least two
    rows; a clear ``ValueError`` otherwise."""
    classes, counts = np.unique(y, return_counts=True)
    once = classes[counts < 2]
    if once.size:
        raise ValueError(
            f"The label(s) {once.tolist()} appear on one row only; the "
            "probabilistic audit needs a binary target or every label on at "
            "least two rows."
        )
    return classes


def _index_of(X):
    """The row labels of ``X`` when it is a DataFrame, else None."""
    return X.index if isinstance(X, pd.DataFrame) else None
