"""``MultiplicityAuditor``: exact ambiguity and discrepancy of a linear baseline."""

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._baseline import fit_baseline
from ._classifier import ZeroOneLinearClassifier, solve_min_error
from ._core._hypothesis import make_hypothesis_class
from ._core._models import constant_models, logistic_model, verify
from ._core._problem import PatternProblem
from ._core._validation import (
    check_binary_target,
    check_epsilon,
    check_time_limit,
    check_weights,
    resolve_threads,
)
from ._engine._ambiguity import AuditEngine
from ._engine._scheduling import Deadline
from ._frame import frame_from_rows
from ._mip import _formulations, encode
from ._mip._relaxation import IdentitySeparator
from .backends import get_backend


class CertificationWarning(UserWarning):
    """A value is reported as its certified lower bound: a limit stopped a MIP."""


class ProblemSizeWarning(UserWarning):
    """The audit is probably too large to certify within its time limits."""


#: Distinct patterns above which exact audits rarely finish in minutes.
LARGE_PROBLEM_PATTERNS = 2000


class CompetingModel(LinearClassifierMixin, BaseEstimator):
    """A fitted linear model of the level set, found by the auditor.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights on the audit space (the baseline's input, or the output of
        its pipeline's transformers).
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    n_errors_ : float
        Weighted training errors.
    source : str
        The MIP or heuristic that found it.
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
        """Store the given coefficients as fitted attributes (no learning)."""
        self.coef_ = np.asarray(self.coef, dtype=float).reshape(1, -1)
        self.intercept_ = np.array([float(self.intercept)])
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = self.coef_.shape[1]
        self.n_errors_ = self.n_errors
        return self


def _has_baseline(name):
    def check(self):
        return hasattr(
            self.estimator_
            if hasattr(self, "estimator_")
            else (self.estimator or ZeroOneLinearClassifier()),
            name,
        )

    return check


class MultiplicityAuditor(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Exact predictive multiplicity of a linear classifier.

    Fits (or takes, when frozen) a baseline linear classifier ``h0`` and
    measures, over the epsilon-level set ``{h : err(h) <= err(h0) + eps}`` of
    linear classifiers of one hypothesis class:

    - **ambiguity**: the share of training people whose prediction some model
      of the set flips;
    - **discrepancy**: the largest share of predictions one model of the set
      flips.

    Both are computed exactly by mixed-integer programs (0-1 loss) and
    reported with certified bounds when a time limit stops a solver.

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
    epsilon : float, default=0.01
        Default error tolerance of the level set, a share of the training
        set in [0, 1].
    solver : {"auto", "highs", "scip", "cpsat"}, default="auto"
        MIP backend, as in :class:`ZeroOneLinearClassifier`. ``"auto"``
        solves the minimum-error and flip MIPs with HiGHS and the
        disagreement (discrepancy) MIPs with SCIP, the faster solver on each
        in ``benchmarks/``; both certify the same hypothesis class.
    time_limit : float or None, default=60.0
        Seconds per MIP.
    total_time_limit : float or None, default=None
        Seconds for all MIPs of one request (``fit``, one ``ambiguity``,
        ``discrepancy``, ``path`` ... call). MIPs not solved in time leave
        their bounds open: values are then reported as certified bounds. A
        request that starts with no time left answers from what earlier
        requests learnt, without heuristics, LPs or MIPs.
    margin, weights, max_weight, cuts
        The hypothesis class and formulation, as in
        :class:`ZeroOneLinearClassifier`.
    strategy : {"each", "batch"}, default="each"
        How ambiguity settles the patterns that known models, cheap
        threshold-shift heuristics and the LP relaxation (which proves
        patterns unflippable without branching) leave undecided.
        ``"each"``: one decision flip MIP per pattern (the paper's algorithm,
        skipping patterns flipped by any model found meanwhile; patterns
        whose LP bound is closest to the budget first);
        ``"batch"``: MIPs asking for a model that flips *any* undecided
        pattern, whose infeasibility proves all of them unflippable at once.
        Both are exact; they differ in speed (see ``benchmarks/``).
    n_jobs : int or None, default=None
        Flip MIPs solved at once in a pool of threads (the solvers release
        the GIL), each with one solver thread; the next pattern is chosen as
        soon as a MIP finishes, so no MIP is spent on a pattern decided
        meanwhile. A single MIP (discrepancy, minimum error) gets this many
        solver threads. ``-1`` uses every core. Inside
        ``joblib.parallel_config(backend="dask")`` (or ray) the flip MIPs are
        shipped to the cluster through joblib instead, ``n_jobs`` at a time.
    random_state : int or None, default=None
    verbose : int, default=0
        ``>= 1``: progress bars for flip MIPs and the discrepancy MIPs of
        ``path``; ``> 1``: solver logs.

    Attributes
    ----------
    estimator_ : estimator
        The fitted baseline.
    classes_, n_features_in_, feature_names_in_
        As for any fitted classifier.
    baseline_errors_ : float
        Weighted training errors of the baseline.
    baseline_error_ : float
        ``baseline_errors_`` as a share of the total weight.
    min_error_bounds_ : tuple of float
        Certified ``(lower, upper)`` on the fewest weighted errors of the
        class: a large gap to ``baseline_errors_`` means the baseline is far
        from 0-1 optimal.
    n_patterns_ : int
        Distinct training patterns in the audit space.
    hypothesis_class_ : str
    mip_log_ : list of dict
        One entry per solved MIP: name, status, objective, bound, seconds,
        solver (``"highs"``, ``"scip"``, ``"cpsat"``; ``"linprog-highs"`` for
        a batch of LP relaxations) and message (grows as measures are
        requested).

    See Also
    --------
    ZeroOneLinearClassifier : The default baseline.

    Notes
    -----
    The level set at ``eps`` holds the models whose weighted training error is
    at most ``err(h0) + eps * W`` (``W`` the total weight); with integral
    weights the allowance ``eps * W`` is rounded down to a whole number, so
    with unit weights it is ``floor(eps * n)`` extra errors.

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

    def __init__(
        self,
        estimator=None,
        *,
        epsilon=0.01,
        solver="auto",
        time_limit=60.0,
        total_time_limit=None,
        margin=1e-3,
        weights="auto",
        max_weight=10,
        cuts=True,
        strategy="each",
        n_jobs=None,
        random_state=None,
        verbose=0,
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

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None, groups=None):
        """Fit the baseline and certify its minimum-error context.

        Ambiguity and discrepancy are computed on request (and cached), so
        that a fitted auditor answers any ``eps``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        groups : array-like of shape (n_samples,), default=None
            Group of every training person (e.g. race) for :meth:`by_group`.

        Returns
        -------
        self : MultiplicityAuditor
        """
        check_epsilon(self.epsilon, "epsilon")
        check_time_limit(self.time_limit)
        check_time_limit(self.total_time_limit, "total_time_limit")
        X_checked, y = validate_data(
            self, X, y, dtype=None, ensure_all_finite=False, ensure_min_samples=2
        )
        self.classes_, y01 = check_binary_target(y)
        weight = check_weights(sample_weight, X_checked)
        self.groups_ = self._check_groups(groups, len(y))
        hypothesis = make_hypothesis_class(
            self.weights, self.solver, self.margin, self.max_weight
        )
        baseline = fit_baseline(
            self._baseline_estimator(), X, y, None if sample_weight is None else weight
        )
        self.estimator_ = baseline.estimator
        self._baseline = baseline
        if not np.array_equal(np.asarray(baseline.linear.classes_), self.classes_):
            raise ValueError("The baseline's classes_ differ from the labels of y.")

        Z = self._audit_space(X)
        predictions = np.asarray(self.estimator_.predict(X)) == self.classes_[1]
        scores = Z @ baseline.coef + baseline.intercept
        if np.any((scores > 0) != predictions):
            raise TypeError(
                "The baseline's predictions are not sign(coef_ . x + intercept_) "
                "in its feature space; only linear classifiers can be audited."
            )
        problem = PatternProblem.from_data(Z, y01, weight)
        if hypothesis.integer:
            hypothesis.check_data(problem)
        self._warn_if_large(problem)
        z0 = np.zeros(problem.n_patterns, dtype=bool)
        active = problem.inverse >= 0
        z0[problem.inverse[active]] = predictions[active]

        enc = encode(problem, hypothesis, cuts=self.cuts)
        backend = get_backend(
            self.solver,
            threads=resolve_threads(self.n_jobs),
            random_state=self.random_state,
            verbose=self.verbose,
        )
        deadline = Deadline(self.total_time_limit)
        separator = IdentitySeparator(enc) if enc.n_identities else None
        min_fit = solve_min_error(
            enc,
            backend,
            time_limit=deadline.limit(self.time_limit),
            random_state=self.random_state,
            separator=separator,
        )
        engine = AuditEngine(
            enc,
            z0,
            min_fit["lower_bound"],
            backend,
            time_limit=self.time_limit,
            n_jobs=self._parallel_jobs(),
            strategy=self.strategy,
            separator=separator,
        )
        engine._record(_formulations.min_error(enc), min_fit["result"])
        for model in [
            min_fit["model"],
            *constant_models(enc),
            logistic_model(enc, random_state=self.random_state),
            self._baseline_in_class(enc, problem, hypothesis, baseline),
        ]:
            engine.add_model(model)
        self._engine = engine
        self._problem = problem
        self._hypothesis = hypothesis
        self._weights = weight
        self.baseline_errors_ = engine.baseline_errors
        self.baseline_error_ = engine.baseline_errors / problem.total_weight
        self.min_error_bounds_ = (min_fit["lower_bound"], min_fit["model"].errors)
        self.n_patterns_ = problem.n_patterns
        self.n_identities_ = enc.n_identities
        self.hypothesis_class_ = hypothesis.describe()
        if self.baseline_errors_ < self.min_error_bounds_[0] - 1e-9:
            remedy = (
                "Increase max_weight or use weights='continuous'"
                if hypothesis.integer
                else "Decrease margin"
            )
            warnings.warn(
                "The baseline makes fewer errors than any model of the hypothesis "
                f"class ({self.hypothesis_class_}); small level sets may be empty. "
                f"{remedy}.",
                UserWarning,
                stacklevel=2,
            )
        return self

    def _warn_if_large(self, problem):
        if problem.n_patterns <= LARGE_PROBLEM_PATTERNS:
            return
        warnings.warn(
            f"{problem.n_patterns} distinct feature patterns: every MIP has that "
            "many binary variables and ambiguity may need up to one MIP per "
            f"pattern ({problem.n_patterns} x up to time_limit={self.time_limit} s). "
            "Expect certified bounds rather than exact values. To certify, "
            "binarise or round the features (fewer distinct patterns), audit a "
            "sample of the rows, or allow more time (total_time_limit caps the "
            "whole audit).",
            ProblemSizeWarning,
            stacklevel=3,
        )

    def _baseline_estimator(self):
        if self.estimator is not None:
            return self.estimator
        return ZeroOneLinearClassifier(
            solver=self.solver,
            time_limit=self.time_limit,
            margin=self.margin,
            weights=self.weights,
            max_weight=self.max_weight,
            cuts=self.cuts,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
        )

    def _parallel_jobs(self):
        return resolve_threads(self.n_jobs)

    def _audit_space(self, X):
        Z = self._baseline.transform(X)
        return check_array(
            Z,
            dtype=np.float64,
            ensure_all_finite=True,
            input_name="X (in the baseline's feature space)",
        )

    @staticmethod
    def _check_groups(groups, n):
        if groups is None:
            return None
        groups = np.asarray(groups)
        if groups.ndim != 1 or groups.shape[0] != n:
            raise ValueError(
                f"groups has shape {groups.shape}; expected ({n},), one group per row."
            )
        if pd.isna(groups).any():
            raise ValueError("groups contains missing values.")
        return groups

    @staticmethod
    def _baseline_in_class(enc, problem, hypothesis, baseline):
        w, b = problem.from_original(
            baseline.coef, baseline.intercept, scaled=hypothesis.scaled
        )
        fitted = hypothesis.fit_model(problem, w, b)
        return None if fitted is None else verify(enc, *fitted, source="baseline")

    @property
    def mip_log_(self):
        """One dict per MIP solved so far: name, status, objective, bound, seconds."""
        check_is_fitted(self)
        return list(self._engine.log)

    # ------------------------------------------------------------ delegation
    def predict(self, X):
        """Predictions of the baseline."""
        check_is_fitted(self)
        return self.estimator_.predict(X)

    @available_if(_has_baseline("decision_function"))
    def decision_function(self, X):
        """Decision function of the baseline."""
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    @available_if(_has_baseline("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the baseline (when it has them)."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    # -------------------------------------------------------------- measures
    def _eps(self, eps):
        check_is_fitted(self)
        # Limits are read per request, so set_params after fit takes effect.
        self._engine.time_limit = check_time_limit(self.time_limit)
        check_time_limit(self.total_time_limit, "total_time_limit")
        return check_epsilon(self.epsilon if eps is None else eps)

    def _progress(self, total, desc, unit="pattern"):
        """``update(remaining)`` of a progress bar (``verbose >= 1``) or None."""
        if self.verbose < 1 or total == 0:
            return None
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=desc, unit=unit)

        def update(remaining):
            bar.n = total - remaining
            bar.refresh()
            if remaining == 0:
                bar.close()

        return update

    def ambiguity_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on ambiguity at ``eps``.

        Parameters
        ----------
        eps : float in [0, 1], default=None
            Error tolerance; defaults to the ``epsilon`` parameter.

        Returns
        -------
        (lower, upper) : tuple of float
        """
        bounds = self._ambiguity(eps)
        return bounds.lower, bounds.upper

    def _ambiguity(self, eps, weights=None):
        eps = self._eps(eps)
        engine = self._engine
        budget = engine.budget(eps)
        todo = engine.undetermined(budget)
        engine.certify_flips(
            budget,
            deadline=Deadline(self.total_time_limit),
            progress=self._progress(todo.size, f"ambiguity at eps={eps:g}"),
        )
        return engine.ambiguity_bounds(budget, weights)

    def ambiguity(self, eps=None):
        """Share of training people whose prediction a level-set model flips.

        Returns the certified value, or, when a limit left it uncertified,
        the certified lower bound with a :class:`CertificationWarning`.
        """
        return _value(self._ambiguity(eps), "ambiguity", eps)

    def discrepancy_bounds(self, eps=None):
        """Certified ``(lower, upper)`` bounds on discrepancy at ``eps``."""
        bounds = self._discrepancy(eps).bounds
        return bounds.lower, bounds.upper

    def _discrepancy(self, eps, weights=None, key="all"):
        eps = self._eps(eps)
        engine = self._engine
        return engine.discrepancy(
            engine.budget(eps),
            weights=weights,
            key=key,
            deadline=Deadline(self.total_time_limit),
        )

    def discrepancy(self, eps=None):
        """Largest share of predictions that one level-set model flips.

        Returns the certified value, or the certified lower bound with a
        :class:`CertificationWarning`.
        """
        return _value(self._discrepancy(eps).bounds, "discrepancy", eps)

    # -------------------------------------------------------------- evidence
    def conflicts(self, eps=None):
        """Boolean mask of training rows whose prediction is contestable.

        ``True``: a model of the level set (certified, see
        :meth:`competing_model`) predicts the row differently from the
        baseline. Rows of zero weight are ``False``.
        """
        self._ambiguity(eps)
        budget = self._engine.budget(self._eps(eps))
        flippable = self._engine.flip_upper <= budget + 1e-9
        return self._rows(flippable)

    def _rows(self, pattern_values, fill=False):
        inverse = self._problem.inverse
        out = np.full(inverse.shape[0], fill, dtype=np.asarray(pattern_values).dtype)
        active = inverse >= 0
        out[active] = pattern_values[inverse[active]]
        return out

    def competing_model(self, index, eps=None):
        """A fitted level-set model that flips training row ``index``.

        Returns ``None`` when no model of the level set flips it (or none
        was found within the limits; see :meth:`conflicts`).
        """
        self._ambiguity(eps)
        budget = self._engine.budget(self._eps(eps))
        u = self._problem.inverse[int(index)]
        if u < 0 or self._engine.flip_upper[u] > budget + 1e-9:
            return None
        return self._estimator_of(self._engine.pool.models[self._engine.witness[u]])

    def discrepancy_model(self, eps=None):
        """The fitted level-set model realising the discrepancy (lower bound)."""
        result = self._discrepancy(eps)
        return None if result.model is None else self._estimator_of(result.model)

    def _estimator_of(self, model):
        coef, intercept = self._problem.to_original(
            model.w, model.b, scaled=self._hypothesis.scaled
        )
        linear = CompetingModel(
            coef, intercept, self.classes_, model.errors, model.source
        ).fit()
        if self._baseline.prefix:
            return Pipeline([*self._baseline.prefix, ("competing", linear)])
        return linear

    def evidence(self, eps=None):
        """Per training row: baseline prediction and whether it is contestable.

        Returns
        -------
        pandas.DataFrame
            Columns ``baseline`` (predicted class), ``contestable`` (certified:
            a level-set model flips it), ``undecided`` (neither certified
            contestable nor certified stable: a limit stopped its MIP) and
            ``min_flip_errors`` (fewest errors of a found model flipping it).
        """
        self._ambiguity(eps)
        engine = self._engine
        budget = engine.budget(self._eps(eps))
        sure = engine.flip_upper <= budget + 1e-9
        maybe = engine.flip_lower <= budget + 1e-9
        baseline = self.classes_[self._rows(engine.baseline.astype(int), fill=0)]
        return pd.DataFrame(
            {
                "baseline": baseline,
                "contestable": self._rows(sure),
                "undecided": self._rows(maybe & ~sure),
                "min_flip_errors": self._rows(engine.flip_upper, fill=np.nan),
            }
        )

    def ambiguous(self, X, eps=None):
        """Whether a level-set model gives each new person the other prediction.

        One flip MIP per distinct new pattern not already flipped by a known
        model of the level set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        eps : float, default=None

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            Certified ambiguous; undecided people (time limit) are ``False``
            and raise a :class:`CertificationWarning`.
        """
        eps = self._eps(eps)
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        Z = self._audit_space(X)
        predictions = np.asarray(self.estimator_.predict(X)) == self.classes_[1]
        patterns, inverse = np.unique(Z, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        z0_new = np.zeros(patterns.shape[0], dtype=bool)
        z0_new[inverse] = predictions
        decided, undecided = self._engine.flip_new_patterns(
            patterns,
            z0_new,
            self._engine.budget(eps),
            self.cuts,
            deadline=Deadline(self.total_time_limit),
        )
        if undecided.any():
            _warn_uncertified(
                f"ambiguity of {int(undecided[inverse].sum())} new people", eps
            )
        return decided[inverse]

    # -------------------------------------------------------------- groups
    def by_group(self, eps=None):
        """Ambiguity and discrepancy overall and per group.

        Group ambiguity aggregates the per-person flags of the group; group
        discrepancy is its own MIP (disagreement restricted to the group).

        Returns
        -------
        MultiplicityFrame
        """
        eps = self._eps(eps)
        if self.groups_ is None:
            raise ValueError("Pass groups= to fit to get per-group results.")
        overall = self._summary(eps)
        rows = []
        problem = self._problem
        active = problem.inverse >= 0
        weight_rows = self._weights
        for g in np.unique(self.groups_):
            mask = (self.groups_ == g) & active
            w_g = np.bincount(
                problem.inverse[mask],
                weights=weight_rows[mask],
                minlength=problem.n_patterns,
            )
            amb = self._ambiguity(eps, weights=w_g)
            disc = self._discrepancy(eps, weights=w_g, key=f"group {g}").bounds
            rows.append(
                {
                    "group": g,
                    "n": float(w_g.sum()),
                    **_columns("ambiguity", amb),
                    **_columns("discrepancy", disc),
                }
            )
        return frame_from_rows(overall, rows, eps)

    def _summary(self, eps):
        amb = self._ambiguity(eps)
        disc = self._discrepancy(eps).bounds
        return {
            "n": self._problem.total_weight,
            **_columns("ambiguity", amb),
            **_columns("discrepancy", disc),
        }

    # ---------------------------------------------------------------- path
    def path(self, max_epsilon=None, *, step=None, n_discrepancy=None):
        """Ambiguity and discrepancy for every error tolerance up to ``max_epsilon``.

        With integral weights, every whole number of extra errors from 0 to
        ``floor(max_epsilon * W)``; otherwise ``step``-spaced tolerances.
        Flip MIPs are solved to optimality once (below the largest budget),
        which answers ambiguity at every tolerance. Discrepancy is one MIP per
        tolerance not yet certified, smallest first, warm-started from all
        models found so far. With ``n_discrepancy``, only that many evenly
        spaced tolerances get a MIP and the others are bracketed by
        monotonicity (a model found at a smaller budget is a lower bound, a
        bound proven at a larger budget an upper bound), so they may be
        reported as bounds. Under ``total_time_limit``, a first pass spends
        at most a fifth of the time on short (5 s) discrepancy MIPs at every
        tenth open tolerance, largest first: tolerances the time does not
        let the ascending pass certify are still bracketed closely.

        Parameters
        ----------
        max_epsilon : float in [0, 1], default=None
            Defaults to the ``epsilon`` parameter.
        step : float, default=None
            Spacing of tolerances when weights are not integral.
        n_discrepancy : int, default=None
            Number of tolerances with a discrepancy MIP (``None``: all).

        Returns
        -------
        pandas.DataFrame
            One row per tolerance: ``epsilon``, ``extra_errors``, ``budget``,
            ``ambiguity``, ``ambiguity_lower``, ``ambiguity_upper``,
            ``discrepancy``, ``discrepancy_lower``, ``discrepancy_upper``,
            ``certified``. Also stored as ``path_``.
        """
        max_eps = self._eps(max_epsilon)
        engine = self._engine
        total = self._problem.total_weight
        if engine.integral:
            extras = np.arange(
                0, int(np.floor(max_eps * total + 1e-9)) + 1, dtype=float
            )
        else:
            step = step or max_eps / 10 or 1.0
            extras = np.arange(0, max_eps + 1e-12, step) * total
        budgets = engine.baseline_errors + extras
        deadline = Deadline(self.total_time_limit)
        todo = engine.undetermined(budgets[-1], exact=True)
        engine.certify_flips(
            budgets[-1],
            exact=True,
            deadline=deadline,
            progress=self._progress(todo.size, "ambiguity path"),
        )
        if n_discrepancy is not None and n_discrepancy < budgets.size:
            solved = np.unique(
                np.round(np.linspace(0, budgets.size - 1, max(2, n_discrepancy)))
            ).astype(int)
            for i in solved:
                engine.discrepancy(budgets[i], deadline=deadline)
        else:
            n_open = engine.open_budgets(budgets).size
            engine.discrepancy_path(
                budgets,
                deadline=deadline,
                progress=self._progress(n_open, "discrepancy path", "tolerance"),
            )
        rows = []
        envelope = engine.discrepancy_envelope(budgets)
        for extra, budget, disc in zip(extras, budgets, envelope, strict=True):
            amb = engine.ambiguity_bounds(budget)
            rows.append(
                {
                    "epsilon": extra / total,
                    "extra_errors": extra,
                    "budget": budget,
                    **_columns("ambiguity", amb),
                    **_columns("discrepancy", disc),
                    "certified": bool(amb.certified and disc.certified),
                }
            )
        self.path_ = pd.DataFrame(rows)
        return self.path_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = False
        return tags


def _columns(name, bounds):
    return {
        name: bounds.lower,
        f"{name}_lower": bounds.lower,
        f"{name}_upper": bounds.upper,
    }


def _warn_uncertified(what, eps):
    warnings.warn(
        f"The {what} at eps={eps} is not certified (a time limit stopped a MIP); "
        "reporting the certified lower bound. Use the *_bounds methods for both "
        "bounds, or raise time_limit.",
        CertificationWarning,
        stacklevel=3,
    )


def _value(bounds, name, eps):
    if not bounds.certified:
        _warn_uncertified(name, eps)
    return bounds.lower
