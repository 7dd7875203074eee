"""The HTML renderer: one self-contained page of any report, from the
sentences of :mod:`._sentences` (escaped) and the report's tables and plots."""

import base64
import html
from pathlib import Path

import numpy as np

from .._core import certified as is_certified
from . import _sentences as say
from ._format import MEASURES, PATH_TABLE, shown_as_percentages

esc = html.escape
#: What a table shows where a value is missing.
DASH = "\u2013"

STYLE = """
body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table.t{border-collapse:collapse;margin:.5em 0}
table.t th,table.t td{border:1px solid #ccc;padding:.2em .6em;text-align:right}
.warn{color:#a40} img{max-width:100%}
.answer{font-size:1.15em} details{margin-top:2em} summary{cursor:pointer}
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


def html_table(frame, index=True, shares=True):
    """A DataFrame as a table: shares as percentages (unless not
    ``shares``), other numbers to four decimals, a dash where a value is
    missing."""
    shown = shown_as_percentages(frame, missing=DASH) if shares else frame
    return shown.to_html(
        index=index,
        float_format=lambda x: f"{x:.4f}",
        na_rep=DASH,
        border=0,
        classes="t",
    )


def values_when_certified(table):
    """``table`` with each measure's value (``ambiguity``, ``discrepancy``)
    missing where its bounds leave a band: a bound is not a value."""
    table = table.copy()
    for name in MEASURES:
        if {name, f"{name}_lower", f"{name}_upper"} <= set(table.columns):
            pinned = np.asarray(
                is_certified(table[f"{name}_lower"], table[f"{name}_upper"])
            )
            table[name] = table[name].where(pinned)
    return table


def _paragraphs(lines, css=None):
    attribute = "" if css is None else f' class="{css}"'
    return [f"<p{attribute}>{esc(line)}</p>" for line in lines]


def _items(lines, css=None):
    attribute = "" if css is None else f' class="{css}"'
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return f"<ul{attribute}>{items}</ul>"


def answer_section(answer, dataset):
    """The answer in plain words, and whether the groups are a feature."""
    feature = say.groups_feature_line(dataset)
    return "\n".join(
        [
            '<section id="answer">',
            *_paragraphs(answer, "answer"),
            *([] if feature is None else _paragraphs([feature])),
            "</section>",
        ]
    )


def _limits_section(report):
    """What limited a 0-1 audit's answer and the routes to a sharper one,
    under the assessment's headline (two labels)."""
    assessment = report.auditor.assessment_  # None for K labels
    limits, routes = say.limit_lines(report), say.route_lines(report)
    parts = ['<section id="assessment">', "<h2>What limited the answer</h2>"]
    if assessment is not None:
        parts.append(f"<p>{esc(assessment.headline())}</p>")
    parts.append(
        _items(limits, "warn") if limits else f"<p>{esc(say.NOTHING_LIMITED)}</p>"
    )
    if routes:
        parts += ["<p>Routes to a sharper answer:</p>", _items(routes)]
    return "\n".join([*parts, "</section>"])


def _cell(value):
    """A value of a two-column table as text: a dash for none, a float in
    its shortest form."""
    if value is None:
        return DASH
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def kv_table(mapping):
    """A mapping as a two-column table."""
    rows = "".join(
        f"<tr><th>{esc(str(k))}</th><td>{esc(_cell(v))}</td></tr>"
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


#: Where a page's folded solver detail begins.
SOLVER_DETAIL = '<details id="solver">'


def solver_detail(data, first=()):
    """The end of a page: the solver's side folded away (``first`` parts,
    then the timings and versions)."""
    return [
        SOLVER_DETAIL,
        "<summary>Solver detail: what the assessment read, settings, MIPs, "
        "timings and versions</summary>",
        *first,
        "<h2>Timings (s)</h2>",
        kv_table({k: f"{v:.2f}" for k, v in data["timings"].items()}),
        "<h2>Versions</h2>",
        kv_table(data["versions"]),
        "</details>",
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
        answer_section(say.answer_lines(report), report.dataset),
        _limits_section(report),
        f"<p>{esc(say.report_heading(report))}</p>",
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
            html_table(values_when_certified(groups)),
        ]
    counts = f"{data['n_contestable']} people"
    undecided = f"({data['n_undecided']} undecided)"
    if k_labels:
        parts += [
            "<h2>Models</h2>",
            "<p>Weights on the encoded features, one row per label (a model of "
            "the class has the first label's at 0).</p>",
            html_table(models, shares=False),
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
            html_table(models, shares=False),
            "<h2>Contestable people</h2>",
            f"<p>{counts} have a prediction that a model of the level set flips "
            f"{undecided}; the full per-person table is <code>people.csv</code>."
            "</p>",
        ]
    parts.append(f"<p>{esc(say.open_values_line(report.open_values()))}</p>")
    solver_log = {
        k: v for k, v in data["mip_log"].items() if k not in ("slowest", "entries")
    }
    assessment = report.auditor.assessment_
    reasons = (
        []
        if assessment is None
        else [f"<p>{esc(say.REASONS_HEADING)}</p>", _items(assessment.reasons)]
    )
    return parts + solver_detail(
        data,
        [
            *reasons,
            "<h2>Settings</h2>",
            kv_table(data["settings"]),
            "<h2>Solver log</h2>",
            f"<p>{esc(say.mip_count_line(data['mip_log']))}</p>",
            kv_table(solver_log),
        ],
    )


def _path_section(report, images):
    """The path: its plot, what its columns are (K labels) and a link to
    its table, ``path.csv``."""
    if report.path is None:
        return ["<h2>Path</h2>", f"<p>{esc(say.path_line(report))}.</p>"]
    return [
        "<h2>Path</h2>",
        img_tag(images["path"])
        if "path" in images
        else "<p>Plots skipped: matplotlib is not installed.</p>",
        *([f"<p>{esc(say.path_words(report))}</p>"] if report.k_labels else []),
        f"<p>{esc(say.path_table_line(report))}: "
        f'<a href="{PATH_TABLE}" download>{PATH_TABLE}</a>.</p>',
    ]


# ------------------------------------------------------- probabilistic audit
def _probabilistic_page(report, data, images, models):
    labels = " (K labels)" if report.multinomial else ""
    parts = [
        page_opening(
            "Probabilistic multiplicity" + labels,
            "Probabilistic multiplicity audit" + labels,
        ),
        answer_section(say.probabilistic_answer_lines(report), report.dataset),
        f"<p>{esc(say.report_heading(report))}</p>",
        *probabilistic_section(report, images.get("ranges"), "people.csv"),
    ]
    groups = report.group_table()
    if groups is not None:
        parts += ["<h2>By group</h2>", html_table(values_when_certified(groups))]
    parts.append("<h2>Models</h2>")
    if report.multinomial:
        parts += [
            "<p>The baseline and, for the person the level set gives the most "
            "labels, a model of the set giving each other label, with its "
            f"objective (at most {data['objective_level']:.6g}).</p>",
            html_table(models, shares=False),
        ]
    else:
        parts += [
            html_table(models, shares=False),
            "<p>The per-person ranges are in <code>people.csv</code>.</p>",
        ]
    return parts + solver_detail(data)


def probabilistic_section(report, image, people_file):
    """The probabilistic audit's HTML without a page around it: what is
    certified, its level set, measures, ranges and plot, and where its
    per-person table is."""
    a = report.auditor
    warn = "" if report.certified else ' class="warn"'
    status = f"<p{warn}>{esc(say.probabilistic_status_line(report))}</p>"
    level_set = (
        f"<p>Level set: {esc(a.level_set_)} (eps {a.log_loss_epsilon:g} nats "
        "of mean log-loss)."
    )
    skipped = "<p>Plot skipped (no matplotlib).</p>"
    if not report.multinomial:
        return [
            status,
            level_set + "</p>",
            html_table(report.measures()),
            img_tag(image) if image is not None else skipped,
            f"<p>Per-person ranges: <code>{people_file}</code>.</p>",
        ]
    return [
        status,
        level_set + " A decision is the most probable label.</p>",
        html_table(report.measures()),
        f"<p>{esc(say.reachable_labels_line(report))}.</p>",
        f"<p>{esc(say.probability_ranges_line(report))}.</p>",
        img_tag(image) if image is not None else skipped,
        f"<p>Per-person labels (yes, no or open per label), ranges and Rashomon "
        f"capacities: <code>{people_file}</code>.</p>",
    ]


def with_probabilistic_section(page, both, image):
    """``page`` (the 0-1 report's HTML) with the probabilistic section of a
    :class:`~._both.BothReport`, with its answer: first when it leads
    (after what limited the 0-1 answer, or the title), else before the
    folded solver detail."""
    prob = both.probabilistic
    section = "\n".join(
        [
            '<section id="probabilistic">',
            "<h2>Probabilistic audit of the same model</h2>",
            *_paragraphs(say.probabilistic_answer_lines(prob), "answer"),
            f"<p>{esc(both.difference)}</p>",
            *probabilistic_section(prob, image, "probabilistic_people.csv"),
            "</section>",
        ]
    )
    if both.lead() == "decisions":
        end = SOLVER_DETAIL if SOLVER_DETAIL in page else "</body>"
        at = page.index(end)
    elif '<section id="assessment">' in page:  # it follows the answer
        top = page.index('<section id="assessment">')
        at = page.index("</section>", top) + len("</section>")
    else:
        at = page.index("</h1>") + len("</h1>")
    return page[:at] + section + page[at:]
