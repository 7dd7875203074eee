"""The report of a K-class audit: its values and tables, written as JSON, CSV,
PNG and one HTML page."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from .._core import certified as is_certified
from .._core._validation import PerClassEpsilon
from .._estimators._auditor import MultiplicityAuditor
from .._reporting._frame import MultiplicityFrame
from ._decisions import abstention, decisions
from ._format import (
    CERTIFIED,
    MEASURES,
    linear_parts,
    plain,
    records,
    status_label,
    unwrap,
    versions,
)
from ._html import write_plots
from ._mip_log import summarize_mip_log
from ._multiclass_text import render_multiclass_html, summary_text
from ._report import measure_row

#: What the command line gives two labels only, and why, in one line each.
BINARY_ONLY = {
    "epsilon auto": "its bootstrap interval is of a binary error",
    "sampled estimate": "the pool of logistic regressions is binary",
    "coefficient ranges": "the auditor computes them for two labels",
    "constraints": "the constrained classes are binary",
}


@dataclasses.dataclass(eq=False)
class MulticlassReport:
    """A completed K-class audit: the measures, their evidence and the labels
    the level set gives every person.

    Build it with :func:`~._multiclass.run_multiclass_audit`. Values are read
    from the fitted :class:`MultiplicityAuditor` with their certified
    bounds, so an audit stopped by a time limit is reported with its bounds.

    Attributes
    ----------
    auditor : MultiplicityAuditor
    epsilon : float or PerClassEpsilon
        The tolerance, or one per label.
    path : pandas.DataFrame or None
        :meth:`MultiplicityAuditor.path` (None: no path was asked for).
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    evidence : pandas.DataFrame
        :meth:`MultiplicityAuditor.evidence` at ``epsilon``.
    labels_found, labels_open : ndarray of bool, shape (n_samples, n_classes)
        Per training row, the labels (columns in ``auditor.classes_``
        order) that a verified model of the level set gives it (the
        baseline's among them), and those a limit left unsettled. Their
        union is :meth:`MultiplicityAuditor.predict_set` on the rows.
    discrepancy_model : estimator or None
    frame : MultiplicityFrame or None
        Per-group measures, when groups were given.
    y, groups : ndarray of shape (n_samples,) (groups may be None)
    dataset, settings : dict
    timings : dict
        Seconds of each stage, and their ``total``.
    abstain : bool
        Whether the report includes abstention.
    """

    auditor: MultiplicityAuditor
    epsilon: float | PerClassEpsilon
    path: pd.DataFrame | None
    bounds: dict[str, tuple[float, float]]
    evidence: pd.DataFrame
    labels_found: np.ndarray
    labels_open: np.ndarray
    discrepancy_model: object | None
    frame: MultiplicityFrame | None
    y: np.ndarray
    groups: np.ndarray | None
    dataset: dict
    settings: dict
    timings: dict[str, float]
    abstain: bool = False

    #: No sampled estimate for K labels (read by the path plot).
    sampling_path = None

    # ---------------------------------------------------------------- tables
    @property
    def per_label(self):
        """Whether the tolerance is one per label."""
        return isinstance(self.epsilon, PerClassEpsilon)

    @property
    def budget(self):
        """The level set's most errors: a number, or ``{label: errors}`` on
        each true label with per-label tolerances."""
        return self.auditor.error_budget(self.epsilon)

    def measures(self):
        """Both measures: ``value`` (NaN unless certified), ``lower``,
        ``upper`` and ``status``, indexed by measure."""
        rows = {}
        for name in MEASURES:
            rows[name] = measure_row(*self.bounds[name])
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """:attr:`MultiplicityFrame.by_group` (None without groups)."""
        return None if self.frame is None else self.frame.by_group

    def _label_text(self, mask):
        classes = self.auditor.classes_
        return [";".join(str(plain(c)) for c in classes[row]) for row in mask]

    def flags(self):
        """``(contestable, undecided)`` per training row: a verified model of
        the level set gives the row another label; or none is known and a
        limit left some label unsettled."""
        contestable = self.evidence["contestable"].to_numpy() | (
            self.labels_found.sum(axis=1) > 1
        )
        return contestable, ~contestable & self.labels_open.any(axis=1)

    def people(self):
        """Per training row (index ``row``): ``target``, ``group`` (with
        groups), ``baseline``, ``labels`` (every label a verified model of
        the level set gives the row, ``;``-separated), ``labels_open``
        (labels a limit left unsettled), ``contestable``, ``undecided``,
        ``min_flip_errors`` and, with abstention, ``decision``."""
        people = pd.DataFrame({"target": self.y})
        if self.groups is not None:
            people["group"] = self.groups
        people["baseline"] = self.evidence["baseline"].to_numpy()
        people["labels"] = self._label_text(self.labels_found)
        people["labels_open"] = self._label_text(self.labels_open)
        people["contestable"], people["undecided"] = self.flags()
        people["min_flip_errors"] = self.evidence["min_flip_errors"].to_numpy()
        if self.abstain:
            people["decision"] = self.decisions()
        people.index.name = "row"
        return people

    def _flagged_evidence(self):
        contestable, undecided = self.flags()
        return self.evidence.assign(contestable=contestable, undecided=undecided)

    def decisions(self):
        """Per row: the baseline's label, or ``"abstain"``."""
        return decisions(self._flagged_evidence())

    def abstention(self):
        """Coverage and accuracy of abstaining (:func:`~._decisions.abstention`)."""
        return abstention(self._flagged_evidence(), self.y)

    def label_errors(self):
        """The baseline's errors on each true label (index ``label``):
        ``n``, ``errors``, ``error_rate`` and, per label, ``epsilon``,
        ``extra_errors`` and ``budget`` (its most errors on the label)."""
        classes = self.auditor.classes_
        baseline = self.evidence["baseline"].to_numpy()
        rows = {}
        for k, label in enumerate(classes):
            on = self.y == label
            errors = int(np.sum(on & (baseline != label)))
            rows[plain(label)] = {
                "n": int(on.sum()),
                "errors": errors,
                "error_rate": errors / on.sum(),
            }
            if self.per_label:
                most = self.budget[label]
                rows[plain(label)].update(
                    epsilon=self.epsilon[k], extra_errors=most - errors, budget=most
                )
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "label"
        return frame

    def models(self):
        """Weights of the baseline and the discrepancy model, one row per
        model and label (index ``model``, ``label``): the features,
        ``intercept``, ``n_errors`` and ``source``."""
        a = self.auditor
        names = self.dataset["feature_names"]
        found = {
            "baseline": (
                a.estimator_,
                a.baseline_errors_,
                f"baseline: {type(unwrap(a.estimator_)).__name__}",
            )
        }
        model = self.discrepancy_model
        if model is not None:
            last = model[-1] if isinstance(model, Pipeline) else model
            found["discrepancy"] = (model, last.n_errors_, last.source)
        rows = {}
        for name, (estimator, errors, source) in found.items():
            feats, coef, intercept = linear_parts(estimator, names)
            for k, label in enumerate(a.classes_):
                rows[(name, plain(label))] = {
                    **dict(zip(feats, coef[k], strict=True)),
                    "intercept": intercept[k],
                    "n_errors": errors,
                    "source": source,
                }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.names = ["model", "label"]
        return frame

    # ---------------------------------------------------------------- status
    @property
    def certified(self):
        """Whether no value of the report is left open."""
        return not self.open_values()

    def open_values(self):
        """One phrase per value whose bounds do not pin it."""
        open_values = []
        if not is_certified(*self.auditor.min_error_bounds_):
            open_values.append("the minimum error")
        open_values += [m for m, b in self.bounds.items() if not is_certified(*b)]
        if self.path is not None:
            n_open = int((~self.path["certified"].astype(bool)).sum())
            if n_open:
                open_values.append(f"{n_open} of {len(self.path)} path tolerances")
        if self.frame is not None:
            by = self.frame.by_group
            for m in MEASURES:
                pinned = np.asarray(is_certified(by[f"{m}_lower"], by[f"{m}_upper"]))
                if not pinned.all():
                    groups = ", ".join(str(g) for g in by.index[~pinned])
                    open_values.append(f"{m} of group(s) {groups}")
        n_open = int(self.labels_open.any(axis=1).sum())
        if n_open:
            open_values.append(f"the labels of {n_open} people")
        return open_values

    def far_from_optimum_words(self):
        """A note when models of the class err less than the baseline by
        more than the tolerance allows (None otherwise)."""
        a = self.auditor
        lo, hi = a.min_error_bounds_
        base = a.baseline_errors_
        budget = self.budget
        extra = (sum(budget.values()) if self.per_label else budget) - base
        if base - hi <= extra:
            return None
        return (
            f"NOTE: the baseline makes {base:g} training errors, and a model of "
            f"the class makes {hi:g} (certified minimum [{lo:g}, {hi:g}]): "
            f"{base - hi:g} fewer, more than the {extra:g} extra errors the "
            "tolerance allows. The ambiguity then mostly measures how far the "
            "baseline is from the best models of the class."
        )

    def level_set(self):
        """Tolerance, extra errors and budget of the level set, JSON-ready."""
        if not self.per_label:
            return {
                "value": float(self.epsilon),
                "per_label": False,
                "extra_errors": self.budget - self.auditor.baseline_errors_,
                "budget": self.budget,
            }
        table = self.label_errors()
        return {
            "value": self.epsilon,
            "per_label": True,
            "extra_errors": table["extra_errors"].to_dict(),
            "budget": table["budget"].to_dict(),
        }

    # ---------------------------------------------------------------- output
    def to_dict(self):
        """Every number of the report, JSON-ready."""
        a = self.auditor
        lo, hi = a.min_error_bounds_
        total = float(len(self.y))
        contestable, undecided = self.flags()
        measures = {
            name: {
                **row[["lower", "upper", "status"]].to_dict(),
                **({"value": row["value"]} if row["status"] == CERTIFIED else {}),
                "certified": row["status"] == CERTIFIED,
            }
            for name, row in self.measures().iterrows()
        }
        groups = self.group_table()
        return plain(
            {
                "kind": "K-class",
                "dataset": self.dataset,
                "settings": self.settings,
                "epsilon": {**self.level_set(), "method": "given"},
                "hypothesis_class": a.hypothesis_class_,
                "baseline": {
                    "estimator": type(unwrap(a.estimator_)).__name__,
                    "errors": a.baseline_errors_,
                    "error": a.baseline_error_,
                    "by_label": records(self.label_errors()),
                    "min_error": {
                        "lower": lo,
                        "upper": hi,
                        "lower_share": lo / total,
                        "upper_share": hi / total,
                        "status": status_label(lo, hi),
                    },
                    "n_patterns": a.n_patterns_,
                    "far_from_optimum": self.far_from_optimum_words(),
                },
                **measures,
                "groups": None if groups is None else records(groups),
                "path": None
                if self.path is None
                else records(self.path.set_index("epsilon")),
                "abstention": self.abstention() if self.abstain else None,
                "certified": self.certified,
                "n_contestable": int(contestable.sum()),
                "n_undecided": int(undecided.sum()),
                "binary_only": BINARY_ONLY,
                "mip_log": summarize_mip_log(a.mip_log_),
                "timings": self.timings,
                "versions": versions(),
            }
        )

    def summary(self):
        """The report as plain text for the terminal."""
        return summary_text(self)

    def write(self, out):
        """Write ``report.json``, ``people.csv``, ``models.csv``, the PNGs
        (with matplotlib) and ``report.html`` to ``out``; the files' paths."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        self.people().to_csv(out / "people.csv")
        self.models().to_csv(out / "models.csv")
        written = [out / "people.csv", out / "models.csv"]
        images = write_plots(self, out)
        written += list(images.values())
        report = self.to_dict()
        report["files"] = [p.name for p in written] + ["report.json", "report.html"]
        (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "report.html").write_text(render_multiclass_html(self, report, images))
        return [*written, out / "report.json", out / "report.html"]
