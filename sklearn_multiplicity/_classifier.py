"""``ZeroOneLinearClassifier``: the linear classifier of fewest training errors."""

import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils.validation import validate_data

from ._core._hypothesis import make_hypothesis_class
from ._core._models import constant_models, in_class, logistic_model, verify
from ._core._problem import PatternProblem
from ._core._validation import (
    check_binary_target,
    check_time_limit,
    check_weights,
    resolve_threads,
)
from ._mip import _formulations, encode
from ._mip._program import OPTIMAL
from ._mip._relaxation import IdentitySeparator
from .backends import get_backend

#: Seconds allowed beyond ``time_limit`` for compression, model building,
#: the warm start and verification (measured well below this on COMPAS).
TIME_LIMIT_OVERHEAD = 5.0


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
        ``> 1`` prints the solver log.

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

    References
    ----------
    .. [1] C. Marx, F. Calmon and B. Ustun. "Predictive Multiplicity in
       Classification". ICML 2020.

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

    def fit(self, X, y, sample_weight=None):
        """Fit the linear classifier with the fewest training errors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative; an error on a row costs its weight.

        Returns
        -------
        self : ZeroOneLinearClassifier
        """
        start = time.perf_counter()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        time_limit = check_time_limit(self.time_limit)
        self.classes_, y01 = check_binary_target(y)
        weight = check_weights(sample_weight, X)
        hypothesis = make_hypothesis_class(
            self.weights, self.solver, self.margin, self.max_weight
        )
        backend = get_backend(
            self.solver,
            threads=resolve_threads(self.n_jobs),
            random_state=self.random_state,
            verbose=self.verbose,
        )
        problem = PatternProblem.from_data(X, y01, weight)
        if hypothesis.integer:
            hypothesis.check_data(problem)
        enc = encode(problem, hypothesis, cuts=self.cuts)
        fit = solve_min_error(
            enc,
            backend,
            time_limit=time_limit,
            start=start,
            random_state=self.random_state,
        )
        self._store(problem, enc, hypothesis, fit)
        return self

    def _store(self, problem, enc, hypothesis, fit):
        model = fit["model"]
        coef, intercept = problem.to_original(
            model.w, model.b, scaled=hypothesis.scaled
        )
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([intercept])
        self.n_errors_ = model.errors
        self.training_error_ = model.errors / problem.total_weight
        self.lower_bound_ = fit["lower_bound"]
        self.status_ = fit["status"]
        self.gap_ = fit["gap"]
        self.solve_time_ = fit["solve_time"]
        self.solver_status_ = fit["solver_status"]
        self.n_patterns_ = problem.n_patterns
        self.n_identities_ = enc.n_identities
        self.warm_start_ = fit["warm_start"]
        self.hypothesis_class_ = hypothesis.describe()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = False
        return tags


def solve_min_error(
    enc, backend, *, time_limit, start=None, random_state=None, separator=None
):
    """Certified minimum error over the class of ``enc``, with a warm start.

    The MIP gets only the affine-identity rows its LP relaxation needs
    (``separator``, an :class:`~._relaxation.IdentitySeparator` of ``enc``,
    built here when not given).

    Returns
    -------
    dict with ``model`` (a verified :class:`CanonicalModel` in the class),
    ``lower_bound``, ``status``, ``gap``, ``solve_time``, ``solver_status``,
    ``warm_start`` and ``result`` (the raw :class:`MIPResult`).
    """
    start = time.perf_counter() if start is None else start
    candidates = constant_models(enc)
    candidates.append(logistic_model(enc, random_state=random_state))
    warm = min((m for m in candidates if m is not None), key=lambda m: m.errors)
    mip = _formulations.min_error(enc, hint=enc.hint_from((warm.w, warm.b)))
    if enc.n_identities:
        separator = separator or IdentitySeparator(enc)
        mip = separator.restrict(mip, separator.base_rows)
    if time_limit is not None:
        backend.time_limit = max(time_limit - (time.perf_counter() - start), 1e-3)
    result = backend.solve(mip)

    model = warm
    if result.has_solution:
        w, b, _ = enc.decode(result.x)
        found = verify(enc, w, b, source=mip.name)
        if found.errors <= warm.errors and in_class(enc, found, tolerance=1e-4):
            model = found
    claimed = result.bound if np.isfinite(result.bound) else -np.inf
    if claimed > model.errors + 1e-6:
        # A verified model of the class beats the solver's "proof": the solver
        # is wrong, so its bound certifies nothing.
        warnings.warn(
            f"The {backend.name} solver claimed no model has fewer than "
            f"{claimed:g} errors, but a verified model has {model.errors:g}; "
            "its bound is discarded.",
            RuntimeWarning,
            stacklevel=3,
        )
        claimed = -np.inf
    lower = max(enc.problem.unavoidable_errors, claimed)
    if result.status not in (OPTIMAL, "feasible", "no_solution"):
        warnings.warn(
            f"The {backend.name} solver did not solve {mip.name} ({result.status}: "
            f"{result.message}); returning the warm start ({warm.source}).",
            RuntimeWarning,
            stacklevel=3,
        )
    status = OPTIMAL if model.errors <= lower + 1e-9 else "feasible"
    gap = (model.errors - lower) / model.errors if model.errors > 0 else 0.0
    return {
        "model": model,
        "lower_bound": float(lower),
        "status": status,
        "gap": float(gap),
        "solve_time": result.solve_time,
        "solver_status": result.status,
        "warm_start": {"source": warm.source, "n_errors": warm.errors},
        "result": result,
    }
