"""``audit --measure probabilistic``: the viable prediction ranges of a
logistic regression, and their report files."""

import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .._engine import Deadline, capped
from .._probabilistic import ProbabilisticAuditor
from ._format import dataset_record, linear_part, plain, records, versions
from ._html import html_table, img_tag, page_opening, timing_sections

MEASURES = ("ambiguity", "discrepancy")


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
):
    """Fit a :class:`ProbabilisticAuditor` and collect everything reported.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    estimator : estimator, default=None
        The baseline (``None``: :func:`default_estimator`).
    epsilon : float, default=0.01
        Tolerance in nats of mean log-loss.
    threshold : float, default=0.5
    groups : array-like of shape (n_samples,), default=None
    n_jobs : int or None, default=None
    total_time_limit : float or None, default=None
        Seconds for the whole audit: each request's exact solver gets what is
        left (``None``: the auditor's default limit per request).
    random_state : int or None, default=0
        The auditor's ``random_state`` (an int keeps the report reproducible).
    verbose : int, default=0
        The auditor's ``verbose`` (``1``: progress on stderr).
    dataset : dict, default=None
        Description of the data copied into the report.

    Returns
    -------
    ProbabilisticReport
    """
    timings = {}
    with capped(Deadline(total_time_limit)):  # every request ends by it
        start = time.perf_counter()
        auditor = ProbabilisticAuditor(
            default_estimator() if estimator is None else estimator,
            epsilon=epsilon,
            threshold=threshold,
            n_jobs=n_jobs,
            random_state=random_state,
            verbose=verbose,
        ).fit(X, y)
        timings["fit"] = time.perf_counter() - start
        start = time.perf_counter()
        ranges = auditor.viable_prediction_range()
        ranges["rashomon_capacity"] = auditor.rashomon_capacity().to_numpy()
        timings["ranges"] = time.perf_counter() - start
        start = time.perf_counter()
        bounds = {
            "ambiguity": auditor.ambiguity_bounds(),
            "discrepancy": auditor.discrepancy_bounds(),
        }
        timings["measures"] = time.perf_counter() - start
    timings["total"] = sum(timings.values())
    return ProbabilisticReport(
        auditor=auditor,
        ranges=ranges,
        bounds=bounds,
        y=np.asarray(y),
        groups=None if groups is None else np.asarray(groups),
        dataset=dataset_record(X, y, auditor.classes_, dataset),
        timings=timings,
    )


def _pinned(lower, upper):
    """Whether a measure's certified bounds pin its value."""
    return upper - lower <= 1e-12


@dataclasses.dataclass(eq=False)
class ProbabilisticReport:
    """A completed probabilistic audit: ranges, measures and their models.

    Attributes
    ----------
    auditor : ProbabilisticAuditor
    ranges : pandas.DataFrame
        :meth:`ProbabilisticAuditor.viable_prediction_range` of the training
        rows, with each person's ``rashomon_capacity``.
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    y, groups : ndarray
    dataset : dict
    timings : dict
    """

    auditor: ProbabilisticAuditor
    ranges: pd.DataFrame
    bounds: dict
    y: np.ndarray
    groups: np.ndarray | None
    dataset: dict
    timings: dict

    #: A decision is the probability against the threshold (read by the
    #: report beside a 0-1 audit).
    multinomial = False
    #: What must be certified for this audit to lead the report beside a
    #: 0-1 audit.
    settles = "ranges and ambiguity"

    @property
    def certified(self):
        """Whether every range and both measures are pinned."""
        return not self._unpinned()

    @property
    def decisions_certified(self):
        """Whether every range and the ambiguity are pinned (the
        discrepancy, a non-convex question, may stay a band)."""
        lower, upper = self.bounds["ambiguity"]
        return bool(self.ranges["certified"].all()) and _pinned(lower, upper)

    def html_section(self, image):
        """The audit as HTML, for the report beside a 0-1 audit."""
        import html

        a = self.auditor
        return "\n".join(
            [
                f"<p>Level set: {html.escape(a.level_set_)} (eps {a.epsilon:g} "
                "nats of mean log-loss).</p>",
                html_table(self.measures()),
                img_tag(image) if image is not None else "",
                "<p>Per-person ranges: <code>probabilistic_people.csv</code>.</p>",
            ]
        )

    def _unpinned(self):
        """What is not pinned, in words: the ranges, then each measure."""
        n = len(self.ranges)
        pinned = int(self.ranges["certified"].sum())
        parts = [] if pinned == n else [f"{n - pinned} of {n} ranges"]
        return parts + [
            f"{name} (bounds only: [{lo:.4f}, {hi:.4f}])"
            for name, (lo, hi) in self.bounds.items()
            if not _pinned(lo, hi)
        ]

    def measures(self):
        """Measures with their certified bounds (index: measure)."""
        rows = {}
        for name, (lo, hi) in self.bounds.items():
            status = "certified" if _pinned(lo, hi) else "bounds"
            value = lo if status == "certified" else np.nan  # a band is no value
            rows[name] = {"value": value, "lower": lo, "upper": hi, "status": status}
        a = self.auditor
        for delta in (0.05, 0.1, 0.2):
            value = a.delta_ambiguity(delta=delta)
            rows[f"delta_ambiguity({delta:g})"] = {
                "value": value,
                "lower": value,
                "upper": value,
                "status": "certified",
            }
        width = float(self.ranges["width"].mean())
        rows["mean_width"] = {"value": width, "lower": width, "upper": width}
        rows["mean_width"]["status"] = "attained"
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """Per group: people, ambiguity and mean width (None without groups)."""
        if self.groups is None:
            return None
        r = self.ranges
        t = self.auditor.threshold
        flips = np.where(r.baseline > t, r.lower <= t, r.upper > t)
        frame = pd.DataFrame(
            {"group": self.groups, "ambiguity": flips, "width": r["width"]}
        )
        table = frame.groupby("group").agg(
            n=("width", "size"),
            ambiguity=("ambiguity", "mean"),
            width=("width", "mean"),
        )
        return table

    def people(self):
        """Per training row: target, group, range, capacity."""
        people = self.ranges.reset_index(drop=True).copy()
        people.insert(0, "target", self.y)
        if self.groups is not None:
            people.insert(1, "group", self.groups)
        people.index.name = "row"
        return people

    def models(self):
        """The baseline and the two models attaining the widest range."""
        names = self.dataset["feature_names"]
        widest = int(np.argmax(self.ranges["width"].to_numpy()))
        low, high = self.auditor.extreme_models(widest)
        rows = {}
        for label, model in (
            ("baseline", self.auditor.estimator_),
            (f"lowest for row {widest}", low),
            (f"highest for row {widest}", high),
        ):
            feats, coef, intercept = linear_part(model, names)
            rows[label] = {
                **dict(zip(feats, coef, strict=True)),
                "intercept": intercept,
                "objective": self.auditor.objective(model),
            }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "model"
        return frame

    def to_dict(self):
        """Every number of the report, JSON-ready."""
        a = self.auditor
        groups = self.group_table()
        return plain(
            {
                "measure": "probabilistic",
                "dataset": self.dataset,
                "settings": {
                    k: v
                    for k, v in a.get_params(deep=False).items()
                    if v != "deprecated"  # a renamed parameter left unset
                }
                | {"estimator": repr(a.estimator)},
                "level_set": a.level_set_,
                "baseline_objective": a.baseline_objective_,
                "objective_level": a.objective_level(),
                "min_objective": list(a.min_objective_bounds_),
                "measures": records(self.measures()),
                "groups": None if groups is None else records(groups),
                "certified": self.certified,
                "n_certified_ranges": int(self.ranges["certified"].sum()),
                "timings": self.timings,
                "versions": versions(),
            }
        )

    def summary(self):
        """The report as plain text for the terminal."""
        a, d = self.auditor, self.dataset
        r = self.ranges
        # The ranges and each measure are pinned apart: name what is open.
        unpinned = self._unpinned()
        status = (
            "Not certified: " + ", ".join(unpinned)
            if unpinned
            else "All certified: every range, " + " and ".join(self.bounds)
        )
        lines = [
            f"Probabilistic audit of {d['source']}: {len(r)} people, "
            f"{len(d['feature_names'])} features, target {d.get('target')!r} "
            f"(positive class {d['classes'][1]!r})",
            f"Level set: {a.level_set_}",
            f"  objective at most {a.objective_level():.6g} "
            f"(baseline {a.baseline_objective_:.6g} + eps {a.epsilon:g} nats of "
            "mean log-loss)",
            "",
            self.measures().to_string(float_format=lambda v: f"{v:.4f}"),
            "",
            f"Viable prediction ranges: median width {r['width'].median():.4f}, "
            f"{int(r['certified'].sum())} of {len(r)} certified within {a.tol:g}",
            status,
        ]
        groups = self.group_table()
        if groups is not None:
            lines += ["", "By group:", groups.to_string(float_format="{:.4f}".format)]
        lines.append(
            "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items())
        )
        return "\n".join(lines)

    def write(self, out):
        """Write ``report.json``, ``people.csv``, ``models.csv``, ``ranges.png``
        (with matplotlib) and ``report.html`` to ``out``.

        Parameters
        ----------
        out : str or path-like

        Returns
        -------
        list of pathlib.Path
        """
        return write_report_files(self, out, self._html)

    def write_plot(self, out):
        """Write ``ranges.png`` to ``out``; its path, or None without matplotlib."""
        try:
            from matplotlib.figure import Figure
        except ImportError:
            return None
        from .._probabilistic import ViablePredictionRangeDisplay

        fig = Figure(figsize=(7, 4.5))
        ViablePredictionRangeDisplay(
            ranges=self.ranges, threshold=self.auditor.threshold
        ).plot(ax=fig.add_subplot())
        fig.savefig(out / "ranges.png", dpi=100, bbox_inches="tight")
        return out / "ranges.png"

    def _html(self, data, image, models):
        import html

        parts = [
            page_opening(
                "Probabilistic multiplicity", "Probabilistic multiplicity audit"
            ),
            f"<p>{html.escape(self.summary().splitlines()[0])}</p>",
            f"<p>Level set: {html.escape(data['level_set'])}.</p>",
            html_table(self.measures()),
            img_tag(image)
            if image is not None
            else "<p>Plot skipped (no matplotlib).</p>",
        ]
        groups = self.group_table()
        if groups is not None:
            parts += ["<h2>By group</h2>", html_table(groups)]
        parts += [
            "<h2>Models</h2>",
            html_table(models),
            "<p>The per-person ranges are in <code>people.csv</code>.</p>",
            *timing_sections(data),
        ]
        return "\n".join(parts) + "\n"


def write_report_files(report, out, html):
    """Write a probabilistic ``report``'s ``people.csv``, ``models.csv``,
    plot, ``report.json`` and ``report.html`` (``html(data, image, models)``)
    to ``out``.

    Returns
    -------
    list of pathlib.Path
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report.people().to_csv(out / "people.csv")
    models = report.models()
    models.to_csv(out / "models.csv")
    written = [out / "people.csv", out / "models.csv"]
    image = report.write_plot(out)
    written += [] if image is None else [image]
    data = report.to_dict()
    data["files"] = [p.name for p in written] + ["report.json", "report.html"]
    (out / "report.json").write_text(json.dumps(data, indent=2) + "\n")
    (out / "report.html").write_text(html(data, image, models))
    return [*written, out / "report.json", out / "report.html"]
