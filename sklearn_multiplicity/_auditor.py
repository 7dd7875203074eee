"""``MultiplicityAuditor``: exact ambiguity and discrepancy of a linear baseline."""

from numbers import Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _paths as paths
from . import _people as people
from . import _requests as requests
from ._baseline import BaselineDelegationMixin
from ._classifier import SOLVER_CONSTRAINTS, ZeroOneLinearClassifier
from ._core._validation import check_tolerance
from ._docstrings import documented
from ._engine import STRATEGIES
from ._opening import open_audit, value_or_lower_bound
from ._progress import audit_progress, bounds_progress


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
        X : array-like of shape (n_samples, n_features)
            Training features.
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
        return eps, budget

    @documented(requests.REFINE)
    def refine(self, eps=None, seconds=None):
        seconds = requests.seconds_to_grant(seconds, self.total_time_limit)
        _, budget = self._request(eps)
        self.session_.grant(budget, seconds, self.total_time_limit)
        self._audited(eps)
        return self

    @documented(requests.ERROR_BUDGET)
    def error_budget(self, eps=None):
        return requests.budget_value(self._request(eps)[1], self.classes_)

    @documented(requests.COEFFICIENT_RANGES)
    def coefficient_ranges(self, eps=None):
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

    def ambiguity_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on ambiguity at ``eps``.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        tuple of float
            ``lower <= ambiguity <= upper``.
        """
        bounds = self._reading(eps)[1].ambiguity
        return bounds.lower, bounds.upper

    def ambiguity(self, eps=None):
        """Share of training people whose prediction a level-set model flips.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        float
            The certified value, or, when a limit left it uncertified, the
            certified lower bound with a :class:`CertificationWarning`.
        """
        eps, reading = self._reading(eps)
        return value_or_lower_bound(reading.ambiguity, eps, "ambiguity")

    def discrepancy_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on discrepancy at ``eps``.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        tuple of float
            ``lower <= discrepancy <= upper``.
        """
        bounds = self._reading(eps)[1].discrepancy
        return bounds.lower, bounds.upper

    def discrepancy(self, eps=None):
        """Largest share of predictions that one level-set model flips.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        float
            The certified value, or the certified lower bound with a
            :class:`CertificationWarning`.
        """
        eps, reading = self._reading(eps)
        return value_or_lower_bound(reading.discrepancy, eps, "discrepancy")

    @documented(paths.PATH)
    def path(self, max_epsilon=None, *, step=None, n_discrepancy=None):
        max_eps, _ = self._request(max_epsilon)
        limits = (self.total_time_limit, self.time_limit, self.verbose)
        session = self.session_
        self.path_ = paths.path_table(session, max_eps, step, n_discrepancy, *limits)
        return self.path_

    # ---------------------------------------------------------------- people
    @documented(people.CONFLICTS)
    def conflicts(self, eps=None):
        return self.evidence(eps)["contestable"].to_numpy()

    @documented(people.COMPETING_MODEL)
    def competing_model(self, index, eps=None):
        _, budget = self._audited(eps)
        return self._estimator_of(self.session_.competitor(index, budget))

    @documented(people.DISCREPANCY_MODEL)
    def discrepancy_model(self, eps=None):
        return self._estimator_of(self._reading(eps)[1].model)

    def _estimator_of(self, found):
        """The fitted estimator of a ``FoundModel`` (or None)."""
        prefix = self._fitted_baseline.prefix
        return people.competing_estimator(found, self.classes_, prefix)

    @documented(people.EVIDENCE)
    def evidence(self, eps=None):
        _, budget = self._audited(eps)
        evidence = self.session_.evidence(budget)
        return people.evidence_frame(evidence, self.classes_, self._row_index)

    @documented(people.AMBIGUOUS)
    def ambiguous(self, X, eps=None):
        decided, _, _ = people.new_people(*self._new_people(X, eps))
        return decided

    @documented(people.PREDICT_SET)
    def predict_set(self, X, eps=None):
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

    @documented(people.BY_GROUP)
    def by_group(self, eps=None):
        check_is_fitted(self)
        if self.groups_ is None:
            raise ValueError("Pass groups= to fit to get per-group results.")
        eps, budget = self._audited(eps)  # every group's discrepancy too
        return people.group_frame(self.session_.group_readings(budget), eps)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = False
        return tags
