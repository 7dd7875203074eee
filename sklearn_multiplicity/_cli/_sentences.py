"""The sentences of the reports, said once for the terminal and the HTML page.

Each function reads a report (or a value of one) and returns plain text; the
text renderer prints it, the HTML renderer escapes it. Two labels and K
labels share a sentence wherever they say the same thing, and name their
difference (a decision or a label, per class or per label) where they do
not.
"""

import numpy as np

from .._core import ClassBudget
from .._core import certified as is_certified
from .._core._validation import PerClassEpsilon
from .._reporting._warnings import baseline_gap_words
from ._format import plain, status_label, unwrap

#: How the two audits of one logistic model differ, for every output.
DIFFERENCE = (
    "The two audits ask different questions of the same logistic model: the "
    "0-1 audit counts the decisions that models within eps of the class's best "
    "error rate would change; the probabilistic audit bounds how far the "
    "predicted probabilities of models within eps nats of the best mean "
    "log-loss can move, and which decisions at the threshold they change."
)
#: The same sentence for a target of 3 to 20 labels.
LABELS_DIFFERENCE = (
    "The two audits ask different questions of the same multinomial logistic "
    "model: the 0-1 audit counts the labels that models within eps of the "
    "class's best error rate would change; the probabilistic audit bounds how "
    "far the predicted probabilities of models within eps nats of the best "
    "mean log-loss can move, and which labels (the most probable) they give."
)

#: What the command line gives two labels only, and why, in one line each.
BINARY_ONLY = {
    "epsilon auto": "its bootstrap interval is of a binary error",
    "sampled estimate": "the pool of logistic regressions is binary",
    "coefficient ranges": "the auditor computes them for two labels",
    "constraints": "the constrained classes are binary",
}
BINARY_ONLY_LINE = (
    "For two labels only: --epsilon auto, the sampled estimate, "
    "coefficient ranges and constraints."
)


# --------------------------------------------------------------- the answer
#: Groups named one by one in the answer; more are counted.
SHOWN_GROUPS = 8


def band_words(lower, upper):
    """A share as a percentage, or its certified band ``a%–b%``."""
    if is_certified(lower, upper):
        return f"{lower:.1%}"
    return f"{lower:.1%}\u2013{upper:.1%}"


def share_words(lower, upper, n):
    """A share of ``n`` people in words: exactly ``a%`` (how many people), or
    between ``a%`` and ``b%`` when the bounds leave a band."""
    if is_certified(lower, upper):
        return f"exactly {lower:.1%} ({round(lower * n)} people)"
    return (
        f"between {lower:.1%} and {upper:.1%} ({round(lower * n)} to "
        f"{round(upper * n)} people)"
    )


def _plural(count, word):
    return f"{count:g} {word}{'' if count == 1 else 's'}"


def allowance_words(report):
    """How much less accurate than the baseline a model of a 0-1 audit's
    level set may be: its extra errors (in all, per kind of error or per
    true label) and the tolerance."""
    extra = report.extra_errors()
    if not report.per_label:
        more = (
            f"at most {_plural(extra, 'more training error')} than its "
            f"{report.auditor.baseline_errors_:g}"
        )
    elif report.k_labels:
        more = "at most " + ", ".join(
            f"{_plural(v, 'more error')} on {k!r}" for k, v in extra.items()
        )
    else:
        more = (
            f"at most {_plural(extra['false_positives'], 'more false positive')} "
            f"and {_plural(extra['false_negatives'], 'more false negative')}"
        )
    return f"{more} ({tolerance_words(report)})"


def answer_lines(report):
    """The answer of a 0-1 audit in plain words with its numbers: how many
    people a model almost as accurate as the baseline decides otherwise, and
    how many one such model does."""
    n = report.n_people
    what = "label" if report.k_labels else "decision"
    other = "another label" if report.k_labels else "a different decision"
    lines = [
        f"Out of {n} people, {share_words(*report.bounds['ambiguity'], n)} could "
        f"get {other} from a model almost as accurate as the audited one: "
        f"{allowance_words(report)}.",
        f"One such model alone would change the {what} of "
        f"{share_words(*report.bounds['discrepancy'], n)}.",
    ]
    return lines + _group_answer(report, other)


def probabilistic_answer_lines(report):
    """The answer of a probabilistic audit in the words of
    :func:`answer_lines`: the decisions (or labels) that logistic models
    within the tolerance in log-loss change."""
    n, a = report.n_people, report.auditor
    if report.multinomial:
        what, other = "label", "another label (the most probable)"
    else:
        what, other = "decision", f"a different decision (at {a.threshold:g})"
    lines = [
        f"Out of {n} people, {share_words(*report.bounds['ambiguity'], n)} could "
        f"get {other} from a model almost as good as the audited one: a mean "
        f"log-loss at most {a.log_loss_epsilon:g} nats above the best's.",
        f"One such model alone would change the {what} of "
        f"{share_words(*report.bounds['discrepancy'], n)}.",
    ]
    return lines + _group_answer(report, other)


def _group_answer(report, other):
    """The ambiguity of each group in one sentence (none without groups)."""
    table = report.group_table()
    if table is None:
        return []
    bounds = (
        ("ambiguity_lower", "ambiguity_upper")
        if "ambiguity_lower" in table
        else ("ambiguity", "ambiguity")
    )
    words = [
        f"{plain(g)} {band_words(row[bounds[0]], row[bounds[1]])}"
        for g, row in table.iterrows()
    ]
    more = len(words) - SHOWN_GROUPS
    shown = ", ".join(words[:SHOWN_GROUPS]) + (f" and {more} more" if more > 0 else "")
    name = report.dataset.get("groups")
    by = f"By group ({name!r})" if name else "By group"
    return [f"{by}: {shown} could get {other}."]


def groups_feature_line(dataset):
    """Whether the groups column is a feature of the model, or ``None``
    when the report names no groups column."""
    name = dataset.get("groups")
    if name is None:
        return None
    if dataset.get("groups_as_feature"):
        return (
            f"The column {name!r} defines the groups and is also a feature of "
            "the model (--keep-groups-as-feature)."
        )
    return (
        f"The column {name!r} defines the groups and is not used as a feature "
        "by the model; pass --keep-groups-as-feature to keep it."
    )


# ------------------------------------------------- what limited the answer
def time_limit_words(settings, undecided, n):
    """That a time limit stopped the solver, with the limits in force and
    the people it left undecided."""
    limits = []
    if settings.get("total_time_limit") is not None:
        limits.append(f"--total-time-limit {settings['total_time_limit']:g} s")
    if settings.get("time_limit") is not None:
        limits.append(f"{settings['time_limit']:g} s per MIP")
    people = f"{undecided} of the {n} people are undecided and " if undecided else ""
    return (
        "A time limit stopped the solver before it closed every band"
        + (f" ({', '.join(limits)})" if limits else "")
        + f": {people}the shares are certified bounds, not exact values."
    )


def continuous_words(dataset):
    """That continuous features slow the exact audit, or ``None``."""
    k = dataset.get("n_continuous_features", 0)
    if not k:
        return None
    return (
        f"{k} of the {len(dataset['feature_names'])} feature columns are "
        "continuous (not 0/1), which makes the exact search slow; --binarize "
        "thresholds them at their quartiles."
    )


def limit_lines(report):
    """What limited a 0-1 audit's answer, in plain words: a time limit,
    continuous features, a baseline far from the optimum or a constant one
    (empty when nothing did)."""
    lines = []
    if report.open_values():
        undecided = report.count_people(report.flags()[1])
        lines.append(time_limit_words(report.settings, undecided, report.n_people))
        lines.append(continuous_words(report.dataset))
    far = far_from_optimum(report)
    lines += [constant_baseline(report), None if far is None else far[len("NOTE: ") :]]
    return [line for line in lines if line is not None]


#: Routes that need the rows in memory: not offered for a table read
#: through dask (its distinct rows, weighted), whose audit refuses them.
ROUTES_NEEDING_ROWS = ("sample", "probabilistic")


def route_lines(report):
    """What would sharpen an answer that a limit left open: the
    assessment's routes, or more time (empty when every value is
    certified)."""
    if not report.open_values():
        return []
    assessment = getattr(report.auditor, "assessment_", None)
    routes = () if assessment is None else assessment.routes
    if report.dataset.get("read_through_dask"):
        routes = [r for r in routes if r.name not in ROUTES_NEEDING_ROWS]
    if routes:
        return [f"{route.action} {route.effect}" for route in routes]
    limit = report.settings.get("total_time_limit")
    now = "" if limit is None else f", above {limit:g} s"
    return [f"Allow more time (--total-time-limit{now}): the bands tighten."]


#: The line when nothing limited the answer.
NOTHING_LIMITED = "Every value is certified: nothing limited the answer."


# ----------------------------------------------------------- solver detail
def mip_count_line(mip_log):
    """The solves of an audit (its ``summarize_mip_log``) in one line."""
    statuses = ", ".join(f"{v} {k}" for k, v in mip_log["by_status"].items())
    return f"MIPs: {mip_log['n_mips']} solved in {mip_log['total_seconds']:.1f} s" + (
        f" ({statuses})" if statuses else ""
    )


#: What the assessment's reasons are, introducing them.
REASONS_HEADING = "What the assessment read before any MIP ran:"


# ----------------------------------------------------------------- the data
def report_heading(report):
    """The first line of a report's summary and page: the audit, of which
    data, how many people and features, and the target's labels."""
    d, classes = report.dataset, report.auditor.classes_
    if report.audit == "probabilistic":
        audit = "Probabilistic audit"
    else:
        audit = "K-class audit" if report.k_labels else "Audit"
    if len(classes) == 2:
        labels = f"(positive class {d['classes'][1]!r})"
    else:
        names = ", ".join(str(plain(c)) for c in classes)
        labels = f"with {len(classes)} labels ({names})"
        if report.audit == "probabilistic":
            labels += "; a decision is the most probable label"
    return (
        f"{audit} of {d['source']}: {report.n_people} people, "
        f"{len(d['feature_names'])} features, target {d.get('target')!r} {labels}"
    )


def timings_line(timings):
    """The seconds of each stage and their total."""
    return "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())


# -------------------------------------------------------- the 0-1 baseline
def baseline_line(auditor):
    """The baseline and its training errors."""
    return (
        f"Baseline ({type(unwrap(auditor.estimator_)).__name__}): "
        f"{auditor.baseline_errors_:g} training errors ({auditor.baseline_error_:.2%})"
    )


def min_error_line(auditor):
    """The class's certified minimum error and its status."""
    lo, hi = auditor.min_error_bounds_
    return (
        f"Certified minimum error of the class: [{lo:g}, {hi:g}] errors "
        f"({status_label(lo, hi)})"
    )


def rates_line(rates):
    """The two error rates of a report's ``error_rates()`` in words."""
    return (
        f"false positive rate {rates['false_positive_rate']:.2%} "
        f"({rates['false_positives']} of {rates['negatives']} negatives), "
        f"false negative rate {rates['false_negative_rate']:.2%} "
        f"({rates['false_negatives']} of {rates['positives']} positives)"
    )


def label_errors_line(table):
    """The baseline's errors on each true label (a report's
    ``label_errors()``) in words."""
    return "Baseline errors by true label: " + ", ".join(
        f"{k!r} {row['errors']:g} of {row['n']:g} ({row['error_rate']:.2%})"
        for k, row in table.iterrows()
    )


def constant_baseline(report):
    """What a constant baseline means for the audit, or ``None``: when the
    baseline predicts one class for every training row, the class and the
    certified minimum error beside the baseline's errors."""
    a = report.auditor
    label = getattr(a, "baseline_constant_class_", None)
    if label is None or report.k_labels:
        return None
    lo, hi = a.min_error_bounds_
    return (
        f"WARNING: the baseline is constant: it predicts {plain(label)!r} for "
        f"all {report.n_people} people ({a.baseline_errors_:g} "
        f"errors; the class's certified minimum is [{lo:g}, {hi:g}]). The "
        "level set is built around it: the measures count the people whom "
        f"models of the level set decide otherwise than {plain(label)!r}."
    )


def far_from_optimum(report):
    """What the ambiguity measures when models of the class err less than the
    baseline by more than the tolerance allows, or ``None``: the library's
    sentence (:func:`~.._reporting._warnings.baseline_gap_words`), the one
    its :class:`BaselineGapWarning` says.

    A model with ``upper`` errors (the minimum error's upper bound) is
    verified, so the gap it shows is certain.
    """
    a = report.auditor
    if constant_baseline(report) is not None:
        return None  # said by constant_baseline
    lo, hi = a.min_error_bounds_
    base = a.baseline_errors_
    words = baseline_gap_words(
        base, hi, total_budget(report.budget) - base, min_error=(lo, hi)
    )
    return None if words is None else f"NOTE: {words}"


# ---------------------------------------------------------- the level set
def total_budget(budget):
    """The most errors in all of a budget (a number, a :class:`ClassBudget`
    or ``{label: errors}``)."""
    if isinstance(budget, dict):
        return sum(budget.values())
    return getattr(budget, "total", budget)


def budget_words(budget):
    """A level set's error budget (a number, a per-class
    :class:`~.._core.ClassBudget`, or a dict of the most errors on each
    true label) in words."""
    if isinstance(budget, dict):
        return "at most " + ", ".join(
            f"{v:g} error{'' if v == 1 else 's'} on {plain(k)!r}"
            for k, v in budget.items()
        )
    if isinstance(budget, ClassBudget):
        return (
            f"at most {budget.false_positives:g} false positives and "
            f"{budget.false_negatives:g} false negatives"
        )
    return f"at most {budget:g} training errors"


def _pairs(epsilon):
    return ", ".join(
        f"{plain(k)!r}: {v:g}" for k, v in zip(epsilon.labels, epsilon, strict=True)
    )


def tolerance_words(report):
    """``eps = ...``: the tolerance, or one per label."""
    if not report.per_label:
        return f"eps = {report.epsilon:.4g}"
    if report.k_labels:
        return f"eps = {{{_pairs(report.epsilon)}}} per label"
    return f"eps = {report.epsilon:.4g} per class"


def level_set_line(report):
    """The level set in one line: the tolerance, the extra errors it allows
    and the budget (per kind of error, or per true label)."""
    extra = report.extra_errors()
    if not report.per_label:
        return (
            f"Level set: {tolerance_words(report)} -> {extra:g} extra errors "
            f"(at most {report.budget:g} errors)"
        )
    if report.k_labels:
        return (
            f"Level set: {tolerance_words(report)} -> extra errors "
            + ", ".join(f"{v:g} on {k!r}" for k, v in extra.items())
            + f" ({budget_words(report.budget)})"
        )
    return (
        f"Level set: {tolerance_words(report)} -> "
        f"{extra['false_positives']:g} extra false positives and "
        f"{extra['false_negatives']:g} extra false negatives "
        f"({budget_words(report.budget)})"
    )


# --------------------------------------------------------------- people
def abstention_line(a):
    """Abstention results (a report's ``abstention()``, or read back from
    JSON, where a missing accuracy is ``None``) in words."""
    accuracy = a["decided_accuracy"]
    if a["n_decided"] == 0 or accuracy is None or np.isnan(accuracy):
        on_them = "no accuracy to report"
    else:
        on_them = f"accuracy on them {accuracy:.1%}"
    return (
        f"decides {a['n_decided']} ({a['coverage']:.1%}), {on_them} (baseline "
        f"on everyone {a['baseline_accuracy']:.1%})"
    )


def people_line(report):
    """How many people a model of the level set decides otherwise."""
    contestable, undecided = (int(flag.sum()) for flag in report.flags())
    stopped = " (a limit stopped their MIPs)" if undecided else ""
    if not report.k_labels:
        return (
            f"Contestable people: {contestable} certified contestable, "
            f"{undecided} undecided{stopped}"
        )
    return (
        f"People whose label may change: {contestable} certified, "
        f"{undecided} undecided{stopped}; people.csv lists every label the "
        "level set gives each person"
    )


def open_values_line(open_values):
    """What a report leaves open (its ``open_values()``), or that nothing is."""
    if open_values:
        return "Not certified (bounds only): " + "; ".join(open_values)
    return "Every value above is certified."


# ----------------------------------------------------------------- path
def path_line(report):
    """The path of a K-label audit in one line."""
    path = report.path
    if path is None:
        return "Path: none"
    where = "(path.csv, path.png, report.json, report.html)"
    top = report.settings["max_epsilon"]
    if isinstance(top, PerClassEpsilon):
        return (
            f"Path: {len(path)} steps of the per-label tolerances, each label's "
            f"growing by the same step up to {{{_pairs(top)}}} (each capped at "
            f"its own) {where}"
        )
    return (
        f"Path: {len(path)} tolerances from eps = {path['epsilon'].min():.4g} "
        f"to {path['epsilon'].max():.4g} {where}"
    )


def path_table_line(report):
    """What the path's table (``path.csv``) holds, in one line."""
    return (
        f"The path's table: {len(report.path)} rows, one per tolerance, with "
        "the budget and both measures' certified bounds"
        + ("" if report.k_labels else " beside the sampled estimate")
    )


def path_words(report):
    """What the path's columns are, in one sentence (K labels)."""
    if not isinstance(report.settings["max_epsilon"], PerClassEpsilon):
        return "One row per tolerance: its extra errors and budget, both measures."
    return (
        "Each step grows every label's tolerance by the same amount, capped at "
        "its own maximum: epsilon is the step's common rate, epsilon_LABEL each "
        "label's tolerance, budget_LABEL the most errors on its rows and "
        "budget their sum."
    )


# --------------------------------------------------------- probabilistic
def log_loss_level_line(auditor):
    """The objective's level that bounds the log-loss level set."""
    return (
        f"  objective at most {auditor.objective_level():.6g} "
        f"(baseline {auditor.baseline_objective_:.6g} + eps "
        f"{auditor.log_loss_epsilon:g} nats of mean log-loss)"
    )


def probability_ranges_line(report):
    """The viable prediction ranges (two labels) or per-label probability
    ranges (K labels): their median width and how many are certified."""
    r, tol = report.ranges, report.auditor.tol
    pinned = r["certified"].to_numpy()
    if not report.multinomial:
        return (
            f"Viable prediction ranges: median width {r['width'].median():.4f}, "
            f"{int(pinned.sum())} of {len(r)} certified within {tol:g}"
        )
    return (
        "Per-label probability ranges (certified brackets: [lower, upper] "
        "attained, [lower_bound, upper_bound] never passed): median width "
        f"{float(np.median(r['width'].to_numpy())):.4f}, {int(pinned.sum())} of "
        f"{pinned.size} certified within {tol:g}"
    )


def reachable_labels_line(report):
    """The labels the log-loss level set gives each person (K labels)."""
    yes, open_ = report.label_masks()
    contestable, undecided = report.flags()
    n_pairs = yes.size
    return (
        f"Labels the level set gives each person: {n_pairs - int(open_.sum())} of "
        f"{n_pairs} (person, label) pairs settled, {int(open_.sum())} open; "
        f"{int(contestable.sum())} people get another label from a model of "
        f"the set, {int(undecided.sum())} undecided"
    )


def probabilistic_status_line(report):
    """What the probabilistic audit leaves open, or that nothing is."""
    open_values = report.open_values()
    if open_values:
        return "Not certified: " + ", ".join(open_values)
    every = "every label, every range, " if report.multinomial else "every range, "
    return "All certified: " + every + " and ".join(report.bounds)


def stage_words(name, found):
    """What a stage of a K-label probabilistic audit ``found``, in words."""
    if name == "fit":
        lo, hi = found.min_objective_bounds_
        return (
            f"fitted; baseline objective {found.baseline_objective_:.6g}, "
            f"certified minimum [{lo:.6g}, {hi:.6g}]"
        )
    if name == "labels":
        status = found.to_numpy()
        n_open = int((status == "open").sum())
        return (
            f"labels: {status.size - n_open} of {status.size} pairs settled, "
            f"{n_open} open"
        )
    if name == "measures":
        return ", ".join(
            f"{measure} [{lo:.4f}, {hi:.4f}]" for measure, (lo, hi) in found.items()
        )
    if name == "ranges":
        pinned = found[0]["certified"].to_numpy()
        return f"probability ranges: {int(pinned.sum())} of {pinned.size} certified"
    return f"{len(found)} model{'' if len(found) == 1 else 's'} of the set"
