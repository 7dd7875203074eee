"""The report of a probabilistic audit, two labels or K: the viable
prediction ranges of a logistic regression over its log-loss level set, the
measures and, for K labels, the labels the level set gives each person."""

import dataclasses

import numpy as np
import pandas as pd

from .._core import certified
from .._probabilistic import ProbabilisticAuditor
from ._format import plain, records, versions
from ._plots import probability_range_plot
from ._report import Report, label_text, measure_row, model_table

#: The shifts of a probability that delta-ambiguity is read at.
DELTAS = (0.05, 0.1, 0.2)
#: The readings of :meth:`ProbabilisticAuditor.viable_prediction_range`
#: copied into ``people.csv`` for K labels, one column per label each.
RANGE_FIELDS = ("baseline", "lower", "upper", "lower_bound", "upper_bound")


def pinned(lower, upper):
    """Whether a measure's certified bounds pin its value (the library's one
    meaning of certified, :func:`~.._core.certified`)."""
    return certified(lower, upper)


def _row(lower, upper):
    return measure_row(lower, upper, "certified" if pinned(lower, upper) else "bounds")


@dataclasses.dataclass(eq=False)
class ProbabilisticReport(Report):
    """A completed probabilistic audit of two labels or K.

    Build it with :func:`~._run.run_probabilistic_audit`.

    Attributes
    ----------
    auditor : ProbabilisticAuditor
    ranges : pandas.DataFrame
        :meth:`ProbabilisticAuditor.viable_prediction_range` of the training
        rows: for two labels with each person's ``rashomon_capacity``; for K
        labels certified brackets per label, columns ``(field, label)``.
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    y, groups : ndarray
    dataset, timings : dict
    reach : pandas.DataFrame or None
        :meth:`ProbabilisticAuditor.reachable_labels` (K labels): ``"yes"``,
        ``"no"`` or ``"open"`` per person and label.
    capacity : pandas.Series or None
        :meth:`ProbabilisticAuditor.rashomon_capacity` (K labels): certified
        lower bounds.
    baseline : ndarray of shape (n_samples,) or None
        The baseline's label of every training row (K labels).
    witnesses : dict or None
        ``{(row, label): model}`` (K labels): models of the set giving the
        most contested person each of its other labels.
    """

    auditor: ProbabilisticAuditor
    ranges: pd.DataFrame
    bounds: dict
    y: np.ndarray
    groups: np.ndarray | None
    dataset: dict
    timings: dict
    reach: pd.DataFrame | None = None
    capacity: pd.Series | None = None
    baseline: np.ndarray | None = None
    witnesses: dict | None = None

    audit = "probabilistic"

    @property
    def multinomial(self):
        """Whether a decision is the most probable label (K labels), not the
        probability against the threshold."""
        return self.reach is not None

    k_labels = multinomial

    @property
    def settles(self):
        """What must be certified for this audit to lead the report beside a
        0-1 audit."""
        return ("labels" if self.multinomial else "ranges") + " and ambiguity"

    @property
    def classes(self):
        """The labels, in the order of the per-label columns."""
        return self.auditor.classes_

    # ---------------------------------------------------------------- tables
    def label_masks(self):
        """``(yes, open)`` (K labels): boolean arrays (n_samples, n_labels)
        of the labels a model of the set gives each person and of those
        left open."""
        status = self.reach.to_numpy()
        return status == "yes", status == "open"

    def flags(self):
        """``(contestable, undecided)`` per person (K labels): a model of the
        set gives another label than the baseline's; or none is known and
        some other label is open."""
        yes, open_ = self.label_masks()
        other = self.classes[None, :] != self.baseline[:, None]
        contestable = (yes & other).any(axis=1)
        return contestable, ~contestable & (open_ & other).any(axis=1)

    def measures(self):
        """Ambiguity, discrepancy, delta-ambiguity and the mean width of the
        ranges: ``value`` (NaN unless certified), ``lower``, ``upper`` and
        ``status``, indexed by measure."""
        rows = {name: _row(lo, hi) for name, (lo, hi) in self.bounds.items()}
        if not self.multinomial:
            for delta in DELTAS:
                value = self.auditor.delta_ambiguity(delta=delta)
                rows[f"delta_ambiguity({delta:g})"] = _row(value, value)
            width = float(self.ranges["width"].mean())
            rows["mean_width"] = measure_row(width, width, "attained")
            rows["mean_width"]["value"] = width
            return pd.DataFrame.from_dict(rows, orient="index")
        r = {f: self.ranges[f].to_numpy() for f in (*RANGE_FIELDS, "width")}
        base = r["baseline"]
        # Attained moves (a model of the set) and certified limits.
        inner = np.maximum(r["upper"] - base, base - r["lower"])
        outer = np.maximum(r["upper_bound"] - base, base - r["lower_bound"])
        for delta in DELTAS:
            rows[f"delta_ambiguity({delta:g})"] = _row(
                float(np.mean((inner > delta).any(axis=1))),
                float(np.mean((outer > delta).any(axis=1))),
            )
        rows["mean_width"] = _row(
            float(np.mean(r["width"])),
            float(np.mean(r["upper_bound"] - r["lower_bound"])),
        )
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """Per group: people, ambiguity and mean width (None without
        groups); for K labels the ambiguity's ``lower`` and ``upper``."""
        if self.groups is None:
            return None
        if not self.multinomial:
            r, t = self.ranges, self.auditor.threshold
            flips = np.where(r.baseline > t, r.lower <= t, r.upper > t)
            frame = pd.DataFrame(
                {"group": self.groups, "ambiguity": flips, "width": r["width"]}
            )
            return frame.groupby("group").agg(
                n=("width", "size"),
                ambiguity=("ambiguity", "mean"),
                width=("width", "mean"),
            )
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

    def people(self):
        """Per training row (index ``row``): ``target``, ``group`` (with
        groups), then for two labels the range and its capacity; for K
        labels ``baseline``, ``labels`` (every label a model of the set
        gives, ``;``-separated), ``labels_open``, ``contestable``,
        ``undecided``, ``reach_LABEL`` (yes, no or open) for every label,
        the per-label probability ranges (``baseline_LABEL``,
        ``lower_LABEL``, ``upper_LABEL``: attained; ``lower_bound_LABEL``,
        ``upper_bound_LABEL``: certified limits), ``ranges_certified`` and
        ``rashomon_capacity_lower``."""
        if not self.multinomial:
            people = self.ranges.reset_index(drop=True).copy()
            people.insert(0, "target", self.y)
            if self.groups is not None:
                people.insert(1, "group", self.groups)
            people.index.name = "row"
            return people
        people = pd.DataFrame({"target": self.y})
        if self.groups is not None:
            people["group"] = self.groups
        people["baseline"] = self.baseline
        yes, open_ = self.label_masks()
        people["labels"] = label_text(self.classes, yes)
        people["labels_open"] = label_text(self.classes, open_)
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
        """The baseline and the models of the set that answer the audit, with
        their ``objective`` (at most the level set's): for two labels the two
        attaining the widest range; for K labels those of :attr:`witnesses`,
        one row per model and label."""
        a = self.auditor
        found = {"baseline": a.estimator_}
        if self.multinomial:
            for (row, label), model in self.witnesses.items():
                found[f"row {row} gets {plain(label)}"] = model
        else:
            widest = int(np.argmax(self.ranges["width"].to_numpy()))
            low, high = a.extreme_models(widest)
            found[f"lowest for row {widest}"] = low
            found[f"highest for row {widest}"] = high
        models = {
            name: (model, {"objective": a.objective(model)})
            for name, model in found.items()
        }
        classes = self.classes if self.multinomial else None
        return model_table(models, self.dataset["feature_names"], classes)

    def plots(self, out):
        """The plot of the probability ranges in ``out`` (``{"ranges":
        path}``; empty without matplotlib)."""
        image = probability_range_plot(self, out)
        return {} if image is None else {"ranges": image}

    # ---------------------------------------------------------------- status
    def open_values(self):
        """What is not pinned, in words: the open pairs (K labels), the
        ranges, then each measure (empty when every value is certified)."""
        parts = []
        if self.multinomial:
            _, open_ = self.label_masks()
            if open_.any():
                parts.append(
                    f"{int(open_.sum())} of {open_.size} (person, label) pairs"
                )
            ranges = self.ranges["certified"].to_numpy()
            if not ranges.all():
                parts.append(
                    f"{int((~ranges).sum())} of {ranges.size} probability ranges"
                )
        else:
            n, certified = len(self.ranges), int(self.ranges["certified"].sum())
            if certified != n:
                parts.append(f"{n - certified} of {n} ranges")
        return parts + [
            f"{name} (bounds only: [{lo:.2%}, {hi:.2%}])"
            for name, (lo, hi) in self.bounds.items()
            if not pinned(lo, hi)
        ]

    @property
    def decisions_certified(self):
        """Whether every person's decisions are settled (every range, or
        every label) and the ambiguity is pinned (the discrepancy, a
        non-convex question, may stay a band)."""
        if self.multinomial:
            settled = not self.label_masks()[1].any()
        else:
            settled = bool(self.ranges["certified"].all())
        return settled and pinned(*self.bounds["ambiguity"])

    # ---------------------------------------------------------------- output
    def to_dict(self):
        """Every number of the report, JSON-ready: measures with ``lower``
        and ``upper``, and (K labels) a ``value`` only when certified."""
        a, multinomial = self.auditor, self.multinomial
        groups = self.group_table()
        measures = records(self.measures())
        data = {"measure": "probabilistic"}
        if multinomial:
            data["kind"] = "K-label"
            for row in measures:
                if row["status"] != "certified":
                    del row["value"]
        # The report keeps its key "epsilon" for the tolerance in nats.
        named = {
            ("epsilon" if k == "log_loss_epsilon" else k): v
            for k, v in a.get_params(deep=False).items()
            if v != "deprecated"  # a renamed parameter left unset
            and not (multinomial and k == "threshold")
        }
        settings = dict(sorted(named.items()))
        data.update(
            dataset=self.dataset,
            settings=settings | {"estimator": repr(a.estimator)},
            level_set=a.level_set_,
            baseline_objective=a.baseline_objective_,
            objective_level=a.objective_level(),
            min_objective=list(a.min_objective_bounds_),
            measures=measures,
        )
        if multinomial:
            yes, open_ = self.label_masks()
            contestable, undecided = self.flags()
            data["labels"] = {
                "n_pairs": int(yes.size),
                "yes": int(yes.sum()),
                "no": int(yes.size - yes.sum() - open_.sum()),
                "open": int(open_.sum()),
                "by_label": {
                    str(plain(c)): int(n)
                    for c, n in zip(self.classes, yes.sum(axis=0), strict=True)
                },
            }
            data["n_contestable"] = int(contestable.sum())
            data["n_undecided"] = int(undecided.sum())
        data["groups"] = None if groups is None else records(groups)
        data["certified"] = self.certified
        data["n_certified_ranges"] = int(self.ranges["certified"].to_numpy().sum())
        if multinomial:
            data["n_ranges"] = int(self.ranges["certified"].size)
            data["mean_rashomon_capacity_lower"] = float(self.capacity.mean())
        data["timings"] = self.timings
        data["versions"] = versions()
        return plain(data)

    def write_plot(self, out):
        """Write the plot of the ranges to ``out``; its path, or None
        without matplotlib."""
        return probability_range_plot(self, out)
