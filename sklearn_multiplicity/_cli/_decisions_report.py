"""The report of an exact (0-1) audit, two labels or K: the measures, their
evidence and the labels the level set gives every person."""

import dataclasses

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from .._core import TOLERANCE, ClassBudget
from .._core import certified as is_certified
from .._core._validation import PerClassEpsilon
from .._estimators._auditor import MultiplicityAuditor
from .._estimators._epsilon import EpsilonSuggestion
from .._estimators._sampling import SamplingAuditor
from .._reporting._frame import MultiplicityFrame
from ._format import (
    CERTIFIED,
    MEASURES,
    plain,
    records,
    sampling_label,
    status_label,
    unwrap,
    versions,
)
from ._mip_log import summarize_mip_log
from ._plots import path_and_group_plots
from ._report import Report, label_text, measure_row, model_table
from ._sentences import BINARY_ONLY, far_from_optimum

#: The decision of a person whom a model of the level set decides otherwise.
ABSTAIN = "abstain"


@dataclasses.dataclass(eq=False)
class DecisionsReport(Report):
    """A completed exact audit of two labels or K.

    Build it with :func:`~._run.run_audit`. Every value is read from a fitted
    :class:`MultiplicityAuditor` with its certified bounds, so an audit
    stopped by a time limit is reported with its bounds and
    ``certified=False``. Two labels also have a sampled estimate and a
    tolerance that may have been suggested; K labels have the labels the
    level set gives every person.

    Attributes
    ----------
    auditor : MultiplicityAuditor
        The fitted auditor.
    epsilon : float or PerClassEpsilon
        The tolerance, or one per label.
    budget : float, ClassBudget or dict
        Largest error count of the level set at ``epsilon``: per kind of
        error (two labels) or ``{label: errors}`` on each true label (K
        labels) with per-label tolerances.
    path : pandas.DataFrame or None
        :meth:`MultiplicityAuditor.path` (None: no path was asked for).
    bounds : dict
        Certified ``(lower, upper)`` of ``"ambiguity"`` and ``"discrepancy"``.
    evidence : pandas.DataFrame
        :meth:`MultiplicityAuditor.evidence` at ``epsilon``.
    discrepancy_model : estimator or None
        The model of the level set that attains the discrepancy.
    frame : MultiplicityFrame or None
        Per-group measures, when groups were given.
    y, groups : ndarray of shape (n_samples,) (groups may be None)
        Training labels and groups.
    dataset : dict
        Description of the data (``source``, ``target``, ``feature_names``,
        ``n_rows``, ``classes``, ...).
    settings : dict
        The arguments of :func:`~._run.run_audit`.
    timings : dict
        Seconds of each stage of the audit, and their ``total``.
    abstain : bool
        Whether the report includes abstention.
    sampling : SamplingAuditor or None
        The sampled estimate around the same baseline (two labels).
    suggestion : EpsilonSuggestion or None
        How ``epsilon`` was chosen when it was ``"auto"`` (two labels).
    sampling_path : pandas.DataFrame or None
        :meth:`SamplingAuditor.path` (two labels).
    labels_found, labels_open : ndarray of bool, shape (n_samples, n_classes)
        Per training row (K labels), the labels (columns in
        ``auditor.classes_`` order) that a verified model of the level set
        gives it (the baseline's among them), and those a limit left
        unsettled. Their union is :meth:`MultiplicityAuditor.predict_set`.
    weight : ndarray of shape (n_samples,) or None
        How many people each row stands for (the distinct rows of a table
        read through dask; None: one each); every count is weighted by it.
    """

    auditor: MultiplicityAuditor
    epsilon: float | PerClassEpsilon
    budget: float | ClassBudget | dict
    path: pd.DataFrame | None
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
    sampling: SamplingAuditor | None = None
    suggestion: EpsilonSuggestion | None = None
    sampling_path: pd.DataFrame | None = None
    labels_found: np.ndarray | None = None
    labels_open: np.ndarray | None = None
    weight: np.ndarray | None = None

    audit = "decisions"

    @property
    def k_labels(self):
        """Whether the target has three labels or more."""
        return len(self.auditor.classes_) > 2

    @property
    def n_people(self):
        """The number of people audited (rows, or their total weight)."""
        return len(self.y) if self.weight is None else int(self.weight.sum())

    def count_people(self, mask):
        """How many people ``mask`` (per row) holds: an int."""
        if self.weight is None:
            return int(np.sum(mask))
        return int(self.weight[np.asarray(mask, dtype=bool)].sum())

    def _share(self, mask):
        """The share of the people that ``mask`` (per row) holds."""
        return float(np.average(np.asarray(mask, dtype=float), weights=self.weight))

    @property
    def per_label(self):
        """Whether the tolerance is one per label (per class)."""
        return isinstance(self.epsilon, PerClassEpsilon)

    @property
    def sampling_label(self):
        """Column label of the sampled estimates (what they compare)."""
        return sampling_label(self.sampling)

    # ---------------------------------------------------------------- tables
    def measures(self):
        """Both measures: ``value`` (NaN unless certified: a band is not a
        value), ``lower``, ``upper``, ``status`` and, for two labels, the
        sampled estimate; indexed by measure."""
        rows = {}
        for name in MEASURES:
            lower, upper = self.bounds[name]
            rows[name] = measure_row(lower, upper, status_label(lower, upper))
            if self.sampling is not None:
                estimate = getattr(self.sampling, name)(self.epsilon)
                rows[name][self.sampling_label] = estimate
        return pd.DataFrame.from_dict(rows, orient="index")

    def group_table(self):
        """:attr:`MultiplicityFrame.by_group` (None without groups), with the
        sampled ambiguity for two labels."""
        if self.frame is None:
            return None
        if self.sampling is None:
            return self.frame.by_group
        table = self.frame.by_group.copy()
        flipped = self.sampling.contestable(self.epsilon)
        weight = np.ones(len(self.y)) if self.weight is None else self.weight
        table[f"ambiguity, {self.sampling_label}"] = [
            float(np.average(flipped[on], weights=weight[on]))
            for on in (self.groups == g for g in table.index)
        ]
        return table

    def flags(self):
        """``(contestable, undecided)`` per training row: a verified model of
        the level set gives the row another label; or none is known and a
        limit left it open."""
        contestable = self.evidence["contestable"].to_numpy()
        if self.labels_found is None:
            return contestable, self.evidence["undecided"].to_numpy()
        contestable = contestable | (self.labels_found.sum(axis=1) > 1)
        return contestable, ~contestable & self.labels_open.any(axis=1)

    def people(self):
        """Per training row (index ``row``): ``target``, ``group`` (with
        groups), then for two labels every column of the evidence and
        ``sampling_contestable``; for K labels ``baseline``, ``labels`` (every
        label a verified model of the level set gives the row,
        ``;``-separated), ``labels_open`` (labels a limit left unsettled),
        ``contestable``, ``undecided`` and ``min_flip_errors``; with
        abstention, ``decision``."""
        people = pd.DataFrame({"target": self.y})
        if self.groups is not None:
            people["group"] = self.groups
        if self.k_labels:
            people["baseline"] = self.evidence["baseline"].to_numpy()
            people["labels"] = label_text(self.auditor.classes_, self.labels_found)
            people["labels_open"] = label_text(self.auditor.classes_, self.labels_open)
            people["contestable"], people["undecided"] = self.flags()
            people["min_flip_errors"] = self.evidence["min_flip_errors"].to_numpy()
        else:
            people = pd.concat([people, self.evidence.reset_index(drop=True)], axis=1)
            people["sampling_contestable"] = self.sampling.contestable(self.epsilon)
        if self.abstain:
            people["decision"] = self.decisions()
        if self.weight is not None:
            people["weight"] = self.weight
        people.index.name = "row"
        return people

    def decisions(self):
        """Per training row: the baseline's label, or ``"abstain"`` where a
        model of the level set decides otherwise (or a limit left that open).

        Returns
        -------
        ndarray of object, shape (n_samples,)
        """
        chosen = self.evidence["baseline"].to_numpy().astype(object)
        chosen[np.logical_or(*self.flags())] = ABSTAIN
        return chosen

    def abstention(self):
        """Coverage and accuracy of abstaining on the people whose decision
        may change.

        Returns
        -------
        dict
            ``n_decided``, ``coverage`` (share decided), ``decided_accuracy``
            (accuracy on the decided, ``nan`` when none is) and
            ``baseline_accuracy`` (on everyone).
        """
        chosen = self.decisions()
        y = np.asarray(self.y, dtype=object)
        decided = chosen != ABSTAIN
        baseline = self.evidence["baseline"].to_numpy().astype(object)
        right = chosen == y
        n_decided = self.count_people(decided)
        accuracy = (
            self.count_people(right & decided) / n_decided if n_decided else np.nan
        )
        return {
            "n_decided": n_decided,
            "coverage": self._share(decided),
            "decided_accuracy": float(accuracy),
            "baseline_accuracy": self._share(baseline == y),
        }

    def error_rates(self):
        """The baseline's false positives and false negatives, and their
        rates (two labels).

        Returns
        -------
        dict
            ``false_positives`` (of ``negatives``), ``false_negatives`` (of
            ``positives``), ``false_positive_rate`` and
            ``false_negative_rate``.
        """
        negative, positive = self.auditor.classes_
        y, baseline = self.y, self.evidence["baseline"].to_numpy()
        negatives, positives = (
            self.count_people(y == negative),
            self.count_people(y == positive),
        )
        fp = self.count_people((y == negative) & (baseline == positive))
        fn = self.count_people((y == positive) & (baseline == negative))
        return {
            "false_positives": fp,
            "negatives": negatives,
            "false_positive_rate": fp / negatives if negatives else float("nan"),
            "false_negatives": fn,
            "positives": positives,
            "false_negative_rate": fn / positives if positives else float("nan"),
        }

    def label_errors(self):
        """The baseline's errors on each true label (index ``label``):
        ``n``, ``errors``, ``error_rate`` and, per label, ``epsilon``,
        ``extra_errors`` and ``budget`` (its most errors on the label)."""
        baseline = self.evidence["baseline"].to_numpy()
        rows = {}
        for k, label in enumerate(self.auditor.classes_):
            on = self.y == label
            errors, n = (
                self.count_people(on & (baseline != label)),
                self.count_people(on),
            )
            rows[plain(label)] = {"n": n, "errors": errors, "error_rate": errors / n}
            if self.per_label:
                most = self.budget[label]
                rows[plain(label)].update(
                    epsilon=self.epsilon[k], extra_errors=most - errors, budget=most
                )
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "label"
        return frame

    def extra_errors(self):
        """The errors the tolerance allows beyond the baseline's: a number,
        per kind of error (two labels) or per true label (K labels)."""
        if not self.per_label:
            return self.budget - self.auditor.baseline_errors_
        if self.k_labels:
            return self.label_errors()["extra_errors"]
        rates = self.error_rates()
        return {
            kind: getattr(self.budget, kind) - rates[kind]
            for kind in ("false_positives", "false_negatives")
        }

    def models(self):
        """Weights of the baseline and of the discrepancy model (index
        ``model``, and ``label`` for K labels): the features, ``intercept``,
        ``n_errors`` and ``source``."""
        a = self.auditor
        name = type(unwrap(a.estimator_)).__name__
        found = {
            "baseline": (
                a.estimator_,
                {"n_errors": a.baseline_errors_, "source": f"baseline: {name}"},
            )
        }
        model = self.discrepancy_model
        if model is not None:
            last = model[-1] if isinstance(model, Pipeline) else model
            found["discrepancy"] = (
                model,
                {"n_errors": last.n_errors_, "source": last.source},
            )
        classes = a.classes_ if self.k_labels else None
        return model_table(found, self.dataset["feature_names"], classes)

    def path_table(self):
        """The path (None without one), one row per tolerance; for two
        labels with the sampled estimate at each tolerance beside it
        (``sampling_`` columns)."""
        if self.path is None or self.k_labels:
            return None if self.path is None else self.path.set_index("epsilon")
        sampling = self.sampling_path.add_prefix("sampling_")
        return pd.merge_asof(
            self.path,
            sampling.rename(columns={"sampling_epsilon": "epsilon"}),
            on="epsilon",
            direction="nearest",
            tolerance=TOLERANCE,
        ).set_index("epsilon")

    def plots(self, out):
        """The path plot and the group plot (with groups) in ``out``."""
        return path_and_group_plots(self, out)

    # ---------------------------------------------------------------- status
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
        if self.labels_open is not None:
            n_open = int(self.labels_open.any(axis=1).sum())
            if n_open:
                open_values.append(f"the labels of {n_open} people")
        return open_values

    # ---------------------------------------------------------------- output
    def _level_set(self):
        """Tolerance, extra errors and budget of the level set, JSON-ready."""
        budget = self.budget
        if isinstance(budget, ClassBudget):
            budget = {
                k: getattr(budget, k) for k in ("false_positives", "false_negatives")
            }
        elif self.per_label:
            budget = self.label_errors()["budget"].to_dict()
        extra = self.extra_errors()
        level_set = {
            "value": self.epsilon if self.per_label else float(self.epsilon),
            "per_label": self.per_label,
            "extra_errors": extra.to_dict() if hasattr(extra, "to_dict") else extra,
            "budget": budget,
        }
        if not self.k_labels:
            del level_set["per_label"]
        return level_set

    def to_dict(self):
        """Every number of the report, JSON-ready.

        Returns
        -------
        dict
        """
        a, k_labels = self.auditor, self.k_labels
        lo, hi = a.min_error_bounds_
        total = float(self.n_people)
        contestable, undecided = self.flags()
        groups = self.group_table()
        data = (
            {"kind": "K-class"} if k_labels else {"assessment": a.assessment_.as_dict()}
        )
        data["dataset"] = self.dataset
        data["settings"] = self.settings
        data["epsilon"] = {**self._level_set(), "method": "given"}
        if self.suggestion is not None:
            data["epsilon"]["method"] = "auto"
        if not k_labels:
            suggestion = self.suggestion
            data["epsilon"]["suggestion"] = (
                None if suggestion is None else dataclasses.asdict(suggestion)
            )
        data["hypothesis_class"] = a.hypothesis_class_
        if not k_labels:
            data["constraints"] = list(a.constraints_)
            data["abstention"] = self.abstention() if self.abstain else None
        baseline = {} if k_labels else self.error_rates()
        baseline.update(
            estimator=type(unwrap(a.estimator_)).__name__,
            errors=a.baseline_errors_,
            error=a.baseline_error_,
        )
        if k_labels:
            baseline["by_label"] = records(self.label_errors())
        else:
            baseline["constant"] = a.baseline_constant_class_ is not None
            baseline["constant_class"] = a.baseline_constant_class_
        baseline["min_error"] = {
            "lower": lo,
            "upper": hi,
            "lower_share": lo / total,
            "upper_share": hi / total,
            "status": status_label(lo, hi),
        }
        baseline["n_patterns"] = a.n_patterns_
        baseline["far_from_optimum"] = far_from_optimum(self)
        data["baseline"] = baseline
        measures = self.measures()
        for name, row in measures.iterrows():
            # A bound is named a bound: "value" only when certified.
            certified = row["status"] == CERTIFIED
            data[name] = {
                **row[["lower", "upper", "status"]].to_dict(),
                **({"value": row["value"]} if certified else {}),
                "certified": certified,
            }
        if not k_labels:
            label = self.sampling_label
            data["sampling"] = {
                "label": label,
                "compares": self.sampling.comparison(),
                "ambiguity": measures.loc["ambiguity", label],
                "discrepancy": measures.loc["discrepancy", label],
                "n_models": self.sampling.n_models_,
                "n_models_in_set": int(self.sampling.in_level_set(self.epsilon).sum()),
            }
        data["groups"] = None if groups is None else records(groups)
        path = self.path
        data["path"] = None if path is None else records(path.set_index("epsilon"))
        if k_labels:
            data["abstention"] = self.abstention() if self.abstain else None
        else:
            data["sampling_path"] = records(self.sampling_path.set_index("epsilon"))
        data["certified"] = self.certified
        data["n_contestable"] = self.count_people(contestable)
        data["n_undecided"] = self.count_people(undecided)
        if k_labels:
            data["binary_only"] = BINARY_ONLY
        data["mip_log"] = summarize_mip_log(a.mip_log_)
        data["timings"] = self.timings
        data["versions"] = versions()
        return plain(data)
