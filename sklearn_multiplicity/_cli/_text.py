"""The text renderer: the terminal summary of any report, from the sentences
of :mod:`._sentences`."""

import pandas as pd

from .._core import certified as is_certified
from . import _sentences as say
from ._format import MEASURES


def summary(report):
    """The summary of ``report`` for the terminal.

    Parameters
    ----------
    report : DecisionsReport or ProbabilisticReport

    Returns
    -------
    str
    """
    if report.audit == "probabilistic":
        return "\n".join(_probabilistic_lines(report))
    return "\n".join(_decisions_lines(report))


def _decisions_lines(report):
    a, k_labels = report.auditor, report.k_labels
    n = report.n_people
    label = None if k_labels else report.sampling_label
    constant = say.constant_baseline(report)
    far = say.far_from_optimum(report)
    lines = [] if k_labels else [a.assessment_.text(), ""]
    lines.append(say.report_heading(report))
    lines += [f"Hypothesis class: {a.hypothesis_class_}", say.baseline_line(a)]
    if k_labels:
        lines.append(say.label_errors_line(report.label_errors()))
    else:
        lines.append(f"Baseline error rates: {say.rates_line(report.error_rates())}")
        lines += [] if constant is None else [constant]
        lines.append("Constraints in force: " + ("; ".join(a.constraints_) or "none"))
    lines.append(say.min_error_line(a))
    lines += [] if far is None else [far]
    lines.append(say.level_set_line(report))
    if report.suggestion is not None:
        lines.append(f"  eps chosen automatically: {report.suggestion.description}")
    measures = report.measures()
    lines += ["", compact(measures, MEASURES, label=label), ""]
    what = "label" if k_labels else "decision"
    lines += [
        say.in_words(name, row["lower"], row["upper"], n, report.budget, what=what)
        for name, row in measures.iterrows()
    ]
    if not k_labels:
        lines.append(f"Sampling: {report.sampling.comparison()}.")
    groups = report.group_table()
    if groups is not None:
        table = compact(groups, MEASURES, per_group=True, label=label)
        lines += ["", "By group:", table]
    if report.abstain:
        who = f"{n} people" if k_labels else f"contestable people of {n}"
        lines += [
            "",
            f"Abstaining on {who}: {say.abstention_line(report.abstention())}",
        ]
    lines += ["", say.people_line(report)]
    if k_labels:
        lines.append(say.path_line(report))
    lines.append(say.open_values_line(report.open_values()))
    if k_labels:
        lines.append(say.BINARY_ONLY_LINE)
    lines.append(say.timings_line(report.timings))
    return lines


def _probabilistic_lines(report):
    a = report.auditor
    lines = [
        say.report_heading(report),
        f"Level set: {a.level_set_}",
        say.log_loss_level_line(a),
        "",
        report.measures().to_string(float_format=lambda v: f"{v:.4f}", na_rep="-"),
        "",
    ]
    if report.multinomial:
        lines += [
            say.reachable_labels_line(report),
            say.probability_ranges_line(report),
            "Rashomon capacity (certified lower bound, in [1, "
            f"{len(report.classes)}]): mean {float(report.capacity.mean()):.4f}",
        ]
    else:
        lines.append(say.probability_ranges_line(report))
    lines.append(say.probabilistic_status_line(report))
    groups = report.group_table()
    if groups is not None:
        lines += ["", "By group:", groups.to_string(float_format="{:.4f}".format)]
    lines.append(say.timings_line(report.timings))
    return lines


def both_summary(both):
    """The summary of a :class:`~._both.BothReport`: the assessment, then
    both summaries, the certified one first, and how the two questions
    differ."""
    found = both.decisions.auditor.assessment_  # None for K labels
    assessment = "" if found is None else found.text()
    decisions = both.decisions.summary()
    if assessment and decisions.startswith(assessment):  # said once, at the top
        decisions = decisions[len(assessment) :].lstrip("\n")
    texts = {"decisions": decisions, "probabilistic": both.probabilistic.summary()}
    first = both.lead()
    second = "probabilistic" if first == "decisions" else "decisions"
    status = {
        name: "certified" if ok else "bands"
        for name, ok in (
            ("decisions", both.decisions_certified),
            ("probabilistic", both.probabilistic_certified),
        )
    }
    head = (
        f"Both level sets of one logistic model: the 0-1 audit "
        f"({status['decisions']}) and the probabilistic audit "
        f"({both.probabilistic.settles}: {status['probabilistic']}); the "
        f"{first} audit comes first.\n" + both.difference
    )
    rule = "\n" + "-" * 72 + "\n"
    return (
        "\n".join([assessment, "", head] if assessment else [head])
        + rule
        + texts[first]
        + rule
        + texts[second]
    )


# ------------------------------------------------------------ the tables
def _bounds_text(lower, upper):
    return f"[{lower:.2%}, {upper:.2%}]"


def _exact_text(lower, upper):
    """The value when the bounds pin it, else a dash: a band is not a value."""
    return f"{lower:.2%}" if is_certified(lower, upper) else "-"


def compact(frame, measures, per_group=False, label=None):
    """Terminal table: each measure's certified band first, then its exact
    value (only when the band is a point), status and sampled estimate
    (none when ``label`` is None)."""
    table = pd.DataFrame(index=frame.index)
    if per_group:
        table["n"] = frame["n"].map(lambda v: f"{v:g}")
    for name in measures:
        lower = frame[f"{name}_lower"] if per_group else frame["lower"]
        upper = frame[f"{name}_upper"] if per_group else frame["upper"]
        if per_group:
            table[f"{name} band"] = [
                _bounds_text(lo, hi) for lo, hi in zip(lower, upper, strict=True)
            ]
            table[name] = [
                _exact_text(lo, hi) for lo, hi in zip(lower, upper, strict=True)
            ]
        else:
            table.loc[name, "certified band"] = _bounds_text(lower[name], upper[name])
            table.loc[name, "exact"] = _exact_text(lower[name], upper[name])
            table.loc[name, "status"] = frame.loc[name, "status"]
            if label is not None:
                table.loc[name, label] = f"{frame.loc[name, label]:.2%}"
    if per_group and label is not None:
        column = f"ambiguity, {label}"
        table[column] = frame[column].map(lambda v: f"{v:.2%}")
    return table.to_string()
