"""Run the command line's audits: each a plan of timed stages under one
deadline, whose values are collected in a report.

:func:`run_audit` is the exact (0-1) audit of two labels or K labels;
:func:`run_probabilistic_audit` the probabilistic audit of a logistic
regression, two labels or K; :func:`run_both` runs the two of one logistic
regression. Two labels are the case K = 2: the branches for them are named
where the auditor's readings differ (the suggested tolerance and the sampled
estimate exist for two labels only; K labels also settle every person's
labels).
"""

import contextlib
import copy
import math
import sys
import time
import warnings

import numpy as np
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .._core import ClassBudget
from .._core._validation import PerClassEpsilon, check_tolerance
from .._engine import Deadline, capped, run_plan
from .._estimators._auditor import MultiplicityAuditor
from .._estimators._epsilon import suggest_epsilon
from .._estimators._sampling import SamplingAuditor
from .._exceptions import CertificationWarning
from .._probabilistic import ProbabilisticAuditor
from ._both import BothReport
from ._decisions_report import DecisionsReport
from ._format import dataset_record, plain, unwrap
from ._plans import PLANS
from ._probabilistic_report import ProbabilisticReport
from ._sentences import stage_words


class Stages:
    """Times the stages of an audit, each within its deadline (a stage run
    twice adds up its times).

    Parameters
    ----------
    quiet_bounds : bool, default=False
        Report open bounds as bounds, without a
        :class:`~sklearn_multiplicity.CertificationWarning`.
    say : callable or None, default=None
        ``say(name, value, seconds)``: a progress line once a stage ends.
    begin : callable or None, default=None
        ``begin()``, called once before the first stage (once the audit's
        arguments are checked).
    """

    def __init__(self, *, quiet_bounds=False, say=None, begin=None):
        self.timings = {}
        self.quiet_bounds = quiet_bounds
        self.say = say
        self.begin = begin

    def run(self, name, func, deadline):
        """``func()`` within ``deadline``, timed under ``name``."""
        if self.begin is not None:
            self.begin, begin = None, self.begin
            begin()
        start = time.perf_counter()
        with capped(deadline), _quiet_bounds(self.quiet_bounds):
            value = func()
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        if self.say is not None:
            self.say(name, value, elapsed)
        return value

    def with_total(self):
        """The timings and their ``total``."""
        return {**self.timings, "total": sum(self.timings.values())}


@contextlib.contextmanager
def _quiet_bounds(quiet):
    """A context in which open bounds raise no
    :class:`~sklearn_multiplicity.CertificationWarning` (when ``quiet``)."""
    if not quiet:
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        yield


# ------------------------------------------------------------ exact audit
def run_audit(
    X,
    y,
    *,
    estimator=None,
    epsilon=0.01,
    groups=None,
    max_epsilon=None,
    time_limit=60.0,
    total_time_limit=None,
    n_jobs=None,
    n_models=100,
    random_state=0,
    verbose=0,
    dataset=None,
    solver="auto",
    constraints=None,
    abstain=False,
    on_report=None,
    on_start=None,
    sample_weight=None,
):
    """Audit ``(X, y)`` exactly (two labels, or 3 to 20) and collect
    everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two labels, or 3 to 20, each on at least two rows.
    estimator : estimator, default=None
        The baseline (``None``: :class:`ZeroOneLinearClassifier`, or its
        K-class twin).
    epsilon : float in [0, 1], dict or "auto", default=0.01
        The tolerance, or one per label (``{label: eps}``; the keys may be
        the labels' text, as typed on the command line). ``"auto"`` (two
        labels): :func:`suggest_epsilon` (bootstrap) on the fitted baseline.
    groups : array-like of shape (n_samples,), default=None
    max_epsilon : float, dict or None, default=None
        End of the path (default ``epsilon``), at least ``epsilon``; per
        label when ``epsilon`` is (each label's tolerance grows in equal
        steps, capped at its own). With K labels a number beside per-label
        ``epsilon`` ends the path of one overall tolerance.
    time_limit : float or None, default=60.0
        Seconds per MIP.
    total_time_limit : float or None, default=None
        Seconds for the whole audit, one deadline from the start, shared by
        the steps of the plan (:mod:`._plans`): the values at ``epsilon``,
        which the report leads with, are settled first. Values still open
        when it runs out are reported as bounds (``certified`` false).
    n_jobs : int or None, default=None
    n_models : int, default=100
        Pool size of the :class:`SamplingAuditor` (two labels).
    random_state : int or None, default=0
    verbose : int, default=0
    dataset : dict, default=None
        Description of the data (``source``, ``target``, ...) copied into
        the report.
    solver : str or Backend, default="auto"
        MIP backend of the auditor (two labels).
    constraints : list, default=None
        Constraints on the baseline and the competing models (two labels,
        :mod:`sklearn_multiplicity.constraints`).
    abstain : bool, default=False
        Also report abstention on the people whose decision may change.
    on_report : callable or None, default=None
        ``on_report(report, step)``: once the values at ``epsilon`` can be
        read, the report of what is known at the end of every step of the
        plan (its bounds certified, as the final report's are), so that a
        run stopped later still has one.
    on_start : callable or None, default=None
        ``on_start()``, called once the arguments are checked, before the
        first step.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        How many people each row stands for (the distinct rows of a table
        read through dask); every count of the report is weighted by it.

    Returns
    -------
    DecisionsReport
    """
    classes = np.unique(np.asarray(y))
    k_labels = len(classes) > 2
    epsilon = _label_keys(epsilon, classes)
    top = None
    if k_labels:  # checked before any solver
        if epsilon == "auto":
            raise ValueError(
                "--epsilon auto is for two labels (its bootstrap interval is of "
                "a binary error); give a K-label target a number or LABEL=EPS "
                "for every label"
            )
        epsilon = check_tolerance(epsilon, classes, "epsilon")
        top = _path_end(epsilon, max_epsilon, classes)
    elif epsilon != "auto":  # two labels: the path's end checked before any solver
        _path_end(check_tolerance(epsilon, classes, "epsilon"), max_epsilon, classes)
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=_as_param(0.01 if epsilon == "auto" else epsilon),
        time_limit=time_limit,
        total_time_limit=total_time_limit,
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
        **({} if k_labels else {"solver": solver, "constraints": constraints}),
    )
    stages, done = Stages(quiet_bounds=k_labels, begin=on_start), {}

    def fit(deadline):
        def run():
            auditor.fit(X, y, sample_weight=sample_weight, groups=groups)
            return auditor.min_error_bounds_  # the report's line, in time

        stages.run("fit", run, deadline)

    def suggest(deadline):  # two labels
        nonlocal epsilon, top
        if epsilon == "auto":
            done["suggestion"] = stages.run(
                "epsilon", lambda: _suggest(auditor, X, y, random_state), deadline
            )
            epsilon = done["suggestion"].epsilon
            auditor.set_params(epsilon=epsilon)
        epsilon = check_tolerance(epsilon, auditor.classes_, "epsilon")
        top = _path_end(epsilon, max_epsilon, auditor.classes_)

    def measures(deadline):
        # The audit at epsilon: both measures, and the groups when given.
        reading = auditor.discrepancy_bounds if k_labels else auditor.ambiguity_bounds
        stages.run("measures", lambda: reading(epsilon), deadline)

    def people(deadline):  # K labels
        # One MIP per person and label that no model found and no proof
        # settled; every model found joins the audit's pool.
        done["label_sets"] = stages.run(
            "people", lambda: auditor.predict_set(X, epsilon), deadline
        )

    def along_path(deadline):
        path = stages.run("path", lambda: auditor.path(top), deadline)
        done["path"] = _with_total_budget(path, auditor.classes_)

    def sample(deadline):  # two labels
        done["sampling"] = stages.run(
            "sampling",
            lambda: _sample(
                auditor, X, y, epsilon, n_models, random_state, deadline, sample_weight
            ),
            deadline,
        )

    if k_labels:
        plan = PLANS["command-line K-class audit"]
        steps = {"fit": fit, "measures": measures, "people": people}
    else:
        limited = total_time_limit is not None
        plan = PLANS["command-line audit" + ("" if limited else ", unlimited")]
        steps = {"fit": fit, "epsilon": suggest, "measures": measures}
        steps["sampling"] = sample
    steps["path"] = along_path

    def collect(auditor, done):
        """The report of what ``auditor`` knows, read at no solver time
        (a step not yet run reads what is known, as with no time left)."""
        done = dict(done)
        with capped(Deadline(0.0)):
            if "path" not in done:
                done["path"] = _with_total_budget(auditor.path(top), auditor.classes_)
            if k_labels and "label_sets" not in done:
                with _quiet_bounds(True):
                    done["label_sets"] = auditor.predict_set(X, epsilon)
            if not k_labels and "sampling" not in done:
                done["sampling"] = _sample(
                    auditor,
                    X,
                    y,
                    epsilon,
                    n_models,
                    random_state,
                    Deadline(0.0),
                    sample_weight,
                )
        with capped(Deadline(0.0)), _quiet_bounds(k_labels):
            bounds = {
                "ambiguity": auditor.ambiguity_bounds(epsilon),
                "discrepancy": auditor.discrepancy_bounds(epsilon),
            }
            evidence = auditor.evidence(epsilon)
            model = auditor.discrepancy_model(epsilon)
            frame = None if groups is None else auditor.by_group(epsilon)
            if k_labels:
                budget = auditor.session_.budget(epsilon)
                _, found, _, _ = auditor.session_.people(budget)
        settings = {
            "epsilon": epsilon,
            "max_epsilon": top,
            "estimator": type(unwrap(auditor.estimator_)).__name__,
            "time_limit": time_limit,
            "total_time_limit": total_time_limit,
            "n_jobs": n_jobs,
        }
        if k_labels:
            settings["random_state"] = random_state
            family = {"labels_found": found, "labels_open": done["label_sets"] & ~found}
        else:
            settings["n_models"] = n_models
            settings["random_state"] = random_state
            settings["solver"] = solver if isinstance(solver, str) else solver.name
            sampling = done["sampling"]
            family = {
                "sampling": sampling,
                "suggestion": done.get("suggestion"),
                "sampling_path": sampling.path(
                    top
                    if isinstance(top, PerClassEpsilon)
                    else float(done["path"]["epsilon"].max())
                ),
            }
        return DecisionsReport(
            auditor=auditor,
            epsilon=epsilon,
            budget=_budget(auditor, epsilon),
            path=done["path"],
            bounds=bounds,
            evidence=evidence,
            discrepancy_model=model,
            frame=frame,
            **_data(X, y, groups, auditor.classes_, dataset, sample_weight),
            settings=settings,
            timings=stages.with_total(),
            abstain=abstain,
            **family,
        )

    def step(name, func):
        # Once the values at epsilon can be read (the tolerance and the
        # path's end are known), every step ends with a report of what is
        # known: read on a copy of the audit, so that the reading spends
        # none of the audit's accounts.
        def run(deadline):
            func(deadline)
            if on_report is not None and top is not None:
                on_report(_quietly(collect, copy.deepcopy(auditor), done), name)

        return run

    steps = {name: step(name, func) for name, func in steps.items()}
    deadline = Deadline(total_time_limit)
    with capped(deadline):
        # A step with no time left still reports what is known.
        run_plan(plan, deadline, steps, every_step=True)
        # Every step has run: one last reading, with no solver time, reports
        # the tightest bounds known, the group table's and the measures'
        # alike.
        return collect(auditor, done)


def _quietly(collect, auditor, done):
    """``collect(auditor, done)`` with no progress bar and no warning (the
    final report says them once)."""
    auditor.set_params(verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect(auditor, done)


def _data(X, y, groups, classes, dataset, weight=None):
    """A report's data: ``y``, ``groups``, the rows' ``weight`` and the
    ``dataset`` record."""
    data = {
        "y": np.asarray(y),
        "groups": None if groups is None else np.asarray(groups),
        "dataset": dataset_record(X, y, classes, dataset),
    }
    if weight is not None:  # distinct rows, each standing for ``weight`` people
        data["weight"] = np.asarray(weight, dtype=float)
        data["dataset"]["n_rows"] = int(data["weight"].sum())
        data["dataset"]["n_distinct_rows"] = len(y)
    return data


def _label_keys(eps, classes):
    """A per-label tolerance with its keys matched to the labels, so that
    ``{"1": 0.02}`` from the command line reads as ``{1: 0.02}``; other
    tolerances (and keys matching no label) are left for the checks."""
    if not isinstance(eps, dict):
        return eps
    labels = {str(plain(c)): c for c in classes}
    return {labels.get(str(key), key): value for key, value in eps.items()}


def _as_param(epsilon):
    """The auditor's ``epsilon`` parameter of a tolerance."""
    if isinstance(epsilon, PerClassEpsilon):
        return dict(zip(epsilon.labels, epsilon, strict=True))
    return epsilon


def _budget(auditor, epsilon):
    """The level set's most errors: a number; per kind of error a
    :class:`ClassBudget` (two labels); per true label ``{label: errors}``."""
    budget = auditor.error_budget(epsilon)
    if isinstance(budget, dict) and len(auditor.classes_) == 2:
        return ClassBudget(**budget)
    return budget


def _path_end(epsilon, max_epsilon, classes):
    """The end of the path: ``max_epsilon``, at least ``epsilon`` (per label,
    each label's at least its own). With K labels a number beside per-label
    ``epsilon`` is the end of the path of one overall tolerance."""
    if max_epsilon is None:
        return epsilon
    top = check_tolerance(_label_keys(max_epsilon, classes), classes, "max_epsilon")
    per_label, top_per_label = (isinstance(e, PerClassEpsilon) for e in (epsilon, top))
    if len(classes) == 2 and per_label != top_per_label:
        raise ValueError(
            "max_epsilon must be per class (one tolerance per class label) "
            "exactly when epsilon is"
        )
    if top_per_label and not per_label:
        raise ValueError(
            "a per-label --max-epsilon (LABEL=EPS,...) is the end of the path "
            "of per-label tolerances: give --epsilon per label too, or "
            "--max-epsilon as one number"
        )
    if not top_per_label:
        return top if per_label else max(top, epsilon)
    return PerClassEpsilon(
        *(max(a, b) for a, b in zip(top, epsilon, strict=True)), top.labels
    )


def _with_total_budget(path, classes):
    """A per-label path with ``budget``, the most errors in all (the sum of
    its ``budget_<label>`` columns), after them, as the scalar path has it."""
    columns = [f"budget_{c}" for c in classes]
    if "budget" in path or not set(columns) <= set(path.columns):
        return path
    at = path.columns.get_loc(columns[-1]) + 1
    path.insert(at, "budget", path[columns].sum(axis=1))
    return path


def _sample(
    auditor, X, y, epsilon, n_models, random_state, deadline, sample_weight=None
):
    """The sampled estimate around the baseline, re-based on the best pooled
    model when the baseline's level set holds none of them (then it would be
    0 only because every pooled model is worse than the baseline).

    The pool gets what is left of ``deadline`` (at least one model is
    fitted), half of it when a re-based pool may follow.
    """

    def pool(reference, share):
        left = deadline.remaining()
        limit = None if math.isinf(left) else max(share * left, 0.0)
        return SamplingAuditor.from_auditor(
            auditor,
            X,
            y,
            n_models=n_models,
            random_state=random_state,
            time_limit=limit,
            reference=reference,
            sample_weight=sample_weight,
        )

    sampling = pool("baseline", 0.5)
    if sampling.in_level_set(epsilon).any():
        return sampling
    return pool("best", 1.0)


def _suggest(auditor, X, y, random_state):
    return suggest_epsilon(
        FrozenEstimator(auditor.estimator_),
        X,
        y,
        method="bootstrap",
        random_state=random_state,
    )


# ----------------------------------------------------- probabilistic audit
def default_estimator():
    """The baseline of the probabilistic audit: standardised logistic regression."""
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def run_probabilistic_audit(
    X,
    y,
    *,
    estimator=None,
    epsilon=0.01,
    threshold=0.5,
    groups=None,
    n_jobs=None,
    total_time_limit=None,
    random_state=0,
    verbose=0,
    dataset=None,
    on_start=None,
):
    """Fit a :class:`ProbabilisticAuditor` and collect everything reported.

    The stages run in order under one deadline (``total_time_limit``):
    fitting, then for two labels the viable prediction ranges with the
    Rashomon capacities and both measures; for K labels every person's
    labels (yes, no or open per label), both measures, the probability
    ranges with the Rashomon capacities, then a model of the set for each
    label the most contested person gets. What a limit leaves open is
    reported as open, measures as bounds.

    Parameters
    ----------
    X, y, groups, n_jobs, dataset
        As for :func:`run_audit`.
    estimator : estimator, default=None
        A logistic regression or a Pipeline ending in one (``None``:
        :func:`default_estimator`).
    epsilon : float, default=0.01
        Tolerance in nats of mean log-loss.
    threshold : float, default=0.5
        Decision threshold (two labels; with K a decision is the most
        probable label).
    total_time_limit : float or None, default=None
        Seconds for the whole audit: each request's exact solver gets what is
        left (``None``: the auditor's default limit per request).
    random_state : int or None, default=0
        The auditor's ``random_state`` (an int keeps the report reproducible).
    verbose : int, default=0
        The auditor's ``verbose`` (``1``: progress on stderr).
    on_start : callable or None, default=None
        ``on_start()``, called once before the first stage.

    Returns
    -------
    ProbabilisticReport
    """
    k_labels = len(np.unique(np.asarray(y))) > 2
    auditor = ProbabilisticAuditor(
        default_estimator() if estimator is None else estimator,
        log_loss_epsilon=epsilon,
        **({} if k_labels else {"threshold": threshold}),
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
    )
    found = {}
    if k_labels:
        steps = {
            "labels": auditor.reachable_labels,
            "measures": lambda: _bounds(auditor),
            "ranges": lambda: _label_ranges(auditor),
            "models": lambda: _witnesses(auditor, found["labels"], found["baseline"]),
        }
    else:
        steps = {
            "ranges": lambda: _ranges(auditor),
            "measures": lambda: _bounds(auditor),
        }
    # The auditor's stage lines are for two labels: K labels say their own.
    stages = Stages(
        quiet_bounds=k_labels,
        say=_stage_line(epsilon) if verbose and k_labels else None,
        begin=on_start,
    )
    deadline = Deadline(total_time_limit)  # every request ends by it
    with capped(deadline):
        stages.run("fit", lambda: auditor.fit(X, y), deadline)
        if k_labels:
            found["baseline"] = np.asarray(auditor.predict(X))
        for name, read in steps.items():
            found[name] = stages.run(name, read, deadline)
    if k_labels:
        found["ranges"], found["capacity"] = found["ranges"]
        found["reach"], found["witnesses"] = found.pop("labels"), found.pop("models")
    return ProbabilisticReport(
        auditor=auditor,
        bounds=found.pop("measures"),
        **_data(X, y, groups, auditor.classes_, dataset),
        timings=stages.with_total(),
        **found,
    )


def _ranges(auditor):
    """The viable prediction ranges of two labels, with each person's
    ``rashomon_capacity``."""
    ranges = auditor.viable_prediction_range()
    ranges["rashomon_capacity"] = auditor.rashomon_capacity().to_numpy()
    return ranges


def _label_ranges(auditor):
    """The per-label probability ranges and the Rashomon capacities."""
    return auditor.viable_prediction_range(), auditor.rashomon_capacity()


def _bounds(auditor):
    return {
        "ambiguity": auditor.ambiguity_bounds(),
        "discrepancy": auditor.discrepancy_bounds(),
    }


def _witnesses(auditor, reach, baseline):
    """``{(row, label): model}``: for the person the set gives the most
    labels (the first such), a model of the set giving each of them but the
    baseline's; empty when the set gives everyone one label."""
    yes = reach.to_numpy() == "yes"
    if yes.sum(axis=1).max(initial=0) < 2:
        return {}
    row = int(np.argmax(yes.sum(axis=1)))
    return {
        (row, label): auditor.label_model(row, label)
        for label in auditor.classes_[yes[row]]
        if label != baseline[row]
    }


def _stage_line(epsilon):
    """``say(name, value, seconds)``: a K-label probabilistic stage's line
    on stderr."""
    prefix = f"[{ProbabilisticAuditor.__name__}] eps={epsilon:g} nats: "

    def say(name, value, seconds):
        line = f"{prefix}{stage_words(name, value)} ({seconds:.1f} s)"
        print(line, file=sys.stderr, flush=True)

    return say


# ------------------------------------------------------------- both audits
def run_both(run_decisions, run_probabilistic, total_time_limit):
    """Both audits by the plan ``"command-line audit, both"``.

    Parameters
    ----------
    run_decisions, run_probabilistic : callable
        Each runs its audit (no argument) and returns its report.
    total_time_limit : float or None
        Seconds for both.

    Returns
    -------
    BothReport
    """
    reports = {}

    def step(name, run):
        def within(deadline):
            with capped(deadline):
                reports[name] = run()

        return within

    run_plan(
        PLANS["command-line audit, both"],
        Deadline(total_time_limit),
        {
            "decisions": step("decisions", run_decisions),
            "probabilistic": step("probabilistic", run_probabilistic),
        },
        every_step=True,
    )
    return BothReport(reports["decisions"], reports["probabilistic"])
