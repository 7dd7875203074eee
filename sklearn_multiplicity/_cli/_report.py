"""An audit report: its values, tables and summary, written as JSON, CSV, PNG
and one HTML page."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from .._core import ClassBudget
from .._core import certified as is_certified
from .._core._validation import PerClassEpsilon
from .._estimators._auditor import MultiplicityAuditor
from .._estimators._epsilon import EpsilonSuggestion
from .._estimators._sampling import SamplingAuditor
from .._reporting._frame import MultiplicityFrame
from ._decisions import (
    abstention,
    decisions,
    error_rates,
)
from ._format import (
    CERTIFIED,
    MEASURES,
    budget_words,
    linear_part,
    plain,
    records,
    sampling_label,
    status_label,
    unwrap,
    versions,
)
from ._html import render_html, write_plots
from ._mip_log import summarize_mip_log
from ._summary import summary_text


def measure_row(lower, upper):
    """One measure's row of a report's table: ``value`` (NaN unless
    certified: a band is not a value), ``lower``, ``upper``, ``status``."""
    status = status_label(lower, upper)
    return {
        "value": lower if status == CERTIFIED else np.nan,
        "lower": lower,
        "upper": upper,
        "status": status,
    }


@dataclasses.dataclass(eq=False)
class AuditReport:
    """A completed audit: the exact and sampled measures and their evidence.

    Build it with :func:`~._run.run_audit`. Every value is read from a fitted
    :class:`MultiplicityAuditor` with its certified bounds, so an audit
    stopped by a time limit is reported with its bounds and
    ``certified=False``.

    Attributes
    ----------
    auditor : MultiplicityAuditor
        The fitted auditor.
    sampling : SamplingAuditor
        The fitted sampled estimate around the same baseline.
    epsilon : float or PerClassEpsilon
        The error tolerance of the level set.
    budget : float or ClassBudget
        Largest error count of the level set at ``epsilon`` (per kind of
        error with per-class tolerances).
    suggestion : EpsilonSuggestion or None
        How ``epsilon`` was chosen when it was ``"auto"``.
    path, sampling_path : pandas.DataFrame
        :meth:`MultiplicityAuditor.path` and :meth:`SamplingAuditor.path`.
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    evidence : pandas.DataFrame
        :meth:`MultiplicityAuditor.evidence` at ``epsilon``.
    discrepancy_model : estimator or None
        The model of the level set that attains the discrepancy.
    frame : MultiplicityFrame or None
        Per-group measures, when groups were given.
    y : ndarray of shape (n_samples,)
        Training labels.
    groups : ndarray of shape (n_samples,) or None
        Training groups.
    dataset : dict
        Description of the data (``source``, ``target``, ``feature_names``,
        ``n_rows``, ``classes``, ...).
    settings : dict
        The arguments of :func:`~._run.run_audit`.
    timings : dict
        Seconds of each stage of the audit, and their ``total``.
    abstain : bool
        Whether the report includes abstention on the contestable people.
    """

    auditor: MultiplicityAuditor
    sampling: SamplingAuditor
    epsilon: float | PerClassEpsilon
    budget: float | ClassBudget
    suggestion: EpsilonSuggestion | None
    path: pd.DataFrame
    sampling_path: pd.DataFrame
    bounds: dict[str, tuple[float, float]]
    evidence: pd.DataFrame
    discrepancy_model: object | None
    frame: MultiplicityFrame | None
    y: np.ndarray
    groups: np.ndarray | None
    dataset: dict
    settings: dict
    timings: dict[str, float]
    abstain: bool = False

    # ---------------------------------------------------------------- tables
    def measures(self):
        """Exact measures with bounds and status, next to the sampled ones.

        Returns
        -------
        pandas.DataFrame
            Index ``ambiguity``, ``discrepancy``; columns ``value`` (NaN
            unless certified: a band is not a value), ``lower``, ``upper``,
            ``status`` and ``sampling (lower estimate)``.
        """
        rows = {}
        for name in MEASURES:
            rows[name] = {
                **measure_row(*self.bounds[name]),
                self.sampling_label: getattr(self.sampling, name)(self.epsilon),
            }
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """Per-group exact measures plus the sampled ambiguity.

        Returns
        -------
        pandas.DataFrame or None
            :attr:`MultiplicityFrame.by_group` with a column
            ``ambiguity, sampling (lower estimate)``; None without groups.
        """
        if self.frame is None:
            return None
        table = self.frame.by_group.copy()
        flipped = self.sampling.contestable(self.epsilon)
        groups = np.asarray(self.groups)
        table[f"ambiguity, {self.sampling_label}"] = [
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
        if self.abstain:
            people["decision"] = self.decisions()
        people.index.name = "row"
        return people

    def decisions(self):
        """Per training row: the baseline's label, or ``"abstain"``
        (:func:`~._decisions.decisions`).

        Returns
        -------
        ndarray of object, shape (n_samples,)
        """
        return decisions(self.evidence)

    def abstention(self):
        """Coverage and accuracy of abstaining (:func:`~._decisions.abstention`).

        Returns
        -------
        dict
        """
        return abstention(self.evidence, self.y)

    def error_rates(self):
        """The baseline's errors on each class (:func:`~._decisions.error_rates`).

        Returns
        -------
        dict
        """
        return error_rates(self.evidence, self.y, self.auditor.classes_)

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
        feats, coef, intercept = linear_part(auditor.estimator_, names)
        rows["baseline"] = {
            **dict(zip(feats, coef, strict=True)),
            "intercept": intercept,
            "n_errors": auditor.baseline_errors_,
            "source": f"baseline: {type(unwrap(auditor.estimator_)).__name__}",
        }
        model = self.discrepancy_model
        if model is not None:
            feats, coef, intercept = linear_part(model, names)
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
    def sampling_label(self):
        """Column label of the sampled estimates (what they compare)."""
        return sampling_label(self.sampling)

    @property
    def certified(self):
        """Whether every reported value is certified (no bound left open).

        Returns
        -------
        bool
            True when the minimum error, the measures at ``epsilon``, every
            point of the path and every group's measures have bounds that
            pin their value.
        """
        return not self.open_values()

    def open_values(self):
        """What the report leaves open: one phrase per value whose bounds do
        not pin it (empty when every value is certified).

        Returns
        -------
        list of str
        """
        open_values = []
        if not is_certified(*self.auditor.min_error_bounds_):
            open_values.append("the minimum error")
        open_values += [
            name for name, bounds in self.bounds.items() if not is_certified(*bounds)
        ]
        n_open = int((~self.path["certified"].astype(bool)).sum())
        if n_open:
            open_values.append(f"{n_open} of {len(self.path)} path tolerances")
        if self.frame is not None:
            by = self.frame.by_group
            for m in MEASURES:
                pinned = is_certified(by[f"{m}_lower"], by[f"{m}_upper"])
                if not np.all(pinned):
                    groups = ", ".join(str(g) for g in by.index[~np.asarray(pinned)])
                    open_values.append(f"{m} of group(s) {groups}")
        return open_values

    @property
    def per_class(self):
        """Whether the tolerance is per class (a budget on each kind of error)."""
        return isinstance(self.budget, ClassBudget)

    def _baseline_errors(self):
        """The baseline's errors, per kind when the tolerance is per class."""
        if not self.per_class:
            return self.auditor.baseline_errors_
        rates = self.error_rates()
        return ClassBudget(rates["false_positives"], rates["false_negatives"])

    def constant_baseline_words(self):
        """What a constant baseline means for the audit, or ``None``.

        Returns
        -------
        str or None
            When the baseline predicts one class for every training row,
            a sentence naming the class and the certified minimum error of
            the class beside the baseline's errors; else ``None``.
        """
        a = self.auditor
        label = a.baseline_constant_class_
        if label is None:
            return None
        lo, hi = a.min_error_bounds_
        return (
            f"WARNING: the baseline is constant: it predicts {plain(label)!r} for "
            f"all {self.evidence.shape[0]} people ({a.baseline_errors_:g} "
            f"errors; the class's certified minimum is [{lo:g}, {hi:g}]). The "
            "level set is built around it: the measures count the people whom "
            f"models of the level set decide otherwise than {plain(label)!r}."
        )

    def far_from_optimum_words(self):
        """What the ambiguity measures when models of the class err less
        than the baseline by more than the tolerance allows, or ``None``.

        A model with ``upper`` errors (the minimum error's upper bound) is
        verified, so the gap it shows is certain.
        """
        a = self.auditor
        if a.baseline_constant_class_ is not None:
            return None  # said by constant_baseline_words
        lo, hi = a.min_error_bounds_
        base = a.baseline_errors_
        extra = getattr(self.budget, "total", self.budget) - base
        if base - hi <= extra:
            return None
        return (
            f"NOTE: the baseline makes {base:g} training errors, and a model of "
            f"the class makes {hi:g} (certified minimum [{lo:g}, {hi:g}]): "
            f"{base - hi:g} fewer, more than the {extra:g} extra errors the "
            "tolerance allows. The ambiguity then mostly measures how far the "
            "baseline is from the best models of the class, not how much "
            "models as good as the best disagree."
        )

    def _level_set(self):
        """Tolerance, extra errors and budget of the level set, JSON-ready."""
        base = self._baseline_errors()
        if not self.per_class:
            return {
                "value": float(self.epsilon),
                "extra_errors": self.budget - base,
                "budget": self.budget,
            }
        kinds = ("false_positives", "false_negatives")
        return {
            "value": self.epsilon,
            "extra_errors": {
                k: getattr(self.budget, k) - getattr(base, k) for k in kinds
            },
            "budget": {k: getattr(self.budget, k) for k in kinds},
        }

    def level_set_line(self):
        base = self._baseline_errors()
        if not self.per_class:
            return (
                f"Level set: eps = {self.epsilon:.4g} -> "
                f"{self.budget - base:g} extra errors (at most {self.budget:g} "
                "errors)"
            )
        extra = [
            getattr(self.budget, k) - getattr(base, k)
            for k in ("false_positives", "false_negatives")
        ]
        return (
            f"Level set: eps = {self.epsilon:.4g} per class -> "
            f"{extra[0]:g} extra false positives and {extra[1]:g} extra false "
            f"negatives ({budget_words(self.budget)})"
        )

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
        return plain(
            {
                "assessment": auditor.assessment_.as_dict(),
                "dataset": self.dataset,
                "settings": self.settings,
                "epsilon": {
                    **self._level_set(),
                    "method": "given" if self.suggestion is None else "auto",
                    "suggestion": None
                    if self.suggestion is None
                    else dataclasses.asdict(self.suggestion),
                },
                "hypothesis_class": auditor.hypothesis_class_,
                "constraints": list(auditor.constraints_),
                "abstention": self.abstention() if self.abstain else None,
                "baseline": {
                    **self.error_rates(),
                    "estimator": type(unwrap(auditor.estimator_)).__name__,
                    "errors": auditor.baseline_errors_,
                    "error": auditor.baseline_error_,
                    "constant": auditor.baseline_constant_class_ is not None,
                    "constant_class": auditor.baseline_constant_class_,
                    "min_error": {
                        "lower": lo,
                        "upper": hi,
                        "lower_share": lo / total,
                        "upper_share": hi / total,
                        "status": status_label(lo, hi),
                    },
                    "n_patterns": auditor.n_patterns_,
                    "far_from_optimum": self.far_from_optimum_words(),
                },
                **{
                    name: {
                        # A bound is named a bound: "value" only when certified.
                        **row[["lower", "upper", "status"]].to_dict(),
                        **(
                            {"value": row["value"]}
                            if row["status"] == CERTIFIED
                            else {}
                        ),
                        "certified": row["status"] == CERTIFIED,
                    }
                    for name, row in measures.iterrows()
                },
                "sampling": {
                    "label": self.sampling_label,
                    "compares": self.sampling.comparison(),
                    "ambiguity": measures.loc["ambiguity", self.sampling_label],
                    "discrepancy": measures.loc["discrepancy", self.sampling_label],
                    "n_models": self.sampling.n_models_,
                    "n_models_in_set": int(
                        self.sampling.in_level_set(self.epsilon).sum()
                    ),
                },
                "groups": None if groups is None else records(groups),
                "path": records(self.path.set_index("epsilon")),
                "sampling_path": records(self.sampling_path.set_index("epsilon")),
                "certified": self.certified,
                "n_contestable": int(self.evidence["contestable"].sum()),
                "n_undecided": int(self.evidence["undecided"].sum()),
                "mip_log": summarize_mip_log(auditor.mip_log_),
                "timings": self.timings,
                "versions": versions(),
            }
        )

    def summary(self):
        """The report as plain text for the terminal.

        Returns
        -------
        str
        """
        return summary_text(self)

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
