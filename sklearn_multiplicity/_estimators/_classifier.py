"""``ZeroOneLinearClassifier``: the linear classifier of fewest training errors."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import validate_data

from .._core._validation import (
    check_binary_target,
    check_multiclass_target,
    check_weights,
    resolve_threads,
)
from .._engine import AuditSession, Deadline, MulticlassSession, require
from .._reporting._progress import bounds_progress
from ..backends import Backend
from . import _dask_patterns as dask_patterns
from ._baseline import check_no_text

#: Seconds allowed beyond ``time_limit`` for compression, model building,
#: the warm start and verification (measured well below this on COMPAS).
TIME_LIMIT_OVERHEAD = 5.0

#: Parameters shared with :class:`MultiplicityAuditor`: solver and class.
SOLVER_CONSTRAINTS = {
    "solver": [str, Backend],
    "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    "margin": [Interval(Real, 0, 0.5, closed="right")],
    "weights": [StrOptions({"auto", "continuous", "integer"})],
    "max_weight": [Interval(Integral, 1, None, closed="left")],
    "cuts": ["boolean"],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "constraints": [list, tuple, None],
}


class ZeroOneLinearClassifier(LinearClassifierMixin, BaseEstimator):
    """Linear classifier minimising the (weighted) number of training errors.

    ``fit`` solves a mixed-integer program over linear classifiers
    ``x -> sign(w . x + b)`` with Google OR-Tools and reports the certified
    minimum: ``lower_bound_ <= true minimum <= n_errors_`` always holds, with
    equality when ``status_ == "optimal"``.

    The training rows are compressed to distinct feature patterns (one binary
    variable per pattern), affinely redundant columns (one-hot groups plus the
    intercept, constant columns) are dropped before solving and mapped back,
    and valid inequalities from affine identities between integer-valued
    patterns tighten the relaxation.

    Parameters
    ----------
    solver : {"auto", "highs", "scip", "cpsat"}, default="auto"
        MIP backend. HiGHS and SCIP run through OR-Tools' MathOpt with
        continuous weights; CP-SAT runs through ``ortools.sat`` with integer
        weights and needs integer-valued features. ``"auto"`` solves this
        minimum-error MIP with HiGHS, which reached the certificate first in
        ``benchmarks/``.
    time_limit : float or None, default=60.0
        Seconds for the solver. ``fit`` returns within ``time_limit`` plus a
        small overhead (data compression, warm start, verification; see
        ``TIME_LIMIT_OVERHEAD``). ``None`` runs until the optimum is certified.
    margin : float, default=1e-3
        Hypothesis class of the continuous solvers: with features min-max
        scaled to [0, 1] and ``|w_j| <= 1``, every training pattern must score
        ``>= margin`` or ``<= -margin``. Exact results are exact over this
        class (see Notes).
    weights : {"auto", "continuous", "integer"}, default="auto"
        ``"integer"`` optimises over integer weights ``|w_j| <= max_weight``
        (any solver); ``"auto"`` is integer for CP-SAT and continuous
        otherwise.
    max_weight : int, default=10
        Largest absolute integer weight when ``weights`` is integer.
    cuts : bool, default=True
        Add the affine-identity inequalities (valid for every linear
        classifier; a large speed-up on binary data).
    n_jobs : int or None, default=None
        Solver threads (``None``: 1, ``-1``: all cores).
    random_state : int or None, default=None
        Seed of the solver and of the warm start.
    verbose : int, default=0
        ``>= 1``: a bar of the fit's seconds and its band of errors (the
        best model found and the best proof), read every two seconds, also
        while the MIP runs; ``> 1``: the solver log too.
    constraints : list, default=None
        Constraints from :mod:`sklearn_multiplicity.constraints`
        (:class:`~sklearn_multiplicity.constraints.MaxNonzero`,
        :class:`~sklearn_multiplicity.constraints.Signs`,
        :class:`~sklearn_multiplicity.constraints.GroupRateGap`): the fit is
        0-1 optimal among the models of the class that meet them all.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights on the input columns (0 on dropped redundant columns).
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.
    n_errors_ : float
        Weighted training errors of the fitted model (recomputed from
        ``coef_``, never taken from the solver).
    training_error_ : float
        ``n_errors_`` divided by the total weight.
    lower_bound_ : float
        Certified lower bound on the minimum error over the hypothesis class.
    status_ : {"optimal", "feasible"}
        ``"optimal"``: ``n_errors_ == lower_bound_`` is the certified minimum.
        ``"feasible"``: stopped by the time limit (or a solver failure); the
        bounds still hold.
    gap_ : float
        ``(n_errors_ - lower_bound_) / n_errors_`` (0 when optimal).
    solve_time_ : float
        Seconds spent in the solver.
    n_patterns_ : int
        Distinct feature patterns among rows of positive weight.
    n_identities_ : int
        Affine-identity inequalities added.
    warm_start_ : dict
        The starting model passed to the solver as a hint (``source``,
        ``n_errors``).
    solver_status_ : str
        Raw status of the solver run (``"optimal"``, ``"feasible"``,
        ``"no_solution"``, ``"infeasible"``, ``"error"``).
    hypothesis_class_ : str
        The class over which the result is exact.
    constraints_ : list of str
        The constraints in force, one line each.

    See Also
    --------
    MultiplicityAuditor : Ambiguity and discrepancy around a baseline.

    Notes
    -----
    The result is exact over the hypothesis class named by
    ``hypothesis_class_``: models ``1[w . x_c + b > 0]`` on the canonical
    representation ``x_c`` (affinely redundant columns dropped; for continuous
    weights, min-max scaled to [0, 1]) with ``|w_j| <= 1`` and every training
    pattern at distance ``>= margin`` from the threshold, or, for integer
    weights, integer ``|w_j| <= max_weight`` and integer ``b``. The same
    class is used by :class:`MultiplicityAuditor` for its level sets.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_multiplicity import ZeroOneLinearClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    >>> y = np.array([0, 1, 1, 0] * 3)
    >>> clf = ZeroOneLinearClassifier(time_limit=10).fit(X, y)
    >>> clf.status_, clf.n_errors_
    ('optimal', 3.0)
    """

    _parameter_constraints: dict = dict(SOLVER_CONSTRAINTS)

    def __init__(
        self,
        *,
        solver="auto",
        time_limit=60.0,
        margin=1e-3,
        weights="auto",
        max_weight=10,
        cuts=True,
        n_jobs=None,
        random_state=None,
        verbose=0,
        constraints=None,
    ):
        self.solver = solver
        self.time_limit = time_limit
        self.margin = margin
        self.weights = weights
        self.max_weight = max_weight
        self.cuts = cuts
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.constraints = constraints

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, groups=None):
        """Fit the linear classifier with the fewest training errors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or dask DataFrame
            Training features. A dask DataFrame is read by dask into its
            distinct rows and their summed weights (no process holds the
            rows); ``y``, ``sample_weight`` and ``groups`` are then dask
            Series of the same partitions (columns of the same frame).
        y : array-like of shape (n_samples,)
            Two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative; an error on a row costs its weight.
        groups : array-like of shape (n_samples,), default=None
            Group of every row, for a
            :class:`~sklearn_multiplicity.constraints.GroupRateGap` without
            groups of its own.

        Returns
        -------
        self : ZeroOneLinearClassifier
            The fitted classifier.
        """
        deadline = Deadline(self.time_limit)
        if dask_patterns.is_dask(X):
            X, y, sample_weight, groups = dask_patterns.distinct_rows(
                X, y, sample_weight, groups
            )
        session = open_session(self, X, y, sample_weight, groups=groups)
        with bounds_progress(self.verbose, self.time_limit, "minimum error") as seen:
            fit = session.min_error(deadline, progress=seen)
        return store_fit(self, session, fit)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = False
        return tags


def open_session(classifier, X, y, sample_weight, groups=None, **engine):
    """Validate the data of ``classifier`` (a :class:`ZeroOneLinearClassifier`
    or the default baseline of an audit); the session of its MIPs, of the
    family of its target (two labels or K; see :func:`session_of`)."""
    check_no_text(X, type(classifier).__name__)
    X, y = validate_data(classifier, X, y, dtype=np.float64, ensure_all_finite=True)
    weight = check_weights(sample_weight, X)
    if is_multiclass(y):
        classifier.classes_, labels = check_multiclass_target(y)
    else:
        classifier.classes_, labels = check_binary_target(y)
    names = getattr(classifier, "feature_names_in_", None)
    return session_of(
        classifier, X, labels, weight, classifier.classes_.size, groups, names, **engine
    )


def session_of(settings, X, labels, weight, n_classes, groups, names, **engine):
    """The session of the MIPs on ``X`` (the audit space) with label indices
    ``labels`` and row weights ``weight``: two labels or K.

    Parameters
    ----------
    settings : ZeroOneLinearClassifier or MultiplicityAuditor
        Whose solver and class parameters (``solver``, ``weights``,
        ``margin``, ``max_weight``, ``cuts``, ``n_jobs``, ``random_state``,
        ``verbose``, ``constraints``) set the session up.
    n_classes : int
    groups : ndarray or None
        The group of every row, for a ``GroupRateGap`` without its own.
    names : sequence of str or None
        The columns' names.
    **engine
        ``n_jobs`` and ``strategy`` of a two-label session that an audit
        reuses.

    Raises
    ------
    UnsupportedCapability
        Constraints or integer weights with more than two labels.
    """
    threads = resolve_threads(settings.n_jobs)
    if n_classes > 2:
        if settings.constraints:
            require(MulticlassSession, "constraints", n_classes=n_classes)
        if settings.weights == "integer":
            require(MulticlassSession, "integer_weights")
        return MulticlassSession.from_data(
            X,
            labels,
            weight,
            np.arange(n_classes),
            solver=settings.solver,
            margin=settings.margin,
            threads=threads,
        )
    return AuditSession.from_data(
        X,
        labels,
        weight,
        solver=settings.solver,
        weights=settings.weights,
        margin=settings.margin,
        max_weight=settings.max_weight,
        cuts=settings.cuts,
        threads=threads,
        random_state=settings.random_state,
        verbose=settings.verbose,
        constraints=settings.constraints,
        groups=None if groups is None else np.asarray(groups),
        feature_names=names,
        **engine,
    )


def store_fit(classifier, session, fit):
    """Set the fitted attributes of ``classifier`` (a
    :class:`ZeroOneLinearClassifier`) from the minimum error ``fit`` of
    ``session``; returns ``classifier``."""
    found, summary = session.min_error_record(fit), session.summary()
    classifier.coef_, classifier.intercept_ = found.coef, found.intercept
    classifier.n_errors_ = found.errors
    classifier.training_error_ = found.errors / summary.total_weight
    classifier.lower_bound_ = found.lower_bound
    classifier.status_ = found.status
    classifier.gap_ = found.gap
    classifier.solve_time_ = found.solve_time
    classifier.solver_status_ = found.solver_status
    classifier.warm_start_ = found.warm_start
    store_encoding(classifier, summary)
    return classifier


def store_encoding(estimator, summary):
    """Set what the session's ``summary`` says of the encoding as fitted
    attributes of ``estimator`` (the classifier or the auditor)."""
    estimator.n_patterns_ = summary.n_patterns
    estimator.n_identities_ = summary.n_identities
    estimator.hypothesis_class_ = summary.hypothesis_class
    estimator.constraints_ = summary.constraints


def is_multiclass(y):
    """Whether the target ``y`` has more than two labels."""
    return type_of_target(y, input_name="y", raise_unknown=True) == "multiclass"
