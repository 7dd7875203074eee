"""The report of a K-label probabilistic audit: which labels the models of
the log-loss level set give each person, the measures and the per-label
probability ranges, written as JSON, CSV, PNG and one HTML page."""

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from .._probabilistic import ProbabilisticAuditor
from ._format import linear_parts, plain, records, versions
from ._label_probabilistic_text import (
    html_page,
    html_section,
    summary_text,
    write_label_plot,
)
from ._probabilistic import write_report_files

#: The shifts of a probability that delta-ambiguity is read at.
DELTAS = (0.05, 0.1, 0.2)
#: The readings of :meth:`ProbabilisticAuditor.viable_prediction_range`
#: copied into ``people.csv``, one column per label each.
RANGE_FIELDS = ("baseline", "lower", "upper", "lower_bound", "upper_bound")


def _pinned(lower, upper):
    return upper - lower <= 1e-12


def _measure_row(lower, upper):
    status = "certified" if _pinned(lower, upper) else "bounds"
    value = lower if status == "certified" else np.nan  # a band is no value
    return {"value": value, "lower": lower, "upper": upper, "status": status}


@dataclasses.dataclass(eq=False)
class LabelProbabilisticReport:
    """A completed probabilistic audit of a K-label target.

    Attributes
    ----------
    auditor : ProbabilisticAuditor
    reach : pandas.DataFrame
        :meth:`ProbabilisticAuditor.reachable_labels` of the training rows:
        ``"yes"``, ``"no"`` or ``"open"`` per person and label.
    ranges : pandas.DataFrame
        :meth:`ProbabilisticAuditor.viable_prediction_range`: certified
        brackets per label, columns ``(field, label)``.
    capacity : pandas.Series
        :meth:`ProbabilisticAuditor.rashomon_capacity`: certified lower bounds.
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    baseline : ndarray of shape (n_samples,)
        The baseline's label of every training row.
    witnesses : dict
        ``{(row, label): model}``: models of the set giving the most
        contested person each of its other labels.
    y, groups : ndarray
    dataset, timings : dict
    """

    auditor: ProbabilisticAuditor
    reach: pd.DataFrame
    ranges: pd.DataFrame
    capacity: pd.Series
    bounds: dict
    baseline: np.ndarray
    witnesses: dict
    y: np.ndarray
    groups: np.ndarray | None
    dataset: dict
    timings: dict

    #: A decision is the most probable label (read by the report beside a
    #: 0-1 audit).
    multinomial = True
    #: What must be certified for this audit to lead the report beside a
    #: 0-1 audit.
    settles = "labels and ambiguity"

    # ---------------------------------------------------------------- tables
    @property
    def classes(self):
        """The labels, in the order of the per-label columns."""
        return self.auditor.classes_

    def label_masks(self):
        """``(yes, open)``: boolean arrays (n_samples, n_labels) of the labels
        a model of the set gives each person and of those left open."""
        status = self.reach.to_numpy()
        return status == "yes", status == "open"

    def flags(self):
        """``(contestable, undecided)`` per person: a model of the set gives
        another label than the baseline's; or none is known and some other
        label is open."""
        yes, open_ = self.label_masks()
        other = self.classes[None, :] != self.baseline[:, None]
        contestable = (yes & other).any(axis=1)
        return contestable, ~contestable & (open_ & other).any(axis=1)

    def measures(self):
        """Ambiguity, discrepancy, delta-ambiguity and the mean width of the
        ranges: ``value`` (NaN unless certified), ``lower``, ``upper`` and
        ``status``, indexed by measure."""
        rows = {name: _measure_row(lo, hi) for name, (lo, hi) in self.bounds.items()}
        r = {f: self.ranges[f].to_numpy() for f in (*RANGE_FIELDS, "width")}
        base = r["baseline"]
        # Attained moves (a model of the set) and certified limits.
        inner = np.maximum(r["upper"] - base, base - r["lower"])
        outer = np.maximum(r["upper_bound"] - base, base - r["lower_bound"])
        for delta in DELTAS:
            rows[f"delta_ambiguity({delta:g})"] = _measure_row(
                float(np.mean((inner > delta).any(axis=1))),
                float(np.mean((outer > delta).any(axis=1))),
            )
        rows["mean_width"] = _measure_row(
            float(np.mean(r["width"])),
            float(np.mean(r["upper_bound"] - r["lower_bound"])),
        )
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """Per group: ``n``, ``ambiguity_lower``, ``ambiguity_upper`` and
        ``mean_width`` (None without groups)."""
        if self.groups is None:
            return None
        contestable, undecided = self.flags()
        frame = pd.DataFrame(
            {
                "group": self.groups,
                "lower": contestable,
                "upper": contestable | undecided,
                "width": self.ranges["width"].to_numpy().mean(axis=1),
            }
        )
        return frame.groupby("group").agg(
            n=("width", "size"),
            ambiguity_lower=("lower", "mean"),
            ambiguity_upper=("upper", "mean"),
            mean_width=("width", "mean"),
        )

    def _label_text(self, mask):
        return [";".join(str(plain(c)) for c in self.classes[row]) for row in mask]

    def people(self):
        """Per training row (index ``row``): ``target``, ``group`` (with
        groups), ``baseline``, ``labels`` (every label a model of the set
        gives, ``;``-separated), ``labels_open``, ``contestable``,
        ``undecided``, ``reach_LABEL`` (yes, no or open) for every label,
        the per-label probability ranges (``baseline_LABEL``,
        ``lower_LABEL``, ``upper_LABEL``: attained; ``lower_bound_LABEL``,
        ``upper_bound_LABEL``: certified limits), ``ranges_certified`` and
        ``rashomon_capacity_lower``."""
        people = pd.DataFrame({"target": self.y})
        if self.groups is not None:
            people["group"] = self.groups
        people["baseline"] = self.baseline
        yes, open_ = self.label_masks()
        people["labels"] = self._label_text(yes)
        people["labels_open"] = self._label_text(open_)
        people["contestable"], people["undecided"] = self.flags()
        status = self.reach.to_numpy()
        columns = {}
        for k, label in enumerate(self.classes):
            columns[f"reach_{plain(label)}"] = status[:, k]
        for field in RANGE_FIELDS:
            block = self.ranges[field].to_numpy()
            for k, label in enumerate(self.classes):
                columns[f"{field}_{plain(label)}"] = block[:, k]
        people = pd.concat([people, pd.DataFrame(columns)], axis=1)
        people["ranges_certified"] = self.ranges["certified"].to_numpy().all(axis=1)
        people["rashomon_capacity_lower"] = self.capacity.to_numpy()
        people.index.name = "row"
        return people

    def models(self):
        """The baseline and the models of :attr:`witnesses`, one row per
        model and label (index ``model``, ``label``): the weights,
        ``intercept`` and ``objective`` (at most :meth:`objective_level`)."""
        names = self.dataset["feature_names"]
        found = {"baseline": self.auditor.estimator_}
        for (row, label), model in self.witnesses.items():
            found[f"row {row} gets {plain(label)}"] = model
        rows = {}
        for name, model in found.items():
            feats, coef, intercept = linear_parts(model, names)
            objective = self.auditor.objective(model)
            for k, label in enumerate(self.classes):
                rows[(name, plain(label))] = {
                    **dict(zip(feats, coef[k], strict=True)),
                    "intercept": intercept[k],
                    "objective": objective,
                }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.names = ["model", "label"]
        return frame

    # ---------------------------------------------------------------- status
    def unpinned(self):
        """What is not pinned, in words: the open pairs, the ranges, then
        each measure."""
        _, open_ = self.label_masks()
        parts = []
        if open_.any():
            parts.append(f"{int(open_.sum())} of {open_.size} (person, label) pairs")
        pinned = self.ranges["certified"].to_numpy()
        if not pinned.all():
            parts.append(f"{int((~pinned).sum())} of {pinned.size} probability ranges")
        return parts + [
            f"{name} (bounds only: [{lo:.4f}, {hi:.4f}])"
            for name, (lo, hi) in self.bounds.items()
            if not _pinned(lo, hi)
        ]

    @property
    def certified(self):
        """Whether every label, range and both measures are pinned."""
        return not self.unpinned()

    @property
    def decisions_certified(self):
        """Whether every person's labels are settled and the ambiguity is
        pinned (the discrepancy may stay a band)."""
        lower, upper = self.bounds["ambiguity"]
        return not self.label_masks()[1].any() and _pinned(lower, upper)

    # ---------------------------------------------------------------- output
    def to_dict(self):
        """Every number of the report, JSON-ready: measures with ``lower``
        and ``upper``, and a ``value`` only when certified."""
        a = self.auditor
        groups = self.group_table()
        yes, open_ = self.label_masks()
        contestable, undecided = self.flags()
        measures = records(self.measures())
        for row in measures:
            if row["status"] != "certified":
                del row["value"]
        return plain(
            {
                "measure": "probabilistic",
                "kind": "K-label",
                "dataset": self.dataset,
                "settings": {
                    k: v
                    for k, v in a.get_params(deep=False).items()
                    if v != "deprecated" and k != "threshold"
                }
                | {"estimator": repr(a.estimator)},
                "level_set": a.level_set_,
                "baseline_objective": a.baseline_objective_,
                "objective_level": a.objective_level(),
                "min_objective": list(a.min_objective_bounds_),
                "measures": measures,
                "labels": {
                    "n_pairs": int(yes.size),
                    "yes": int(yes.sum()),
                    "no": int(yes.size - yes.sum() - open_.sum()),
                    "open": int(open_.sum()),
                    "by_label": {
                        str(plain(c)): int(n)
                        for c, n in zip(self.classes, yes.sum(axis=0), strict=True)
                    },
                },
                "n_contestable": int(contestable.sum()),
                "n_undecided": int(undecided.sum()),
                "groups": None if groups is None else records(groups),
                "certified": self.certified,
                "n_certified_ranges": int(self.ranges["certified"].to_numpy().sum()),
                "n_ranges": int(self.ranges["certified"].size),
                "mean_rashomon_capacity_lower": float(self.capacity.mean()),
                "timings": self.timings,
                "versions": versions(),
            }
        )

    def summary(self):
        """The report as plain text for the terminal."""
        return summary_text(self)

    def write_plot(self, out):
        """Write ``label_ranges.png`` to ``out``; its path, or None without
        matplotlib."""
        return write_label_plot(self, Path(out) / "label_ranges.png")

    def html_section(self, image):
        """The audit as HTML, for the report beside a 0-1 audit."""
        return html_section(self, image, people_file="probabilistic_people.csv")

    def write(self, out):
        """Write ``report.json``, ``people.csv``, ``models.csv``,
        ``label_ranges.png`` (with matplotlib) and ``report.html`` to ``out``.

        Parameters
        ----------
        out : str or path-like

        Returns
        -------
        list of pathlib.Path
        """
        return write_report_files(
            self, out, lambda data, image, models: html_page(self, data, image, models)
        )
