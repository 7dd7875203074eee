"""``MultiplicityAuditor``: exact ambiguity and discrepancy of a linear baseline."""

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core._validation import check_tolerance
from .._engine import STRATEGIES
from .._reporting._progress import audit_progress, bounds_progress
from .._reporting._warnings import warn_if_far_from_optimum
from . import _dask_patterns as dask_patterns
from . import _paths as paths
from . import _people as people
from . import _requests as requests
from ._baseline import BaselineDelegationMixin
from ._classifier import SOLVER_CONSTRAINTS, ZeroOneLinearClassifier
from ._opening import open_audit, value_or_lower_bound


class MultiplicityAuditor(
    BaselineDelegationMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Exact predictive multiplicity of a linear classifier.

    Fits (or takes, when frozen) a baseline linear classifier ``h0`` and
    measures, over the level set ``{h : err(h) <= err(h0) + eps}`` of one
    hypothesis class, **ambiguity** (the share of training people some model
    of the set flips) and **discrepancy** (the largest share one model of the
    set flips), exactly by mixed-integer programs, with certified bounds when
    a time limit stops a solver.

    Parameters
    ----------
    estimator : estimator, default=None
        The baseline: a binary linear classifier (``coef_``/``intercept_``),
        a :class:`~sklearn.pipeline.Pipeline` ending in one (audited in the
        space of its transformed features), or either wrapped in
        :class:`~sklearn.frozen.FrozenEstimator` to audit a prefit model as
        is. Unfrozen estimators are cloned and fitted on ``(X, y)``.
        ``None``: :class:`ZeroOneLinearClassifier` with this auditor's solver
        settings.
    epsilon : float or dict, default=0.01
        Default error tolerance of the level set, a share of the training
        set in [0, 1]; or a dict of one tolerance per class label, on that
        class's error rate (false positives and false negatives bounded
        apart). Every ``eps=`` argument takes either.
    solver : {"auto", "highs", "scip", "cpsat"} or Backend, default="auto"
        MIP backend, as in :class:`ZeroOneLinearClassifier` (``"auto"``:
        HiGHS, and SCIP for the discrepancy MIPs).
    time_limit : float or None, default=60.0
        Seconds per MIP (``None``: unlimited).
    total_time_limit : float or None, default=300.0
        Seconds that the audit of one tolerance may spend, over every call
        that asks about it (see Notes), like ``max_iter``: MIPs not solved in
        time leave certified bounds, and later calls read them.
        :meth:`refine` gives more time. A path, new people and coefficient
        ranges are questions with a limit of their own. ``None``: unlimited
        (exact values, however long they take).
    margin : float, default=1e-3
        Margin of the continuous hypothesis class, as in
        :class:`ZeroOneLinearClassifier`.
    weights : {"auto", "continuous", "integer"}, default="auto"
        Continuous or integer weights, as in :class:`ZeroOneLinearClassifier`.
    max_weight : int, default=10
        Largest absolute integer weight when ``weights`` is integer.
    cuts : bool, default=True
        Add the affine-identity inequalities (valid for every linear
        classifier).
    strategy : {"each", "batch"}, default="each"
        How ambiguity settles the patterns that heuristics and LP bounds
        leave undecided: ``"each"``, one flip MIP per pattern (the paper's
        algorithm); ``"batch"``, MIPs asking for a model that flips *any*
        of them. Both are exact; they differ in speed (``benchmarks/``).
    n_jobs : int or None, default=None
        Flip MIPs solved at once in threads, one solver thread each; a single
        MIP gets this many solver threads. ``-1`` uses every core. Inside
        ``joblib.parallel_config(backend="dask")`` (or ray) the flip MIPs go
        to the cluster, ``n_jobs`` at a time.
    random_state : int or None, default=None
        Seed of the solvers and of the warm starts.
    verbose : int, default=0
        ``>= 1``: a bar of each tolerance's audit (people decided out of
        all, the ambiguity band and the most disagreement found, read every
        two seconds, also while one MIP runs), of the minimum error's band
        when it is solved, and of the discrepancy MIPs of ``path``; ``> 1``:
        solver logs.
    constraints : list, default=None
        Constraints from :mod:`sklearn_multiplicity.constraints` that the
        baseline and every model of the level sets meet (the default
        baseline is 0-1 optimal under them).

    Attributes
    ----------
    estimator_ : estimator
        The fitted baseline.
    classes_ : ndarray of shape (2,)
        Class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.
    groups_ : ndarray or None
        The groups passed to ``fit``.
    baseline_errors_ : float
        Weighted training errors of the baseline.
    baseline_error_ : float
        ``baseline_errors_`` as a share of the total weight.
    min_error_bounds_ : tuple of float
        Certified ``(lower, upper)`` on the fewest weighted errors of the
        class, solved on first access (the default baseline's ``fit``
        solves it) within ``total_time_limit``, then kept.
    baseline_constant_class_ : object or None
        The class the baseline predicts for every training row (of positive
        weight) when it predicts only one, else ``None``. The level set is
        then built around a model that gives everyone the same decision
        (``fit`` warns, with ``min_error_bounds_``).
    fewest_errors_found_ : float
        Weighted training errors of the best verified model of the class
        found so far; a reading warns (:class:`BaselineGapWarning`) when it
        is below ``baseline_errors_`` by more than its tolerance allows.
    n_patterns_ : int
        Distinct training patterns in the audit space.
    assessment_ : Assessment
        What the audit can be expected to certify within
        ``total_time_limit``, judged before any MIP runs: ``regime``
        (``"exact"``, ``"bands"`` or ``"lower-bounds"``), ``reasons`` (with
        their numbers) and ``routes`` (what would answer otherwise: a coarser
        encoding, a sample of rows, :class:`ProbabilisticAuditor`, more
        time); ``as_dict()`` and ``text()``. ``fit`` warns with it
        (:class:`ProblemSizeWarning`) unless the regime is exact.
    n_identities_ : int
        Affine-identity inequalities of the encoding.
    hypothesis_class_ : str
        The class over which every result is exact.
    constraints_ : list of str
        The constraints in force, one line each.
    session_ : AuditSession
        The engine of the audit: everything certified so far, shared by all
        requests (advanced use).
    mip_log_ : list of dict
        One entry per solve: ``mip``, ``status``, ``objective``, ``bound``,
        ``seconds``, ``solver`` and ``message``.

    See Also
    --------
    ZeroOneLinearClassifier : The default baseline.

    Notes
    -----
    The level set at ``eps`` holds the models of weighted training error at
    most :meth:`error_budget` ``= err(h0) + eps * W`` (``W`` the total weight,
    the allowance rounded down with integral weights).

    Every method that reads a level set takes its tolerance as ``eps``, in
    the forms of ``epsilon``: a share of the training set in [0, 1], or a
    dict of one tolerance per class label, on that class's error rate.
    ``eps=None`` stands for ``epsilon``. Each tolerance has its own audit.

    The time model: the audit of a tolerance is one computation that grows.
    The first call about ``eps`` (a measure, its bounds, :meth:`evidence`,
    :meth:`conflicts`, :meth:`by_group`, a scorer, a Display) runs it, both
    measures and every group's discrepancy by one plan, for at most
    ``total_time_limit``; every later call about ``eps`` reads what it
    certified, at no solver time, as does a pickled copy.
    :meth:`refine` continues it from what it found and proved. ``fit``
    costs what the baseline costs; the minimum error of the class is solved
    when first needed (``min_error_bounds_``).

    References
    ----------
    .. [1] C. Marx, F. Calmon and B. Ustun. "Predictive Multiplicity in
       Classification". ICML 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import MultiplicityAuditor
    >>> X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    >>> y = np.repeat([0, 1, 1, 0], 25)
    >>> auditor = MultiplicityAuditor(epsilon=0.0).fit(X, y)
    >>> auditor.discrepancy(), auditor.ambiguity()
    (0.5, 1.0)
    """

    _parameter_constraints: dict = {
        **SOLVER_CONSTRAINTS,
        "estimator": "no_validation",  # fit_baseline names what it supports
        "epsilon": [Interval(Real, 0, 1, closed="both"), dict],
        "total_time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "strategy": [StrOptions(set(STRATEGIES))],
    }

    def __init__(
        self,
        estimator=None,
        *,
        epsilon=0.01,
        solver="auto",
        time_limit=60.0,
        total_time_limit=300.0,
        margin=1e-3,
        weights="auto",
        max_weight=10,
        cuts=True,
        strategy="each",
        n_jobs=None,
        random_state=None,
        verbose=0,
        constraints=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.solver = solver
        self.time_limit = time_limit
        self.total_time_limit = total_time_limit
        self.margin = margin
        self.weights = weights
        self.max_weight = max_weight
        self.cuts = cuts
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.constraints = constraints

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, groups=None):
        """Fit the baseline and open the audit.

        Fitting costs what the baseline costs plus the compression of the
        data; the measures are computed on request, at any ``eps``, and kept
        (see Notes on the time model).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or dask DataFrame
            Training features. A dask DataFrame is read by dask into its
            distinct rows and their summed weights, so no process holds the
            rows; ``y``, ``sample_weight`` and ``groups`` are then dask
            Series of the same partitions (columns of the same frame), and
            the baseline is fitted on the distinct rows with their weights.
        y : array-like of shape (n_samples,)
            Two classes, or 3 to 20 (a K-class audit: ambiguity, discrepancy,
            their bounds, ``refine`` and ``min_error_bounds_``).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of every row.
        groups : array-like of shape (n_samples,), default=None
            Group of every training person (e.g. race) for :meth:`by_group`
            and for a ``GroupRateGap`` constraint without groups of its own.

        Returns
        -------
        self : MultiplicityAuditor
            The fitted auditor.
        """
        self._training_rows = None
        if dask_patterns.is_dask(X):
            rows = X
            X, y, sample_weight, groups = dask_patterns.distinct_rows(
                X, y, sample_weight, groups
            )
            self._training_rows = rows, X
        X_checked, y = validate_data(
            self, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=2
        )
        default = self._default() if self.estimator is None else None
        return open_audit(self, default, X, X_checked, y, sample_weight, groups)

    @property
    def min_error_bounds_(self):
        """Certified ``(lower, upper)`` on the fewest weighted errors of the class.

        Solved on first access (within ``total_time_limit``), then kept; the
        default baseline's ``fit`` solves it.
        """
        check_is_fitted(self)
        limits = (self.total_time_limit, self.time_limit)
        with bounds_progress(self.verbose, limits[0], "minimum error") as seen:
            return self.session_.min_error_bounds(*limits, progress=seen)

    def _default(self):
        names = ["solver", "time_limit", "margin", "weights", "max_weight", "cuts"]
        names += ["n_jobs", "random_state", "constraints"]
        return ZeroOneLinearClassifier(**{n: getattr(self, n) for n in names})

    @property
    def fewest_errors_found_(self):
        """Weighted training errors of the best verified model found so far.

        An upper bound on the class's minimum error, at no solver time. When
        it is below the baseline's errors by more than a tolerance allows,
        every reading at that tolerance says so with a
        :class:`BaselineGapWarning`."""
        check_is_fitted(self)
        return self.session_.fewest_errors_found()

    @property
    def mip_log_(self):
        """One dict per MIP solved so far: name, status, objective, bound, seconds."""
        check_is_fitted(self)
        return self.session_.mip_log()

    # -------------------------------------------------------------- requests
    def _request(self, eps):
        """Validate a request's settings; its tolerance and budget.

        The tolerance is a number, or per class a :class:`PerClassEpsilon`
        ``(eps_neg, eps_pos)`` whose budget is a ``ClassBudget``.
        """
        check_is_fitted(self)
        self._validate_params()  # limits are read per request (set_params)
        eps = check_tolerance(self.epsilon if eps is None else eps, self.classes_)
        return eps, self.session_.budget(eps)

    def _audited(self, eps):
        """Run, or continue, the audit of ``eps`` within what its account has
        left (see :meth:`refine`); its tolerance and budget."""
        eps, budget = self._request(eps)
        session = self.session_

        def watching():
            return audit_progress(self.verbose, session, budget, f"audit at eps={eps}")

        session.audit(budget, self.total_time_limit, self.time_limit, watching=watching)
        if self.baseline_constant_class_ is None:  # else fit has said more
            warn_if_far_from_optimum(self, eps)
        return eps, budget

    def refine(self, eps=None, seconds=None):
        """Continue the audit of ``eps`` for ``seconds`` more.

        The audit of a tolerance is one computation that grows: the first
        call about ``eps`` (a measure, :meth:`evidence`, :meth:`by_group`,
        a scorer, a Display) runs it for at most ``total_time_limit``
        seconds, by one plan for both measures (and every group's
        discrepancy when ``fit`` had groups); later calls read what it
        certified, at no solver time. ``refine`` gives it more time: it
        continues from everything found and proven so far, so bounds only
        tighten.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit continues (see Notes).
        seconds : float or None, default=None
            Seconds more (``None``: ``total_time_limit`` more, or no limit
            when that is ``None``).

        Returns
        -------
        self : MultiplicityAuditor
            The auditor, its audit of ``eps`` refined.
        """
        seconds = requests.seconds_to_grant(seconds, self.total_time_limit)
        _, budget = self._request(eps)
        self.session_.grant(budget, seconds, self.total_time_limit)
        self._audited(eps)
        return self

    def error_budget(self, eps=None):
        """Largest weighted training error of a model of the ``eps``-level set.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance, or one per class label (on that class's error
            rate); defaults to the ``epsilon`` parameter.

        Returns
        -------
        float or dict
            ``err(h0) + eps * W``, the allowance rounded down to a whole
            number with integral weights. Per class, a dict with the largest
            weighted ``false_positives`` (``FP(h0) + eps_neg * W_neg``) and
            ``false_negatives`` (``FN(h0) + eps_pos * W_pos``); with more than
            two labels, a dict of the largest weighted error on each label's
            rows (``err_k(h0) + eps_k * W_k``), by label.
        """
        return requests.budget_value(self._request(eps)[1], self.classes_)

    def coefficient_ranges(self, eps=None):
        """Least and largest weight of every feature over the level set.

        Two MIPs per weight of the canonical representation (columns that are
        affine combinations of others carry no weight and are left out),
        after the audit of ``eps`` (whose unflippable patterns keep the
        baseline's label in every level-set model) and one minimum-error MIP
        per sign that no known level-set model shows (infeasible: the sign is
        stable). Ends those MIPs leave open are narrowed by bisection:
        minimum-error MIPs with the weight bounded at a threshold, each
        either finding a model of the level set beyond it or proving there is
        none (a proof a second solver confirms).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance of the level set whose weights are ranged (see Notes).

        Returns
        -------
        pandas.DataFrame
            One row per feature: ``feature``, ``min`` and ``max`` (weights
            in the normalisation of the hypothesis class, see Notes: the
            certified values, or inner bounds when a limit stopped a MIP),
            ``scale``, ``min_original`` and ``max_original`` (the same ends
            per unit of the audited feature), ``min_lower``,
            ``min_upper``, ``max_lower``, ``max_upper`` (certified bounds),
            ``sign`` (``"non-negative"``, ``"non-positive"``, ``"either"``
            or ``"unknown"``: stable when every model of the level set keeps
            it), ``certified`` (both ends' bounds at most ``1e-5`` apart, ten
            times the tolerance within which a solver's model counts as one
            of the class), and ``min_model``, ``max_model`` (fitted
            level-set models attaining the inner ends, or ``None``).

        Notes
        -----
        A linear classifier is unchanged by a positive rescaling of its
        weights and intercept, so a weight has a range only once the scale
        of the model is fixed: here, by the normalisation of the hypothesis
        class (``hypothesis_class_``). ``min``, ``max`` and the four bounds
        are weights of the canonical feature: with continuous weights, the
        feature min-max scaled over the training rows, ``(x - min(x)) /
        scale`` with ``scale = max(x) - min(x)``, every weight in
        ``[-1, 1]``; with integer weights, the feature itself (``scale`` is
        1), every weight an integer in ``[-max_weight, max_weight]``.
        ``min_original = min / scale`` and ``max_original = max / scale``
        are the same ends per unit of the feature as the audited estimator
        sees it (for a Pipeline, its transformed features): the coefficients
        that ``min_model`` and ``max_model`` have on it. Divide a bound by
        ``scale`` for its value in those units. Scaled ranges compare
        features of different units; original-unit ranges say how far the
        score of a model so normalised moves per unit of the feature.
        """
        _, budget = self._audited(eps)  # its proofs fix labels
        limits = (self.total_time_limit, self.time_limit)
        ranges = self.session_.weight_ranges(budget, *limits)
        names = self._fitted_baseline.feature_names
        if names is None:
            names = getattr(self, "feature_names_in_", None)
        return requests.ranges_frame(ranges, names, self._estimator_of)

    # -------------------------------------------------------------- measures
    def _reading(self, eps):
        """The audit of ``eps`` (run or continued), read: its tolerance and
        ``Reading``."""
        eps, budget = self._audited(eps)
        return eps, self.session_.reading(budget)

    def _bounds(self, eps, measure):
        """Certified ``(lower, upper)`` of ``measure`` (a field of the
        ``Reading``) at ``eps``."""
        bounds = getattr(self._reading(eps)[1], measure)
        return bounds.lower, bounds.upper

    def _value(self, eps, measure):
        """The certified value of ``measure`` at ``eps``, or its lower bound
        with a :class:`CertificationWarning`."""
        eps, reading = self._reading(eps)
        return value_or_lower_bound(getattr(reading, measure), eps, measure)

    def ambiguity_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on ambiguity at ``eps``.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit is read (see Notes).

        Returns
        -------
        tuple of float
            ``lower <= ambiguity <= upper``; the undecided people
            (:meth:`undecided_by_group`) separate the two.
        """
        return self._bounds(eps, "ambiguity")

    def ambiguity(self, eps=None):
        """Share of training people whose prediction a level-set model flips.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            How much more than the baseline the models that may flip a
            person may err (see Notes).

        Returns
        -------
        float
            The certified value, or, when a limit left it uncertified, the
            certified lower bound with a :class:`CertificationWarning`.
        """
        return self._value(eps, "ambiguity")

    def discrepancy_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on discrepancy at ``eps``.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit is read; no warning when it left the
            bounds apart.

        Returns
        -------
        tuple of float
            ``lower <= discrepancy <= upper``; :meth:`discrepancy_model`
            attains the lower bound.
        """
        return self._bounds(eps, "discrepancy")

    def discrepancy(self, eps=None):
        """Largest share of predictions that one level-set model flips.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance of the flipping model's training error (see Notes).

        Returns
        -------
        float
            The certified value, or the certified lower bound with a
            :class:`CertificationWarning`.
        """
        return self._value(eps, "discrepancy")

    def path(self, max_epsilon=None, *, step=None, n_discrepancy=None):
        """Ambiguity and discrepancy for every error tolerance up to ``max_epsilon``.

        With integral weights, every multiple of their greatest common
        divisor (every whole number for unit weights) of extra errors from 0
        to ``floor(max_epsilon * W)``: no level set changes between two
        multiples, so rows repeated ``k`` times give the rows' path;
        otherwise ``step``-spaced tolerances.
        Flip MIPs are solved to optimality once (below the largest budget),
        which answers ambiguity at every tolerance. Discrepancy is one MIP per
        tolerance not yet certified, smallest first, warm-started from all
        models found so far. With ``n_discrepancy``, only that many evenly
        spaced tolerances get a MIP and the others are bracketed by
        monotonicity. Under ``total_time_limit``, a first pass spends at most
        a fifth of the time on short discrepancy MIPs at every tenth
        open tolerance, largest first, so that tolerances the ascending pass
        does not reach are still bracketed closely. A path is one question
        with its own ``total_time_limit``: asked again with the same
        arguments, it reads what it certified at no solver time, and
        everything it learns serves every tolerance's audit.

        With a dict of per-class tolerances, both rates grow in equal steps
        of ``step`` (default: a tenth of the largest), each capped at its own
        maximum, and every step is certified on its own.

        Parameters
        ----------
        max_epsilon : float in [0, 1] or dict, default=None
            Largest tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.
        step : float, default=None
            Spacing of tolerances when weights are not integral or the
            tolerances are per class.
        n_discrepancy : int, default=None
            Number of tolerances with a discrepancy MIP (``None``: all).

        Returns
        -------
        pandas.DataFrame
            One row per tolerance: ``epsilon``, ``extra_errors``, ``budget``,
            ``ambiguity``, ``ambiguity_lower``, ``ambiguity_upper``,
            ``discrepancy``, ``discrepancy_lower``, ``discrepancy_upper``,
            ``certified``. Per class, ``epsilon`` is the step's common rate
            (before each class's cap), followed by ``epsilon_<label>`` for
            each class, ``false_positives_budget`` and
            ``false_negatives_budget`` instead of ``extra_errors`` and
            ``budget``. Also stored as ``path_``.
        """
        max_eps, _ = self._request(max_epsilon)
        limits = (self.total_time_limit, self.time_limit, self.verbose)
        session = self.session_
        self.path_ = paths.path_table(session, max_eps, step, n_discrepancy, *limits)
        return self.path_

    # ---------------------------------------------------------------- people
    def conflicts(self, eps=None):
        """Boolean mask of training rows whose prediction is contestable.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit marks the rows (see Notes).

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            ``True`` where a model of the level set (see
            :meth:`competing_model`) predicts the row differently from the
            baseline; ``False`` for rows of zero weight.
        """
        return self.evidence(eps)["contestable"].to_numpy()

    def competing_model(self, index, eps=None):
        """A fitted level-set model that flips training row ``index``.

        Parameters
        ----------
        index : int
            Row of the training data.
        eps : float in [0, 1] or dict, default=None
            Tolerance of the competing model's error (see Notes).

        Returns
        -------
        CompetingModel or Pipeline or None
            ``None`` when no model of the level set flips the row (or none was
            found within the limits; see :meth:`conflicts`).
        """
        _, budget = self._audited(eps)
        return self._estimator_of(self.session_.competitor(index, budget))

    def discrepancy_model(self, eps=None):
        """The fitted level-set model realising the discrepancy (lower bound).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance of the model's error (see Notes).

        Returns
        -------
        CompetingModel or Pipeline or None
            ``None`` when no model of the level set is known.
        """
        return self._estimator_of(self._reading(eps)[1].model)

    def _estimator_of(self, found):
        """The fitted estimator of a ``FoundModel`` (or None)."""
        prefix = self._fitted_baseline.prefix
        return people.competing_estimator(found, self.classes_, prefix)

    def evidence(self, eps=None):
        """Per training row: baseline prediction and whether it is contestable.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit the table shows, row by row (see Notes).

        Returns
        -------
        pandas.DataFrame or dask DataFrame
            One row per training row, indexed by the index of the DataFrame
            given to ``fit`` (a ``RangeIndex`` for arrays; a dask DataFrame,
            computed per partition, when ``fit`` was given one). Columns
            ``baseline`` (predicted class), ``contestable`` (certified: a
            level-set model flips it), ``undecided`` (neither certified
            contestable nor certified stable: a limit stopped its MIP) and
            ``min_flip_errors`` (fewest errors of a found model flipping it).
        """
        _, budget = self._audited(eps)
        evidence = self.session_.evidence(budget)
        frame = people.evidence_frame(evidence, self.classes_, self._row_index)
        if getattr(self, "_training_rows", None) is None:
            return frame
        return dask_patterns.training_rows(*self._training_rows, frame)

    def ambiguous(self, X, eps=None):
        """Whether a level-set model gives each new person the other prediction.

        One rule, whoever answers (a known model or a MIP): a person is
        contestable iff some model of the level set scores them on the other
        side of 0 from the baseline's prediction, or exactly at 0 (a tie,
        which the baseline's side does not win by any margin); the margin of
        the hypothesis class constrains training people only. The audit of
        ``eps`` runs first (see :meth:`refine`: only if no earlier call ran
        it): a new person who is a training pattern is answered by it, and
        its proofs fix labels in the other MIPs. Each other distinct person
        is asked alone, in a MIP of the training data plus a row on that
        person's score, within ``total_time_limit`` for all the people of
        the call: the answer depends on that person and the training data
        only, never on who else is in ``X``. What the MIPs find and prove is
        kept, so asking again costs nothing.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or dask DataFrame
            New people.
        eps : float in [0, 1] or dict, default=None
            Tolerance of the models that may disagree (see Notes).

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            Certified ambiguous; undecided people (time limit) are ``False``
            and raise a :class:`CertificationWarning`. For a dask DataFrame
            ``X``, a dask Series named ``"ambiguous"`` with its index: the
            distinct people are answered at once, then joined to every
            partition.
        """
        if dask_patterns.is_dask(X):
            return dask_patterns.answer_patterns(
                X, lambda P: pd.Series(self.ambiguous(P, eps), name="ambiguous")
            )
        decided, _, _ = people.new_people(*self._new_people(X, eps))
        return decided

    def predict_set(self, X, eps=None):
        """The labels that the models of the level set give each person.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or dask DataFrame
            People (new or training).
        eps : float in [0, 1] or dict, default=None
            Tolerance of the models that vote (see Notes).

        Returns
        -------
        ndarray of bool, shape (n_samples, n_classes)
            A mask over ``classes_`` (as MAPIE's prediction sets), not the
            labels themselves: column ``i`` says whether some model of the
            level set predicts ``classes_[i]`` (or scores the person exactly
            0, a tie: see :meth:`ambiguous`). One label (the baseline's)
            for people no model flips, both for contestable people (see
            :meth:`ambiguous` for the rule). With more than two labels, a
            label is in the set when some model of the level set scores it at
            least as high as every other label (a tie counts; on a training
            person the class's margin makes every label strict), decided by
            one MIP per person and label that no known model settles. A label
            a limit left unsettled is in the set (every label left out is
            certified out of reach), with a :class:`CertificationWarning`. The
            label sets are ``[self.classes_[row] for row in mask]``. For a
            dask DataFrame ``X``, a dask DataFrame of one boolean column per
            label (named ``str(label)``) with the index of ``X``.
        """
        if dask_patterns.is_dask(X):
            names = [str(label) for label in self.classes_]
            return dask_patterns.answer_patterns(
                X, lambda P: pd.DataFrame(self.predict_set(P, eps), columns=names)
            )
        if self.classes_.size > 2:
            return people.label_sets(*self._new_people(X, eps))
        return people.prediction_sets(*people.new_people(*self._new_people(X, eps)))

    def _new_people(self, X, eps):
        """The arguments of :func:`people.new_people` for the people ``X``."""
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        # The tolerance's audit first (its own account), then the people's
        # MIPs within this request's time.
        eps, budget = self._audited(eps)
        Z = self._fitted_baseline.audit_space(X)
        predicted = np.asarray(self.estimator_.predict(X))
        if self.classes_.size > 2:  # the label's index
            predictions = np.searchsorted(self.classes_, predicted)
        else:  # positive or not
            predictions = predicted == self.classes_[1]
        limits = (self.total_time_limit, self.time_limit)
        return self.session_, eps, budget, Z, predictions, *limits

    def by_group(self, eps=None):
        """Ambiguity and discrepancy overall and per group.

        Group ambiguity aggregates the per-person flags of the group; group
        discrepancy is its own MIP (disagreement restricted to the group).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose audit is read by group (see Notes).

        Returns
        -------
        MultiplicityFrame
            ``overall``, ``by_group`` (one row per group) and group summaries.
        """
        check_is_fitted(self)
        if self.groups_ is None:
            raise ValueError("Pass groups= to fit to get per-group results.")
        eps, budget = self._audited(eps)  # every group's discrepancy too
        return people.group_frame(self.session_.group_readings(budget), eps)

    def undecided_by_group(self, eps=None):
        """Weighted count of undecided training people, overall and per group.

        A person is undecided at ``eps`` when no verified model of the level
        set gives them another label and no proof says none does: a time
        limit stopped their audit. They are what separates ambiguity's lower bound from
        its upper bound; :meth:`refine` decides more of them.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Tolerance whose undecided people are counted; :meth:`refine`
            decides more at the same ``eps``.

        Returns
        -------
        pandas.Series
            ``"overall"``, then one entry per group of ``fit``'s ``groups``
            (none without groups), named ``"undecided"``.
        """
        _, budget = self._audited(eps)
        counts = self.session_.undecided_by_group(budget)
        return pd.Series(
            {"overall" if label is None else label: n for label, n in counts.items()},
            name="undecided",
            dtype=float,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = False
        return tags
