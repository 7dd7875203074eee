"""The plots of a report, as PNG files beside it (with matplotlib)."""

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
    if report.frame is not None and (fig := _figure(figsize=(7, 4.5))):
        GroupAmbiguityDisplay(
            by_group=report.frame.by_group,
            overall=float(report.frame.overall["ambiguity"]),
            epsilon=report.epsilon,
        ).plot(ax=fig.add_subplot())
        images["groups"] = _save(fig, out / "groups.png")
    return images


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
