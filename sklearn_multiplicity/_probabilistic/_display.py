"""``ViablePredictionRangeDisplay``: every person's range, sorted by score."""

import numpy as np

from .._reporting._plotting import Display, check_matplotlib_support, styled


class ViablePredictionRangeDisplay(Display):
    """Viable prediction ranges of people sorted by their baseline probability.

    The band spans each person's certified range ``[lower, upper]``, the line
    is the baseline's probability and the horizontal line the decision
    threshold: people whose band crosses it are the ambiguous ones. The
    keyword arguments of :meth:`plot` go to
    :meth:`matplotlib.axes.Axes.fill_between` for the band, e.g. ``color``
    or ``alpha``.

    Create it with :meth:`from_estimator` (or its alias :meth:`from_auditor`),
    or from a precomputed range table and then call :meth:`plot`. All
    parameters are keyword-only.

    Parameters
    ----------
    ranges : pandas.DataFrame
        :meth:`ProbabilisticAuditor.viable_prediction_range` output (columns
        ``lower``, ``upper`` and ``baseline``).
    threshold : float, default=0.5
        Decision threshold to draw.

    Attributes
    ----------
    band_ : matplotlib.collections.PolyCollection
        The band of the ranges.
    line_ : matplotlib.lines.Line2D
        The baseline's probabilities.
    threshold_line_ : matplotlib.lines.Line2D
        The threshold.

    See Also
    --------
    ProbabilisticAuditor.viable_prediction_range : The ranges drawn here.

    Examples
    --------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from sklearn_multiplicity import (
    ...     ProbabilisticAuditor, ViablePredictionRangeDisplay)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(80, 2))
    >>> y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    >>> auditor = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y)
    >>> ax = Figure().add_subplot()
    >>> display = ViablePredictionRangeDisplay.from_estimator(
    ...     auditor, ax=ax, alpha=0.5)
    >>> display.band_.get_alpha()
    0.5
    """

    def __init__(self, *, ranges, threshold=0.5):
        self.ranges = ranges
        self.threshold = threshold

    @classmethod
    def from_estimator(cls, auditor, X=None, eps=None, *, ax=None, **kwargs):
        """Compute the ranges of a fitted auditor and plot them.

        Parameters
        ----------
        auditor : ProbabilisticAuditor
            A fitted auditor.
        X : array-like of shape (n_samples, n_features), default=None
            People to draw; ``None``: the training rows.
        eps : float, default=None
            Tolerance of the ranges, in nats of mean log-loss; defaults to
            the auditor's ``log_loss_epsilon``.
        ax : matplotlib.axes.Axes, default=None
            Passed to :meth:`plot`.
        **kwargs : dict
            Keyword arguments of the band of ranges, see :meth:`plot`.

        Returns
        -------
        display : ViablePredictionRangeDisplay
            The ranges, drawn by :meth:`plot` at the auditor's ``threshold``.
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        ranges = auditor.viable_prediction_range(X, eps)
        return cls(ranges=ranges, threshold=auditor.threshold).plot(ax=ax, **kwargs)

    #: An alias of :meth:`from_estimator`.
    from_auditor = from_estimator

    def _draw(self, ax, kwargs):
        from matplotlib.collections import PolyCollection

        order = np.argsort(self.ranges["baseline"].to_numpy(dtype=float), kind="stable")
        rank = np.arange(order.size)
        lower = self.ranges["lower"].to_numpy(dtype=float)[order]
        upper = self.ranges["upper"].to_numpy(dtype=float)[order]
        baseline = self.ranges["baseline"].to_numpy(dtype=float)[order]
        style = styled(
            {"color": "C0", "alpha": 0.3, "linewidth": 0, "label": "viable range"},
            kwargs,
            PolyCollection,
        )
        self.band_ = ax.fill_between(rank, lower, upper, step="mid", **style)
        (self.line_,) = ax.plot(
            rank, baseline, color="C0", linewidth=1.2, label="baseline"
        )
        self.threshold_line_ = ax.axhline(
            self.threshold, color="C3", linestyle="--", linewidth=1, label="threshold"
        )
        ax.set_xlim(-0.5, max(order.size - 0.5, 0.5))
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("people, sorted by the baseline's probability")
        ax.set_ylabel("probability of the positive class")
        ax.set_title("Viable prediction ranges over the level set")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize="small")
