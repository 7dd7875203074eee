"""The parts of a K-class audit report meant for people: the terminal summary
and the HTML page."""

import html

from .._core._validation import PerClassEpsilon
from ._decisions import abstention_line
from ._format import (
    MEASURES,
    budget_words,
    compact,
    in_words,
    plain,
    status_label,
    unwrap,
)
from ._html import (
    certified_line,
    closing_sections,
    html_table,
    img_tag,
    kv_table,
    page_opening,
)


def _pairs(epsilon):
    return ", ".join(
        f"{plain(k)!r}: {v:g}" for k, v in zip(epsilon.labels, epsilon, strict=True)
    )


def _tolerance_words(report):
    if not report.per_label:
        return f"eps = {report.epsilon:.4g}"
    return f"eps = {{{_pairs(report.epsilon)}}} per label"


def level_set_line(report):
    """The level set in one line: the tolerance, the extra errors it allows
    and the budget (per true label with per-label tolerances)."""
    if not report.per_label:
        extra = report.budget - report.auditor.baseline_errors_
        return (
            f"Level set: {_tolerance_words(report)} -> {extra:g} extra errors "
            f"(at most {report.budget:g} errors)"
        )
    extra = report.label_errors()["extra_errors"]
    return (
        f"Level set: {_tolerance_words(report)} -> extra errors "
        + ", ".join(f"{v:g} on {k!r}" for k, v in extra.items())
        + f" ({budget_words(report.budget)})"
    )


def _labels_line(report):
    table = report.label_errors()
    return "Baseline errors by true label: " + ", ".join(
        f"{k!r} {row['errors']:g} of {row['n']:g} ({row['error_rate']:.2%})"
        for k, row in table.iterrows()
    )


def _path_line(report):
    path = report.path
    if path is None:
        return "Path: none"
    where = "(report.json, report.html, path.png)"
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


def path_words(report):
    """What the path's columns are, in one sentence (per-label paths)."""
    if not isinstance(report.settings["max_epsilon"], PerClassEpsilon):
        return "One row per tolerance: its extra errors and budget, both measures."
    return (
        "Each step grows every label's tolerance by the same amount, capped at "
        "its own maximum: epsilon is the step's common rate, epsilon_LABEL each "
        "label's tolerance, budget_LABEL the most errors on its rows and "
        "budget their sum."
    )


def binary_only_line():
    """What stays for two labels, in one line."""
    return (
        "For two labels only: --epsilon auto, the sampled estimate, "
        "coefficient ranges and constraints."
    )


def summary_text(report):
    """The summary of ``report`` (a :class:`~._multiclass_report.MulticlassReport`).

    Returns
    -------
    str
    """
    a, d = report.auditor, report.dataset
    lo, hi = a.min_error_bounds_
    n = len(report.y)
    far = report.far_from_optimum_words()
    lines = [
        f"K-class audit of {d['source']}: {n} people, "
        f"{len(d['feature_names'])} features, target {d.get('target')!r} with "
        f"{len(a.classes_)} labels ({', '.join(str(plain(c)) for c in a.classes_)})",
        f"Hypothesis class: {a.hypothesis_class_}",
        f"Baseline ({type(unwrap(a.estimator_)).__name__}): "
        f"{a.baseline_errors_:g} training errors ({a.baseline_error_:.2%})",
        _labels_line(report),
        f"Certified minimum error of the class: [{lo:g}, {hi:g}] errors "
        f"({status_label(lo, hi)})",
        *([] if far is None else [far]),
        level_set_line(report),
        "",
        compact(report.measures(), MEASURES, label=None),
        "",
    ]
    lines += [
        in_words(name, row["lower"], row["upper"], n, report.budget, what="label")
        for name, row in report.measures().iterrows()
    ]
    groups = report.group_table()
    if groups is not None:
        table = compact(groups, MEASURES, per_group=True, label=None)
        lines += ["", "By group:", table]
    if report.abstain:
        lines += [
            "",
            f"Abstaining on {n} people: {abstention_line(report.abstention())}",
        ]
    contestable, undecided = report.flags()
    open_values = report.open_values()
    lines += [
        "",
        f"People whose label may change: {int(contestable.sum())} certified, "
        f"{int(undecided.sum())} undecided"
        + (" (a limit stopped their MIPs)" if undecided.any() else "")
        + "; people.csv lists every label the level set gives each person",
        _path_line(report),
        "Not certified (bounds only): " + "; ".join(open_values)
        if open_values
        else "Every value above is certified.",
        binary_only_line(),
        "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()),
    ]
    return "\n".join(lines)


def render_multiclass_html(report, data, images):
    """One self-contained HTML page of ``report`` (``data``: its ``to_dict()``)."""
    esc = html.escape
    base = data["baseline"]
    low, high = base["min_error"]["lower"], base["min_error"]["upper"]
    far = report.far_from_optimum_words()
    summary = report.summary().splitlines()
    parts = [
        page_opening(
            f"Predictive multiplicity: {data['dataset']['source']}",
            "Predictive multiplicity audit (K labels)",
        ),
        f"<p>{esc(summary[0])}</p>",
        f"<p>{certified_line(data['certified'])}</p>",
        *([] if far is None else [f'<p class="warn">{esc(far)}</p>']),
        "<h2>Measures</h2>",
        f"<p>Level set: models of <em>{esc(data['hypothesis_class'])}</em> with "
        f"{esc(budget_words(report.budget))} (baseline {base['errors']:g} "
        f"errors, {esc(_tolerance_words(report))}). Ambiguity: the share of "
        "people whose label some model of the level set changes; discrepancy: "
        "the largest share one such model changes.</p>",
        html_table(report.measures()),
        "<h2>Baseline</h2>",
        kv_table(
            {
                "estimator": base["estimator"],
                "training errors": f"{base['errors']:g} ({base['error']:.2%})",
                "certified minimum error of the class": (
                    f"[{low:g}, {high:g}] ({base['min_error']['status']})"
                ),
                "distinct feature patterns": base["n_patterns"],
            }
        ),
        "<p>Errors on each true label:</p>",
        html_table(report.label_errors()),
    ]
    if data["abstention"] is not None:
        parts += [
            "<h2>Abstention</h2>",
            "<p>Deciding only people whom no model of the level set gives "
            f"another label: {esc(abstention_line(data['abstention']))}. Column "
            "<code>decision</code> of <code>people.csv</code>.</p>",
        ]
    parts.append("<h2>Path</h2>")
    if report.path is None:
        parts.append(f"<p>{esc(_path_line(report))}.</p>")
    else:
        if "path" in images:
            parts.append(img_tag(images["path"]))
        else:
            parts.append("<p>Plots skipped: matplotlib is not installed.</p>")
        parts.append(f"<p>{esc(path_words(report))}</p>")
        parts.append(html_table(report.path, index=False))
    groups = report.group_table()
    if groups is not None:
        parts += [
            "<h2>By group</h2>",
            img_tag(images["groups"]) if "groups" in images else "",
            html_table(groups),
        ]
    parts += [
        "<h2>Models</h2>",
        "<p>Weights on the encoded features, one row per label (a model of "
        "the class has the first label's at 0).</p>",
        html_table(report.models()),
        "<h2>People</h2>",
        f"<p>{data['n_contestable']} people get another label from a model of "
        f"the level set ({data['n_undecided']} undecided); "
        "<code>people.csv</code> lists every label the level set gives each "
        "person.</p>",
        "<h2>For two labels only</h2>",
        kv_table(data["binary_only"]),
        *closing_sections(data),
    ]
    return "\n".join(parts) + "\n"
