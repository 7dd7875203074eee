"""The plots of a report, as PNG files beside it (with matplotlib)."""

import textwrap

import numpy as np

from .._core import certified
from .._reporting._plotting import GroupAmbiguityDisplay, MultiplicityPathDisplay
from ._format import plain

#: Panels per row of the plot of the per-label probability ranges.
PANELS_PER_ROW = 3


def _figure(**options):
    """A matplotlib figure, or None when matplotlib is not installed."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure(**options)


def _save(fig, path):
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def path_and_group_plots(report, out):
    """Save the path plot (when ``report`` has a path) and the group plot
    (when it has groups) of an exact audit as PNGs in ``out``.

    Returns
    -------
    dict
        ``{"path": path, "groups": path}`` of the plots drawn; empty when
        matplotlib is not installed.
    """
    images = {}
    if report.path is not None and (fig := _figure(figsize=(7, 4.5))):
        MultiplicityPathDisplay(
            path=report.path, sampling_path=report.sampling_path
        ).plot(ax=fig.add_subplot())
        images["path"] = _save(fig, out / "path.png")
    if report.frame is not None:
        fig = group_plot(
            report.frame.by_group,
            float(report.frame.overall["ambiguity"]),
            report.epsilon,
        )
        if fig is not None:
            images["groups"] = _save(fig, out / "groups.png")
    return images


#: Most characters of a group's name on the group plot: a longer one is cut
#: with an ellipsis (the tables and people.csv have it whole).
LABEL_CHARS = 24
#: Inches of the group plot per group, and its least and largest widths.
INCHES_PER_GROUP = 0.4
WIDTH_RANGE = (7.0, 30.0)
#: Characters of tick label that fit an inch of the axis (10 pt text).
CHARS_PER_INCH = 11


def _cut(text, chars):
    """``text`` in at most ``chars`` characters: its start and its end
    (where names often differ) around an ellipsis."""
    if len(text) <= chars:
        return text
    tail = (chars - 1) // 3
    return text[: chars - 1 - tail] + "\u2026" + text[len(text) - tail :]


def short_labels(names, chars=LABEL_CHARS):
    """The groups' names in at most ``chars`` characters, a long one cut
    with an ellipsis, kept distinct (a cut name that another already has is
    numbered)."""
    labels, seen = [], set()
    for name in names:
        text = str(plain(name))
        label, k = _cut(text, chars), 2
        while label in seen:
            suffix = f" ({k})"
            label, k = _cut(text, chars - len(suffix)) + suffix, k + 1
        seen.add(label)
        labels.append(label)
    return labels


def group_plot(by_group, overall, epsilon):
    """The ambiguity of each group as a figure sized to the number of
    groups, their names readable: whole when they fit, wrapped on two lines
    or turned upright, and cut with an ellipsis when long. A bar is labelled
    a lower bound where a limit left a band.

    Parameters
    ----------
    by_group : pandas.DataFrame
        ``MultiplicityFrame.by_group``.
    overall : float
    epsilon : float or PerClassEpsilon

    Returns
    -------
    matplotlib.figure.Figure or None
        None when matplotlib is not installed.
    """
    n = len(by_group)
    low, high = WIDTH_RANGE
    width = min(max(low, INCHES_PER_GROUP * n + 2.0), high)
    fig = _figure(figsize=(width, 4.5))
    if fig is None:
        return None
    pinned = certified(by_group["ambiguity_lower"], by_group["ambiguity_upper"])
    bars = "ambiguity" if np.all(pinned) else "ambiguity (certified lower bound)"
    ax = (
        GroupAmbiguityDisplay(by_group=by_group, overall=overall, epsilon=epsilon)
        .plot(ax=fig.add_subplot(), label=bars)
        .ax_
    )
    labels = short_labels(by_group.index)
    # The characters that fit under one bar, on one line.
    fit = max(int((width - 1.5) / n * CHARS_PER_INCH), 1)
    longest = max((len(word) for label in labels for word in label.split()), default=0)
    if all(len(label) <= fit for label in labels):
        ax.set_xticks(range(n), labels)
    elif longest <= fit and all(
        len(textwrap.wrap(label, fit)) <= 2 for label in labels
    ):
        ax.set_xticks(range(n), [textwrap.fill(label, fit) for label in labels])
    else:
        ax.set_xticks(range(n), labels, rotation=90)
    ax.set_xlim(-0.6, n - 0.4)
    return fig


def probability_range_plot(report, out):
    """Save the viable prediction ranges of a probabilistic audit in ``out``:
    ``ranges.png`` (two labels), or ``label_ranges.png``, one panel per
    label (K labels).

    Returns
    -------
    pathlib.Path or None
        None when matplotlib is not installed.
    """
    from .._probabilistic import ViablePredictionRangeDisplay

    if not report.multinomial:
        if (fig := _figure(figsize=(7, 4.5))) is None:
            return None
        ViablePredictionRangeDisplay(
            ranges=report.ranges, threshold=report.auditor.threshold
        ).plot(ax=fig.add_subplot())
        return _save(fig, out / "ranges.png")
    classes = report.classes
    columns = min(len(classes), PANELS_PER_ROW)
    rows = -(-len(classes) // columns)
    fig = _figure(figsize=(3.6 * columns, 2.9 * rows), layout="constrained")
    if fig is None:
        return None
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
    return _save(fig, out / "label_ranges.png")
