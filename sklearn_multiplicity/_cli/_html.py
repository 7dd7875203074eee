"""The HTML renderer: one self-contained page of any report, from the
sentences of :mod:`._sentences` (escaped) and the report's tables and plots."""

import base64
import html
from pathlib import Path

import pandas as pd

from .._core import TOLERANCE
from . import _sentences as say

esc = html.escape

STYLE = """
body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table.t{border-collapse:collapse;margin:.5em 0}
table.t th,table.t td{border:1px solid #ccc;padding:.2em .6em;text-align:right}
.warn{color:#a40} img{max-width:100%}
"""


def render_page(report, data, images, models):
    """One self-contained HTML page of ``report``.

    Parameters
    ----------
    report : DecisionsReport or ProbabilisticReport
    data : dict
        The report's ``to_dict()``.
    images : dict
        ``{name: path}`` of the plots written (empty without matplotlib).
    models : pandas.DataFrame
        The report's ``models()``.

    Returns
    -------
    str
    """
    if report.audit == "probabilistic":
        parts = _probabilistic_page(report, data, images, models)
    else:
        parts = _decisions_page(report, data, images, models)
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------ pieces
def img_tag(path):
    """A PNG file as an inline image."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{esc(path.stem)}" src="data:image/png;base64,{data}">'


def html_table(frame, index=True):
    """A DataFrame as a table, numbers to four decimals."""
    return frame.to_html(
        index=index, float_format=lambda x: f"{x:.4f}", border=0, classes="t"
    )


def kv_table(mapping):
    """A mapping as a two-column table."""
    rows = "".join(
        f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>"
        for k, v in mapping.items()
    )
    return f'<table class="t">{rows}</table>'


def page_opening(title, heading):
    """The opening of a self-contained HTML page: its head, style and heading."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
        f"{esc(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{esc(heading)}</h1>"
    )


def _warning(text):
    return [] if text is None else [f'<p class="warn">{esc(text)}</p>']


def _assessment(assessment):
    """The assessment of a report (its ``as_dict()``) as an HTML section."""
    reasons = "".join(f"<li>{esc(r)}</li>" for r in assessment["reasons"])
    routes = "".join(
        f"<li><b>{esc(r['name'])}</b>: {esc(r['action'])} {esc(r['effect'])}</li>"
        for r in assessment["routes"]
    )
    return (
        f'<section id="assessment"><h2>Assessment: {esc(assessment["regime"])}'
        f"</h2><ul>{reasons}</ul>"
        + (f"<p>Routes to an answer:</p><ul>{routes}</ul>" if routes else "")
        + "</section>"
    )


def _certified_line(certified):
    """The page's line on whether a time limit left values open."""
    if certified:
        return "All values are certified."
    return (
        '<span class="warn">A time limit stopped some MIPs: values are '
        "certified lower bounds, with upper bounds alongside.</span>"
    )


def _timing_sections(data):
    """The last sections of a page: timings and versions, then its end."""
    return [
        "<h2>Timings (s)</h2>",
        kv_table({k: f"{v:.2f}" for k, v in data["timings"].items()}),
        "<h2>Versions</h2>",
        kv_table(data["versions"]),
        "</body></html>",
    ]


# --------------------------------------------------------------- 0-1 audit
def _decisions_page(report, data, images, models):
    k_labels = report.k_labels
    base = data["baseline"]
    low, high = base["min_error"]["lower"], base["min_error"]["upper"]
    heading = "Predictive multiplicity audit" + (" (K labels)" if k_labels else "")
    parts = [
        page_opening(f"Predictive multiplicity: {data['dataset']['source']}", heading),
        *([] if k_labels else [_assessment(data["assessment"])]),
        f"<p>{esc(say.report_heading(report))}</p>",
        f"<p>{_certified_line(data['certified'])}</p>",
        *_warning(say.constant_baseline(report)),
        *_warning(say.far_from_optimum(report)),
        "<h2>Measures</h2>",
    ]
    # The two-label page writes these words as they are, quotes unescaped.
    words = esc if k_labels else str
    tolerance = (
        say.tolerance_words(report) if k_labels else f"eps = {report.epsilon:.4g}"
    )
    level_set = (
        f"<p>Level set: models of <em>{esc(data['hypothesis_class'])}</em> with "
        f"{words(say.budget_words(report.budget))} (baseline {base['errors']:g} "
        f"errors, {words(tolerance)})."
    )
    if k_labels:
        level_set += (
            " Ambiguity: the share of people whose label some model of the "
            "level set changes; discrepancy: the largest share one such model "
            "changes."
        )
    parts += [level_set + "</p>", html_table(report.measures())]
    if not k_labels:
        parts.append(
            f"<p>The sampling column compares {esc(data['sampling']['compares'])}; "
            f"{data['sampling']['n_models_in_set']} of the pooled models are in "
            "the level set.</p>"
        )
    facts = {
        "estimator": base["estimator"],
        "training errors": f"{base['errors']:g} ({base['error']:.2%})",
        "certified minimum error of the class": (
            f"[{low:g}, {high:g}] ({base['min_error']['status']})"
        ),
        "distinct feature patterns": base["n_patterns"],
    }
    if not k_labels:
        facts["false positive rate"] = (
            f"{base['false_positive_rate']:.2%} "
            f"({base['false_positives']} of {base['negatives']})"
        )
        facts["false negative rate"] = (
            f"{base['false_negative_rate']:.2%} "
            f"({base['false_negatives']} of {base['positives']})"
        )
        facts["constraints in force"] = "; ".join(data["constraints"]) or "none"
    parts += ["<h2>Baseline</h2>", kv_table(facts)]
    if k_labels:
        parts += [
            "<p>Errors on each true label:</p>",
            html_table(report.label_errors()),
        ]
    if data["abstention"] is not None:
        who = "gives another label" if k_labels else "predicts differently"
        parts += [
            "<h2>Abstention</h2>",
            f"<p>Deciding only people whom no model of the level set {who}: "
            f"{esc(say.abstention_line(data['abstention']))}. Column "
            "<code>decision</code> of <code>people.csv</code>.</p>",
        ]
    parts += _path_section(report, images)
    groups = report.group_table()
    if groups is not None:
        parts += [
            "<h2>By group</h2>",
            img_tag(images["groups"]) if "groups" in images else "",
            html_table(groups),
        ]
    counts = f"{data['n_contestable']} people"
    undecided = f"({data['n_undecided']} undecided)"
    if k_labels:
        parts += [
            "<h2>Models</h2>",
            "<p>Weights on the encoded features, one row per label (a model of "
            "the class has the first label's at 0).</p>",
            html_table(models),
            "<h2>People</h2>",
            f"<p>{counts} get another label from a model of the level set "
            f"{undecided}; <code>people.csv</code> lists every label the level "
            "set gives each person.</p>",
            "<h2>For two labels only</h2>",
            kv_table(data["binary_only"]),
        ]
    else:
        parts += [
            "<h2>Models</h2>",
            "<p>Coefficients on the encoded features.</p>",
            html_table(models),
            "<h2>Contestable people</h2>",
            f"<p>{counts} have a prediction that a model of the level set flips "
            f"{undecided}; the full per-person table is <code>people.csv</code>."
            "</p>",
        ]
    solver_log = {
        k: v for k, v in data["mip_log"].items() if k not in ("slowest", "entries")
    }
    return parts + [
        "<h2>Settings</h2>",
        kv_table(data["settings"]),
        "<h2>Solver log</h2>",
        kv_table(solver_log),
        *_timing_sections(data),
    ]


def _path_section(report, images):
    """The path: its plot and its table (two labels: beside the sampled
    estimate's path)."""
    if not report.k_labels:
        parts = (
            ["<h2>Path</h2>", img_tag(images["path"])]
            if "path" in images
            else ["<p>Plots skipped: matplotlib is not installed.</p>"]
        )
        path = pd.merge_asof(
            report.path,
            report.sampling_path.add_prefix("sampling_").rename(
                columns={"sampling_epsilon": "epsilon"}
            ),
            on="epsilon",
            direction="nearest",
            tolerance=TOLERANCE,
        )
        return parts + [html_table(path, index=False)]
    if report.path is None:
        return ["<h2>Path</h2>", f"<p>{esc(say.path_line(report))}.</p>"]
    return [
        "<h2>Path</h2>",
        img_tag(images["path"])
        if "path" in images
        else "<p>Plots skipped: matplotlib is not installed.</p>",
        f"<p>{esc(say.path_words(report))}</p>",
        html_table(report.path, index=False),
    ]


# ------------------------------------------------------- probabilistic audit
def _probabilistic_page(report, data, images, models):
    labels = " (K labels)" if report.multinomial else ""
    parts = [
        page_opening(
            "Probabilistic multiplicity" + labels,
            "Probabilistic multiplicity audit" + labels,
        ),
        f"<p>{esc(say.report_heading(report))}</p>",
    ]
    if report.multinomial:
        status = esc(say.probabilistic_status_line(report))
        warn = "" if report.certified else ' class="warn"'
        parts.append(f"<p{warn}>{status}</p>")
        parts += probabilistic_section(report, images.get("ranges"), "people.csv")
    else:
        parts += [
            f"<p>Level set: {esc(data['level_set'])}.</p>",
            html_table(report.measures()),
            img_tag(images["ranges"])
            if "ranges" in images
            else "<p>Plot skipped (no matplotlib).</p>",
        ]
    groups = report.group_table()
    if groups is not None:
        parts += ["<h2>By group</h2>", html_table(groups)]
    parts.append("<h2>Models</h2>")
    if report.multinomial:
        parts += [
            "<p>The baseline and, for the person the level set gives the most "
            "labels, a model of the set giving each other label, with its "
            f"objective (at most {data['objective_level']:.6g}).</p>",
            html_table(models),
        ]
    else:
        parts += [
            html_table(models),
            "<p>The per-person ranges are in <code>people.csv</code>.</p>",
        ]
    return parts + _timing_sections(data)


def probabilistic_section(report, image, people_file):
    """The probabilistic audit's HTML without a page around it: its level
    set, measures, ranges and plot, and where its per-person table is."""
    a = report.auditor
    level_set = (
        f"<p>Level set: {esc(a.level_set_)} (eps {a.log_loss_epsilon:g} nats "
        "of mean log-loss)."
    )
    if not report.multinomial:
        return [
            level_set + "</p>",
            html_table(report.measures()),
            img_tag(image) if image is not None else "",
            f"<p>Per-person ranges: <code>{people_file}</code>.</p>",
        ]
    return [
        level_set + " A decision is the most probable label.</p>",
        html_table(report.measures()),
        f"<p>{esc(say.reachable_labels_line(report))}.</p>",
        f"<p>{esc(say.probability_ranges_line(report))}.</p>",
        img_tag(image) if image is not None else "<p>Plot skipped (no matplotlib).</p>",
        f"<p>Per-person labels (yes, no or open per label), ranges and Rashomon "
        f"capacities: <code>{people_file}</code>.</p>",
    ]


def with_probabilistic_section(page, both, image):
    """``page`` (the 0-1 report's HTML) with the probabilistic section of a
    :class:`~._both.BothReport`, first when it leads (after the assessment,
    or the title without one)."""
    section = "\n".join(
        [
            '<section id="probabilistic">',
            "<h2>Probabilistic audit of the same model</h2>",
            f"<p>{esc(both.difference)}</p>",
            "\n".join(
                probabilistic_section(
                    both.probabilistic, image, "probabilistic_people.csv"
                )
            ),
            "</section>",
        ]
    )
    if both.lead() == "decisions":
        at = page.index("</body>")
    elif '<section id="assessment">' in page:  # it tops the page
        top = page.index('<section id="assessment">')
        at = page.index("</section>", top) + len("</section>")
    else:
        at = page.index("</h1>") + len("</h1>")
    return page[:at] + section + page[at:]
