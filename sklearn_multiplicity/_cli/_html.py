"""The parts of an audit report meant for people: PNG plots and an HTML page."""

import base64
import html
from pathlib import Path

import pandas as pd

from .._core import TOLERANCE
from ._decisions import abstention_line
from ._format import budget_words


def write_plots(report, out):
    """Save the path plot (when ``report`` has a path) and the group plot
    (when it has groups) of ``report`` as PNGs in ``out``.

    ``report`` has ``path`` (None: no path), ``sampling_path`` (None: none),
    ``frame`` and ``epsilon``. Returns ``{name: path}``; empty when
    matplotlib is not installed.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return {}
    from .._reporting._plotting import GroupAmbiguityDisplay, MultiplicityPathDisplay

    images = {}
    if report.path is not None:
        fig = Figure(figsize=(7, 4.5))
        MultiplicityPathDisplay(
            path=report.path, sampling_path=report.sampling_path
        ).plot(ax=fig.add_subplot())
        images["path"] = out / "path.png"
        fig.savefig(images["path"], dpi=100, bbox_inches="tight")
    if report.frame is not None:
        fig = Figure(figsize=(7, 4.5))
        GroupAmbiguityDisplay(
            by_group=report.frame.by_group,
            overall=float(report.frame.overall["ambiguity"]),
            epsilon=report.epsilon,
        ).plot(ax=fig.add_subplot())
        images["groups"] = out / "groups.png"
        fig.savefig(images["groups"], dpi=100, bbox_inches="tight")
    return images


def img_tag(path):
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


def html_table(frame, index=True):
    return frame.to_html(
        index=index, float_format=lambda x: f"{x:.4f}", border=0, classes="t"
    )


def kv_table(mapping):
    rows = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in mapping.items()
    )
    return f'<table class="t">{rows}</table>'


STYLE = """
body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table.t{border-collapse:collapse;margin:.5em 0}
table.t th,table.t td{border:1px solid #ccc;padding:.2em .6em;text-align:right}
.warn{color:#a40} img{max-width:100%}
"""


def assessment_html(assessment):
    """The assessment of a report (its ``as_dict()``) as an HTML section."""
    esc = html.escape
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


def closing_sections(data):
    """The report page's last sections, from a report's ``to_dict()``:
    settings, the solver log's totals, timings and versions."""
    solver_log = {
        k: v for k, v in data["mip_log"].items() if k not in ("slowest", "entries")
    }
    return [
        "<h2>Settings</h2>",
        kv_table(data["settings"]),
        "<h2>Solver log</h2>",
        kv_table(solver_log),
        *timing_sections(data),
    ]


def timing_sections(data):
    """The last sections of a report page, from a report's ``to_dict()``:
    timings and versions, then the page's end."""
    return [
        "<h2>Timings (s)</h2>",
        kv_table({k: f"{v:.2f}" for k, v in data["timings"].items()}),
        "<h2>Versions</h2>",
        kv_table(data["versions"]),
        "</body></html>",
    ]


def page_opening(title, heading):
    """The opening of a self-contained HTML page: its head, style and heading."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
        f"{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(heading)}</h1>"
    )


def certified_line(certified):
    """The page's line on whether a time limit left values open."""
    if certified:
        return "All values are certified."
    return (
        '<span class="warn">A time limit stopped some MIPs: values are '
        "certified lower bounds, with upper bounds alongside.</span>"
    )


def _first_line(text, start):
    return next(line for line in text.splitlines() if line.startswith(start))


def render_html(report, data, images):
    """One self-contained HTML page of ``report`` (``data``: its ``to_dict()``)."""
    esc = html.escape
    base = data["baseline"]
    low, high = base["min_error"]["lower"], base["min_error"]["upper"]
    constant = report.constant_baseline_words()
    far = report.far_from_optimum_words()
    parts = [
        page_opening(
            f"Predictive multiplicity: {data['dataset']['source']}",
            "Predictive multiplicity audit",
        ),
        assessment_html(data["assessment"]),
        f"<p>{esc(_first_line(report.summary(), 'Audit of'))}</p>",
        f"<p>{certified_line(data['certified'])}</p>",
        *([] if constant is None else [f'<p class="warn">{esc(constant)}</p>']),
        *([] if far is None else [f'<p class="warn">{esc(far)}</p>']),
        "<h2>Measures</h2>",
        f"<p>Level set: models of <em>{esc(data['hypothesis_class'])}</em> with "
        f"{budget_words(report.budget)} (baseline {base['errors']:g} errors, "
        f"eps = {report.epsilon:.4g}).</p>",
        html_table(report.measures()),
        f"<p>The sampling column compares {esc(data['sampling']['compares'])}; "
        f"{data['sampling']['n_models_in_set']} of the pooled models are in the "
        "level set.</p>",
        "<h2>Baseline</h2>",
        kv_table(
            {
                "estimator": base["estimator"],
                "training errors": f"{base['errors']:g} ({base['error']:.2%})",
                "certified minimum error of the class": (
                    f"[{low:g}, {high:g}] ({base['min_error']['status']})"
                ),
                "distinct feature patterns": base["n_patterns"],
                "false positive rate": (
                    f"{base['false_positive_rate']:.2%} "
                    f"({base['false_positives']} of {base['negatives']})"
                ),
                "false negative rate": (
                    f"{base['false_negative_rate']:.2%} "
                    f"({base['false_negatives']} of {base['positives']})"
                ),
                "constraints in force": "; ".join(data["constraints"]) or "none",
            }
        ),
    ]
    if data["abstention"] is not None:
        a = data["abstention"]
        parts += [
            "<h2>Abstention</h2>",
            "<p>Deciding only people whom no model of the level set predicts "
            f"differently: {esc(abstention_line(a))}. Column "
            "<code>decision</code> of <code>people.csv</code>.</p>",
        ]
    if "path" in images:
        parts += ["<h2>Path</h2>", img_tag(images["path"])]
    else:
        parts.append("<p>Plots skipped: matplotlib is not installed.</p>")
    path = pd.merge_asof(
        report.path,
        report.sampling_path.add_prefix("sampling_").rename(
            columns={"sampling_epsilon": "epsilon"}
        ),
        on="epsilon",
        direction="nearest",
        tolerance=TOLERANCE,
    )
    parts.append(html_table(path, index=False))
    groups = report.group_table()
    if groups is not None:
        parts += [
            "<h2>By group</h2>",
            img_tag(images["groups"]) if "groups" in images else "",
        ]
        parts.append(html_table(groups))
    parts += [
        "<h2>Models</h2>",
        "<p>Coefficients on the encoded features.</p>",
        html_table(report.models()),
        "<h2>Contestable people</h2>",
        f"<p>{data['n_contestable']} people have a prediction that a model of the "
        f"level set flips ({data['n_undecided']} undecided); the full per-person "
        "table is <code>people.csv</code>.</p>",
        *closing_sections(data),
    ]
    return "\n".join(parts) + "\n"
