"""The plain-text summary of an audit report, for the terminal."""

from ._decisions import abstention_line, rates_line
from ._format import MEASURES, compact, in_words, status_label, unwrap


def summary_text(report):
    """The summary of ``report`` (an :class:`~._report.AuditReport`).

    Returns
    -------
    str
    """
    a = report.auditor
    lo, hi = a.min_error_bounds_
    n = report.evidence.shape[0]
    d = report.dataset
    constant = report.constant_baseline_words()
    far = report.far_from_optimum_words()
    lines = [
        a.assessment_.text(),
        "",
        f"Audit of {d['source']}: {n} people, {len(d['feature_names'])} "
        f"features, target {d['target']!r} (positive class "
        f"{d['classes'][1]!r})",
        f"Hypothesis class: {a.hypothesis_class_}",
        f"Baseline ({type(unwrap(a.estimator_)).__name__}): "
        f"{a.baseline_errors_:g} training errors ({a.baseline_error_:.2%})",
        f"Baseline error rates: {rates_line(report.error_rates())}",
        *([] if constant is None else [constant]),
        "Constraints in force: " + ("; ".join(a.constraints_) or "none"),
        f"Certified minimum error of the class: [{lo:g}, {hi:g}] errors "
        f"({status_label(lo, hi)})",
        *([] if far is None else [far]),
        report.level_set_line(),
    ]
    if report.suggestion is not None:
        lines.append(f"  eps chosen automatically: {report.suggestion.description}")
    measures = report.measures()
    label = report.sampling_label
    lines += ["", compact(measures, MEASURES, label=label), ""]
    lines += [
        in_words(name, row["lower"], row["upper"], n, report.budget)
        for name, row in measures.iterrows()
    ]
    lines.append(f"Sampling: {report.sampling.comparison()}.")
    groups = report.group_table()
    if groups is not None:
        table = compact(groups, MEASURES, per_group=True, label=label)
        lines += ["", "By group:", table]
    if report.abstain:
        a_ = report.abstention()
        lines += [
            "",
            f"Abstaining on contestable people of {n}: {abstention_line(a_)}",
        ]
    open_values = report.open_values()
    n_undecided = int(report.evidence["undecided"].sum())
    lines += [
        "",
        f"Contestable people: {int(report.evidence['contestable'].sum())} "
        f"certified contestable, {n_undecided} undecided"
        + (" (a limit stopped their MIPs)" if n_undecided else ""),
        "Not certified (bounds only): " + "; ".join(open_values)
        if open_values
        else "Every value above is certified.",
        "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()),
    ]
    return "\n".join(lines)
