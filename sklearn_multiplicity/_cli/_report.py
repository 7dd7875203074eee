"""Run a complete audit and write it as JSON, CSV, PNG and one HTML page."""

import collections
import dataclasses
import importlib.metadata
import json
import math
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline

from .._auditor import MultiplicityAuditor
from .._engine._scheduling import Deadline
from .._epsilon import suggest_epsilon
from .._sampling import SamplingAuditor
from ._html import render_html, write_plots

SAMPLING_LABEL = "sampling (lower estimate)"
CERTIFIED = "certified"
BOUNDS = "bounds (time limit)"
MEASURES = ("ambiguity", "discrepancy")


def _limit(*limits):
    finite = [t for t in limits if t is not None]
    return min(finite) if finite else None


def _status(lower, upper):
    return CERTIFIED if upper - lower <= 1e-12 else BOUNDS


def _unwrap(estimator):
    return estimator.estimator if isinstance(estimator, FrozenEstimator) else estimator


def _linear_part(estimator, default_names):
    """``(names, coef, intercept)`` of a linear model or a Pipeline ending in one."""
    estimator = _unwrap(estimator)
    names = list(default_names)
    if isinstance(estimator, Pipeline):
        try:
            names = list(estimator[:-1].get_feature_names_out(names))
        except (AttributeError, ValueError, TypeError):
            names = None
        estimator = estimator[-1]
    coef = np.asarray(estimator.coef_, dtype=float).ravel()
    if names is None or len(names) != coef.size:
        names = [f"x{j}" for j in range(coef.size)]
    return names, coef, float(np.ravel(estimator.intercept_)[0])


def _versions():
    from .. import __version__

    versions = {"python": platform.python_version()}
    versions["sklearn-multiplicity"] = __version__
    for package in ("scikit-learn", "numpy", "ortools"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def _plain(value):
    """JSON-ready copy: numpy scalars to Python, NaN and infinity to None."""
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray, pd.Index)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(frame):
    return _plain(frame.reset_index().to_dict(orient="records"))


def summarize_mip_log(log):
    """Counts by status, total and slowest solve times of a ``mip_log_``.

    Parameters
    ----------
    log : list of dict

    Returns
    -------
    dict
    """
    seconds = [float(e.get("seconds") or 0.0) for e in log]
    slowest = sorted(log, key=lambda e: -float(e.get("seconds") or 0.0))[:5]
    return {
        "n_mips": len(log),
        "by_status": dict(collections.Counter(str(e.get("status")) for e in log)),
        "total_seconds": float(sum(seconds)),
        "slowest": [
            {
                "mip": e.get("mip", e.get("name")),
                "status": e.get("status"),
                "seconds": e.get("seconds"),
            }
            for e in slowest
        ],
        # Every MIP, for provenance: which problem, what the solver proved.
        "entries": [
            {
                "mip": e.get("mip"),
                "status": e.get("status"),
                "objective": _finite_or_none(e.get("objective")),
                "bound": _finite_or_none(e.get("bound")),
                "seconds": e.get("seconds"),
                "solver": e.get("solver"),
                "message": e.get("message", ""),
            }
            for e in log
        ],
    }


def _finite_or_none(value):
    """JSON has no inf/NaN: report a missing or unbounded number as null."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class AuditReport:
    """A completed audit: the exact and sampled measures and their evidence.

    Build it with :func:`run_audit`. Every value is read from a fitted
    :class:`MultiplicityAuditor` with its certified bounds, so an audit
    stopped by a time limit is reported with its bounds and
    ``certified=False``.

    Attributes
    ----------
    auditor : MultiplicityAuditor
    sampling : SamplingAuditor
    epsilon : float
    suggestion : EpsilonSuggestion or None
        How ``epsilon`` was chosen when it was ``"auto"``.
    budget : float
        Largest error count of the level set at ``epsilon``.
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    path, sampling_path : pandas.DataFrame
    evidence : pandas.DataFrame
        :meth:`MultiplicityAuditor.evidence` at ``epsilon``.
    discrepancy_model : estimator or None
    frame : MultiplicityFrame or None
        Per-group measures, when groups were given.
    y, groups : ndarray
        Training labels and groups (or None).
    dataset, settings, timings : dict
    """

    def __init__(self, **fields):
        for name, value in fields.items():
            setattr(self, name, value)

    # ---------------------------------------------------------------- tables
    def measures(self):
        """Exact measures with bounds and status, next to the sampled ones.

        Returns
        -------
        pandas.DataFrame
            Index ``ambiguity``, ``discrepancy``; columns ``value``,
            ``lower``, ``upper``, ``status`` and ``sampling (lower estimate)``.
        """
        rows = {}
        for name in MEASURES:
            lower, upper = self.bounds[name]
            rows[name] = {
                "value": lower,
                "lower": lower,
                "upper": upper,
                "status": _status(lower, upper),
                SAMPLING_LABEL: getattr(self.sampling, name)(self.epsilon),
            }
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """Per-group exact measures plus the sampled ambiguity (or None)."""
        if self.frame is None:
            return None
        table = self.frame.by_group.copy()
        flipped = self.sampling.contestable(self.epsilon)
        groups = np.asarray(self.groups)
        table[f"ambiguity, {SAMPLING_LABEL}"] = [
            float(flipped[groups == g].mean()) for g in table.index
        ]
        return table

    def people(self):
        """Per training row: target, baseline prediction, contestability.

        Returns
        -------
        pandas.DataFrame
            One row per training row (index ``row``): ``target``, ``group``
            (with groups), ``baseline``, ``contestable`` (certified),
            ``undecided`` (a limit stopped its MIP), ``min_flip_errors``
            and ``sampling_contestable``.
        """
        people = pd.DataFrame({"target": np.asarray(self.y)})
        if self.groups is not None:
            people["group"] = np.asarray(self.groups)
        people = pd.concat([people, self.evidence.reset_index(drop=True)], axis=1)
        people["sampling_contestable"] = self.sampling.contestable(self.epsilon)
        people.index.name = "row"
        return people

    def models(self):
        """Coefficients of the baseline and of the discrepancy model.

        Returns
        -------
        pandas.DataFrame
            One row per model (index ``model``), columns: feature names,
            ``intercept``, ``n_errors``, ``source``.
        """
        auditor = self.auditor
        names = self.dataset["feature_names"]
        rows = {}
        feats, coef, intercept = _linear_part(auditor.estimator_, names)
        rows["baseline"] = {
            **dict(zip(feats, coef, strict=True)),
            "intercept": intercept,
            "n_errors": auditor.baseline_errors_,
            "source": f"baseline: {type(_unwrap(auditor.estimator_)).__name__}",
        }
        model = self.discrepancy_model
        if model is not None:
            feats, coef, intercept = _linear_part(model, names)
            last = model[-1] if isinstance(model, Pipeline) else model
            rows["discrepancy"] = {
                **dict(zip(feats, coef, strict=True)),
                "intercept": intercept,
                "n_errors": last.n_errors_,
                "source": last.source,
            }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "model"
        return frame

    @property
    def certified(self):
        """Whether every reported value is certified (no bound left open)."""
        lo, hi = self.auditor.min_error_bounds_
        checks = [hi - lo <= 1e-9, bool(self.path["certified"].all())]
        checks += [_status(*b) == CERTIFIED for b in self.bounds.values()]
        if self.frame is not None:
            by = self.frame.by_group
            checks += [
                bool((by[f"{m}_upper"] - by[f"{m}_lower"] <= 1e-12).all())
                for m in MEASURES
            ]
        return all(checks)

    # ---------------------------------------------------------------- output
    def to_dict(self):
        """Every number of the report, JSON-ready.

        Returns
        -------
        dict
        """
        auditor = self.auditor
        lo, hi = auditor.min_error_bounds_
        total = float(self.evidence.shape[0])
        measures = self.measures()
        groups = self.group_table()
        return _plain(
            {
                "dataset": self.dataset,
                "settings": self.settings,
                "epsilon": {
                    "value": self.epsilon,
                    "method": "given" if self.suggestion is None else "auto",
                    "extra_errors": self.budget - auditor.baseline_errors_,
                    "budget": self.budget,
                    "suggestion": None
                    if self.suggestion is None
                    else dataclasses.asdict(self.suggestion),
                },
                "hypothesis_class": auditor.hypothesis_class_,
                "baseline": {
                    "estimator": type(_unwrap(auditor.estimator_)).__name__,
                    "errors": auditor.baseline_errors_,
                    "error": auditor.baseline_error_,
                    "min_error": {
                        "lower": lo,
                        "upper": hi,
                        "lower_share": lo / total,
                        "upper_share": hi / total,
                        "status": _status(lo, hi),
                    },
                    "n_patterns": auditor.n_patterns_,
                },
                **{
                    name: {
                        **row[["value", "lower", "upper", "status"]].to_dict(),
                        "certified": row["status"] == CERTIFIED,
                    }
                    for name, row in measures.iterrows()
                },
                "sampling": {
                    "label": SAMPLING_LABEL,
                    "ambiguity": measures.loc["ambiguity", SAMPLING_LABEL],
                    "discrepancy": measures.loc["discrepancy", SAMPLING_LABEL],
                    "n_models": self.sampling.n_models_,
                    "n_models_in_set": int(
                        self.sampling.in_level_set(self.epsilon).sum()
                    ),
                },
                "groups": None if groups is None else _records(groups),
                "path": _records(self.path.set_index("epsilon")),
                "sampling_path": _records(self.sampling_path.set_index("epsilon")),
                "certified": self.certified,
                "n_contestable": int(self.evidence["contestable"].sum()),
                "n_undecided": int(self.evidence["undecided"].sum()),
                "mip_log": summarize_mip_log(auditor.mip_log_),
                "timings": self.timings,
                "versions": _versions(),
            }
        )

    def summary(self):
        """The report as plain text for the terminal.

        Returns
        -------
        str
        """
        a = self.auditor
        lo, hi = a.min_error_bounds_
        n = self.evidence.shape[0]
        d = self.dataset
        lines = [
            f"Audit of {d['source']}: {n} people, {len(d['feature_names'])} "
            f"features, target {d['target']!r} (positive class "
            f"{d['classes'][1]!r})",
            f"Hypothesis class: {a.hypothesis_class_}",
            f"Baseline ({type(_unwrap(a.estimator_)).__name__}): "
            f"{a.baseline_errors_:g} training errors ({a.baseline_error_:.2%})",
            f"Certified minimum error of the class: [{lo:g}, {hi:g}] errors "
            f"({_status(lo, hi)})",
            f"Level set: eps = {self.epsilon:.4g} -> "
            f"{self.budget - a.baseline_errors_:g} extra errors "
            f"(at most {self.budget:g} errors)",
        ]
        if self.suggestion is not None:
            lines.append(f"  eps chosen automatically: {self.suggestion.description}")
        lines += ["", _compact(self.measures(), MEASURES)]
        groups = self.group_table()
        if groups is not None:
            lines += ["", "By group:", _compact(groups, MEASURES, per_group=True)]
        status = "all certified" if self.certified else "NOT all certified"
        lines += [
            "",
            f"Contestable people: {int(self.evidence['contestable'].sum())} "
            f"certified, {int(self.evidence['undecided'].sum())} undecided "
            f"({status})",
            "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items()),
        ]
        return "\n".join(lines)

    def write(self, out):
        """Write ``report.json``, ``people.csv``, ``models.csv``, the PNGs and
        ``report.html`` to the directory ``out`` (created if needed).

        Plots need matplotlib; without it they are skipped (and the HTML page
        says so).

        Parameters
        ----------
        out : str or path-like

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        self.people().to_csv(out / "people.csv")
        self.models().to_csv(out / "models.csv")
        written += [out / "people.csv", out / "models.csv"]
        images = write_plots(self, out)
        written += list(images.values())
        report = self.to_dict()
        report["files"] = [p.name for p in written] + ["report.json", "report.html"]
        (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "report.html").write_text(render_html(self, report, images))
        return [*written, out / "report.json", out / "report.html"]


def _bounds_text(lower, upper):
    return f"[{lower:.2%}, {upper:.2%}]"


def _compact(frame, measures, per_group=False):
    """Terminal table: each measure as value, bounds and status."""
    table = pd.DataFrame(index=frame.index)
    if per_group:
        table["n"] = frame["n"].map(lambda v: f"{v:g}")
    for name in measures:
        lower = frame[f"{name}_lower"] if per_group else frame["lower"]
        upper = frame[f"{name}_upper"] if per_group else frame["upper"]
        if per_group:
            table[name] = lower.map(lambda v: f"{v:.2%}")
            table[f"{name} bounds"] = [
                _bounds_text(lo, hi) for lo, hi in zip(lower, upper, strict=True)
            ]
        else:
            table.loc[name, "exact"] = f"{lower[name]:.2%}"
            table.loc[name, "bounds"] = _bounds_text(lower[name], upper[name])
            table.loc[name, "status"] = frame.loc[name, "status"]
            table.loc[name, SAMPLING_LABEL] = f"{frame.loc[name, SAMPLING_LABEL]:.2%}"
    if per_group:
        column = f"ambiguity, {SAMPLING_LABEL}"
        table[column] = frame[column].map(lambda v: f"{v:.2%}")
    return table.to_string()


# -------------------------------------------------------------------- run
class _Stages:
    """Times the steps of an audit and hands each the rest of the total budget.

    A step run twice adds up its times.
    """

    def __init__(self, auditor, total_time_limit):
        self.auditor = auditor
        self.deadline = Deadline(total_time_limit)
        self.timings = {}

    def run(self, name, func):
        left = self.deadline.remaining()
        # A stage with no time left still runs, to read what is known.
        self.auditor.set_params(
            total_time_limit=None if math.isinf(left) else max(left, 1e-6)
        )
        start = time.perf_counter()
        value = func()
        elapsed = time.perf_counter() - start
        self.timings[name] = self.timings.get(name, 0.0) + elapsed
        return value


def _stage_order(steps, total_time_limit):
    """The order of the exact stages of :func:`run_audit` (last run wins).

    Without a total time limit the path goes first: its flip MIPs, solved to
    optimality once, answer ambiguity at every tolerance, ``epsilon``
    included. Under a total time limit the values at ``epsilon``, which the
    report leads with, go first and the path (which can use any amount of
    time) gets what they leave; they are then read again, from what is now
    cached, since the path may have tightened them.
    """
    order = ["path", "measures", "groups"]
    if total_time_limit is not None:
        order = ["measures", "groups", "path", "measures", "groups"]
    return [name for name in order if name in steps]


def _budget(auditor, eps, n):
    """Largest error count of the level set (unit weights)."""
    return auditor.baseline_errors_ + math.floor(eps * n + 1e-9)


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
):
    """Audit ``(X, y)`` exactly and by sampling; collect everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    estimator : estimator, default=None
        The baseline (``None``: :class:`ZeroOneLinearClassifier`).
    epsilon : float in [0, 1] or "auto", default=0.01
        ``"auto"``: :func:`suggest_epsilon` (bootstrap) on the fitted baseline.
    groups : array-like of shape (n_samples,), default=None
    max_epsilon : float, default=None
        End of the path (at least ``epsilon``; default ``epsilon``).
    time_limit : float or None, default=60.0
        Seconds per MIP.
    total_time_limit : float or None, default=None
        Seconds for all MIPs of the audit. Fitting, then the measures and
        the groups at ``epsilon``, then the path each get what is left, so
        the values the report leads with are settled first. MIPs still open
        when it runs out leave their bounds open, and values are reported as
        bounds (``certified`` false).
    n_jobs : int or None, default=None
    n_models : int, default=100
        Pool size of the :class:`SamplingAuditor`.
    random_state : int or None, default=0
    verbose : int, default=0
    dataset : dict, default=None
        Description of the data (``source``, ``target``, ``feature_names``,
        ...) copied into the report.

    Returns
    -------
    AuditReport
    """
    auditor = MultiplicityAuditor(
        estimator,
        epsilon=0.01 if epsilon == "auto" else epsilon,
        time_limit=time_limit
        if total_time_limit is None
        else _limit(time_limit, total_time_limit),
        n_jobs=n_jobs,
        random_state=random_state,
        verbose=verbose,
    )
    stages = _Stages(auditor, total_time_limit)
    stages.run("fit", lambda: auditor.fit(X, y, groups=groups))
    suggestion = None
    if epsilon == "auto":
        suggestion = stages.run(
            "epsilon", lambda: _suggest(auditor, X, y, random_state)
        )
        epsilon = suggestion.epsilon
        auditor.set_params(epsilon=epsilon)
    top = epsilon if max_epsilon is None else max(max_epsilon, epsilon)
    steps = {
        "path": lambda: auditor.path(top),
        "measures": lambda: {
            "ambiguity": auditor.ambiguity_bounds(epsilon),
            "discrepancy": auditor.discrepancy_bounds(epsilon),
            "evidence": auditor.evidence(epsilon),
            "model": auditor.discrepancy_model(epsilon),
        },
    }
    if groups is not None:
        steps["groups"] = lambda: auditor.by_group(epsilon)
    done = {}
    for name in _stage_order(steps, total_time_limit):
        done[name] = stages.run(name, steps[name])
    path, bounds, frame = done["path"], done["measures"], done.get("groups")
    sampling = stages.run(
        "sampling",
        lambda: SamplingAuditor.from_auditor(
            auditor, X, y, n_models=n_models, random_state=random_state
        ),
    )
    auditor.set_params(time_limit=time_limit, total_time_limit=total_time_limit)
    timings = {**stages.timings, "total": sum(stages.timings.values())}
    return AuditReport(
        auditor=auditor,
        sampling=sampling,
        epsilon=float(epsilon),
        budget=float(_budget(auditor, epsilon, len(y))),
        suggestion=suggestion,
        path=path,
        sampling_path=sampling.path(float(path["epsilon"].max())),
        bounds={m: bounds[m] for m in MEASURES},
        evidence=bounds["evidence"],
        discrepancy_model=bounds["model"],
        frame=frame,
        y=np.asarray(y),
        groups=None if groups is None else np.asarray(groups),
        dataset={
            "source": "data",
            "feature_names": [str(c) for c in X.columns],
            **(dataset or {}),
            "n_rows": int(len(y)),
            "classes": [_plain(c) for c in auditor.classes_],
        },
        settings={
            "epsilon": epsilon,
            "max_epsilon": top,
            "estimator": type(_unwrap(auditor.estimator_)).__name__,
            "time_limit": time_limit,
            "total_time_limit": total_time_limit,
            "n_jobs": n_jobs,
            "n_models": n_models,
            "random_state": random_state,
            "solver": auditor.solver,
        },
        timings=timings,
    )


def _suggest(auditor, X, y, random_state):
    return suggest_epsilon(
        FrozenEstimator(auditor.estimator_),
        X,
        y,
        method="bootstrap",
        random_state=random_state,
    )
