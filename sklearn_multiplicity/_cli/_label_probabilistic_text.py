"""The parts of a K-label probabilistic report meant for people: the terminal
summary, the HTML page (or its section beside a 0-1 audit) and the plot of
the per-label probability ranges."""

import html

import numpy as np

from ._format import plain
from ._html import html_table, img_tag, page_opening, timing_sections

#: Panels per row of the plot of the per-label ranges.
PANELS_PER_ROW = 3


def _labels_line(report):
    yes, open_ = report.label_masks()
    contestable, undecided = report.flags()
    n_pairs = yes.size
    return (
        f"Labels the level set gives each person: {n_pairs - int(open_.sum())} of "
        f"{n_pairs} (person, label) pairs settled, {int(open_.sum())} open; "
        f"{int(contestable.sum())} people get another label from a model of "
        f"the set, {int(undecided.sum())} undecided"
    )


def _ranges_line(report):
    r = report.ranges
    pinned = r["certified"].to_numpy()
    return (
        "Per-label probability ranges (certified brackets: [lower, upper] "
        "attained, [lower_bound, upper_bound] never passed): median width "
        f"{float(np.median(r['width'].to_numpy())):.4f}, {int(pinned.sum())} of "
        f"{pinned.size} certified within {report.auditor.tol:g}"
    )


def _status_line(report):
    unpinned = report.unpinned()
    if unpinned:
        return "Not certified: " + ", ".join(unpinned)
    return "All certified: every label, every range, " + " and ".join(report.bounds)


def summary_text(report):
    """The summary of ``report`` (a
    :class:`~._label_probabilistic.LabelProbabilisticReport`).

    Returns
    -------
    str
    """
    a, d = report.auditor, report.dataset
    classes = ", ".join(str(plain(c)) for c in report.classes)
    lines = [
        f"Probabilistic audit of {d['source']}: {len(report.y)} people, "
        f"{len(d['feature_names'])} features, target {d.get('target')!r} with "
        f"{len(report.classes)} labels ({classes}); a decision is the most "
        "probable label",
        f"Level set: {a.level_set_}",
        f"  objective at most {a.objective_level():.6g} "
        f"(baseline {a.baseline_objective_:.6g} + eps {a.epsilon:g} nats of "
        "mean log-loss)",
        "",
        report.measures().to_string(float_format=lambda v: f"{v:.4f}"),
        "",
        _labels_line(report),
        _ranges_line(report),
        "Rashomon capacity (certified lower bound, in [1, "
        f"{len(report.classes)}]): mean {float(report.capacity.mean()):.4f}",
        _status_line(report),
    ]
    groups = report.group_table()
    if groups is not None:
        lines += ["", "By group:", groups.to_string(float_format="{:.4f}".format)]
    lines.append(
        "Timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items())
    )
    return "\n".join(lines)


def write_label_plot(report, path):
    """Draw every label's probability ranges, one panel per label, into the
    PNG ``path``; ``path``, or None without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    from .._probabilistic import ViablePredictionRangeDisplay

    classes = report.classes
    columns = min(len(classes), PANELS_PER_ROW)
    rows = -(-len(classes) // columns)
    fig = Figure(figsize=(3.6 * columns, 2.9 * rows), layout="constrained")
    for k, label in enumerate(classes):
        ranges = report.ranges.xs(label, axis=1, level="class")
        display = ViablePredictionRangeDisplay(ranges=ranges).plot(
            ax=fig.add_subplot(rows, columns, k + 1)
        )
        display.threshold_line_.remove()  # a decision is the most probable label
        ax = display.ax_
        ax.set_title(f"label {plain(label)!r}", fontsize="small")
        ax.set_xlabel("people, by the baseline's probability", fontsize="small")
        ax.set_ylabel("probability", fontsize="small")
        if k == 0:
            ax.legend(loc="upper left", fontsize="x-small")
        else:
            ax.get_legend().remove()
    fig.suptitle("Viable probability of each label over the level set")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def _section_parts(report, image, people_file):
    a = report.auditor
    return [
        f"<p>Level set: {html.escape(a.level_set_)} (eps {a.epsilon:g} nats of "
        "mean log-loss). A decision is the most probable label.</p>",
        html_table(report.measures()),
        f"<p>{html.escape(_labels_line(report))}.</p>",
        f"<p>{html.escape(_ranges_line(report))}.</p>",
        img_tag(image) if image is not None else "<p>Plot skipped (no matplotlib).</p>",
        f"<p>Per-person labels (yes, no or open per label), ranges and Rashomon "
        f"capacities: <code>{people_file}</code>.</p>",
    ]


def html_section(report, image, *, people_file):
    """The audit's HTML, without a page around it."""
    return "\n".join(_section_parts(report, image, people_file))


def html_page(report, data, image, models):
    """One self-contained HTML page of ``report`` (``data``: its ``to_dict()``)."""
    status = html.escape(_status_line(report))
    parts = [
        page_opening(
            "Probabilistic multiplicity (K labels)",
            "Probabilistic multiplicity audit (K labels)",
        ),
        f"<p>{html.escape(report.summary().splitlines()[0])}</p>",
        f"<p>{status}</p>" if report.certified else f'<p class="warn">{status}</p>',
        *_section_parts(report, image, "people.csv"),
    ]
    groups = report.group_table()
    if groups is not None:
        parts += ["<h2>By group</h2>", html_table(groups)]
    parts += [
        "<h2>Models</h2>",
        "<p>The baseline and, for the person the level set gives the most "
        "labels, a model of the set giving each other label, with its "
        f"objective (at most {data['objective_level']:.6g}).</p>",
        html_table(models),
        *timing_sections(data),
    ]
    return "\n".join(parts) + "\n"
