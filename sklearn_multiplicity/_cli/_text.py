"""The text renderer: the terminal summary of any report, from the sentences
of :mod:`._sentences`."""

import pandas as pd

from .._core import certified as is_certified
from . import _sentences as say
from ._format import MEASURES, shown_as_percentages
from ._mip_log import summarize_mip_log


def summary(report):
    """The summary of ``report`` for the terminal: the answer in plain words,
    what limited it, the details, and the solver's last.

    Parameters
    ----------
    report : DecisionsReport or ProbabilisticReport

    Returns
    -------
    str
    """
    found = parts(report)
    blocks = [found["answer"] + found["groups"], *(found[k] for k in BLOCKS)]
    return "\n\n".join("\n".join(block) for block in blocks if block)


#: The parts of a summary after its answer and groups sentence, in order.
BLOCKS = ("limits", "details", "solver")


def parts(report):
    """The summary of ``report`` in its parts, each a list of lines: the
    ``answer``, whether the ``groups`` column is a feature, what limited the
    answer (``limits``, empty for a probabilistic audit), the ``details``
    and the ``solver``'s last."""
    if report.audit == "probabilistic":
        found = _probabilistic_parts(report)
    else:
        found = _decisions_parts(report)
    feature = say.groups_feature_line(report.dataset)
    return {
        "answer": found["answer"],
        "groups": [] if feature is None else [feature],
        "limits": found.get("limits", []),
        "details": found["details"],
        "solver": found["solver"],
    }


def _bullets(lines):
    return [f"  - {line}" for line in lines]


def limits_lines(report):
    """What limited a 0-1 audit's answer and the routes to a sharper one,
    under the assessment's headline (two labels)."""
    assessment = report.auditor.assessment_  # None for K labels
    lines = [] if assessment is None else [assessment.headline()]
    limits, routes = say.limit_lines(report), say.route_lines(report)
    if limits:
        lines += ["What limited the answer:", *_bullets(limits)]
    else:
        lines.append(say.NOTHING_LIMITED)
    if routes:
        lines += ["Routes to a sharper answer:", *_bullets(routes)]
    return lines


def solver_lines(report, mip_log):
    """The solver's side of a 0-1 audit: what the assessment read (two
    labels), the MIPs solved and the timings."""
    assessment = report.auditor.assessment_
    lines = ["Solver detail:"]
    if assessment is not None:
        reasons = [f"  {line}" for line in _bullets(assessment.reasons)]
        lines += [f"  {say.REASONS_HEADING}", *reasons]
    return lines + [
        f"  {say.mip_count_line(mip_log)}",
        f"  {say.timings_line(report.timings)}",
    ]


def _decisions_parts(report):
    a, k_labels = report.auditor, report.k_labels
    n = report.n_people
    label = None if k_labels else report.sampling_label
    lines = [say.report_heading(report)]
    lines += [f"Hypothesis class: {a.hypothesis_class_}", say.baseline_line(a)]
    if k_labels:
        lines.append(say.label_errors_line(report.label_errors()))
    else:
        lines.append(f"Baseline error rates: {say.rates_line(report.error_rates())}")
        lines.append("Constraints in force: " + ("; ".join(a.constraints_) or "none"))
    lines.append(say.min_error_line(a))
    lines.append(say.level_set_line(report))
    if report.suggestion is not None:
        lines.append(f"  eps chosen automatically: {report.suggestion.description}")
    lines += ["", compact(report.measures(), MEASURES, label=label)]
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
    lines += ["", say.people_line(report), say.path_line(report)]
    lines.append(say.open_values_line(report.open_values()))
    if k_labels:
        lines.append(say.BINARY_ONLY_LINE)
    return {
        "answer": say.answer_lines(report),
        "limits": limits_lines(report),
        "details": lines,
        "solver": solver_lines(report, summarize_mip_log(a.mip_log_)),
    }


def _probabilistic_parts(report):
    a = report.auditor
    lines = [
        say.report_heading(report),
        f"Level set: {a.level_set_}",
        say.log_loss_level_line(a),
        "",
        percent_table(report.measures()),
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
        lines += ["", "By group:", percent_table(groups)]
    return {
        "answer": say.probabilistic_answer_lines(report),
        "details": lines,
        "solver": [say.timings_line(report.timings)],
    }


#: The names of the two audits of a :class:`~._both.BothReport`.
TITLES = {"decisions": "0-1 audit", "probabilistic": "Probabilistic audit"}


def both_summary(both):
    """The summary of a :class:`~._both.BothReport`: both answers (the
    certified audit's first), what limited the 0-1 audit, how the two
    questions differ, both audits' details, and the solver's last."""
    first = both.lead()
    second = "probabilistic" if first == "decisions" else "decisions"
    found = {
        "decisions": both.decisions.parts(),
        "probabilistic": both.probabilistic.parts(),
    }
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
    answers = []
    for name in (first, second):
        lines = found[name]["answer"]
        answers += [f"{TITLES[name]}: {lines[0]}", *(f"  {x}" for x in lines[1:])]
    answers += found["decisions"]["groups"]
    solver = found["decisions"]["solver"] + [
        f"  {TITLES['probabilistic']}: {line}"
        for line in found["probabilistic"]["solver"]
    ]
    rule = "\n" + "-" * 72 + "\n"
    return rule.join(
        [
            "\n\n".join(
                "\n".join(block)
                for block in (answers, found["decisions"]["limits"], [head])
                if block
            ),
            "\n".join(found[first]["details"]),
            "\n".join(found[second]["details"]),
            "\n".join(solver),
        ]
    )


def percent_table(frame):
    """A table for the terminal: shares as percentages, counts as they are,
    a dash where a value is missing (a band is not a value)."""
    return shown_as_percentages(frame).to_string(na_rep="-")


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
