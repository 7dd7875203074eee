"""Displays of predictive multiplicity, following scikit-learn's Display API.

matplotlib is imported only when something is drawn.
"""

import numpy as np

from .._core import certified

#: Colours of the two measures (matplotlib's default cycle).
COLORS = {"ambiguity": "C0", "discrepancy": "C1"}


def check_matplotlib_support(caller):
    """Raise an ``ImportError`` naming ``caller`` when matplotlib is missing.

    Parameters
    ----------
    caller : str
        Name of the function or method that needs matplotlib, shown in the
        error message.

    Raises
    ------
    ImportError
        If matplotlib cannot be imported.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"{caller} requires matplotlib: pip install matplotlib "
            "(or the 'plot' extra of sklearn-multiplicity)."
        ) from exc


def styled(defaults, kwargs, artist):
    """``defaults`` updated with the user's matplotlib ``kwargs``.

    Aliases (``c``, ``ls``, ``lw``, ``fc``, ...) are normalised to their full
    names first, so that a user's ``c="k"`` replaces the default ``color``
    instead of clashing with it.
    """
    from matplotlib.cbook import normalize_kwargs

    return {
        **normalize_kwargs(defaults, artist),
        **normalize_kwargs(kwargs, artist),
    }


def _percent_formatter():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0)


def _percent_axes(ax, largest):
    """Both axes in percent; y from 0 to a little above ``largest``."""
    ax.xaxis.set_major_formatter(_percent_formatter())
    ax.yaxis.set_major_formatter(_percent_formatter())
    top = min(1.0, max(largest if np.isfinite(largest) else 1.0, 0.04))
    ax.set_ylim(-0.02 * top, 1.08 * top)


def _tolerance(eps):
    """A tolerance as a title shows it: ``0.01``, or one per class."""
    if isinstance(eps, dict):
        return ", ".join(f"{label}: {value:g}" for label, value in eps.items())
    return f"{eps:g}"


def axes_for(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    return ax


class Display:
    """What every display shares, following scikit-learn's Display API:
    ``from_estimator`` computes, :meth:`plot` draws (the subclass's
    ``_draw``) and keeps the axes."""

    def plot(self, ax=None, **kwargs):
        """Draw the display.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure when ``None``.
        **kwargs : dict
            Keyword arguments of the display's artists (the class says
            which), e.g. ``color`` or ``alpha``. They override the display's
            defaults; aliases such as ``c``, ``lw`` or ``fc`` are accepted.

        Returns
        -------
        self : Display
            The display, with the fitted attributes ``ax_`` (the axes drawn
            on), ``figure_`` (the figure holding them) and the artists that
            its class lists.
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        ax = axes_for(ax)
        self._draw(ax, kwargs)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    def _draw(self, ax, kwargs):  # pragma: no cover - abstract
        raise NotImplementedError


class MultiplicityPathDisplay(Display):
    """Ambiguity and discrepancy against the error tolerance ``eps``.

    The exact measures are drawn as solid step lines (their certified lower
    bounds); where a time limit left a gap, the band between the certified
    lower and upper bounds is shaded. A sampled estimate
    (:class:`SamplingAuditor`), when given, is drawn as dashed lines: it is a
    lower estimate, so it lies on or below the exact lines. This is the
    layout of Figure 3 of Marx, Calmon & Ustun (2020). The keyword arguments
    of :meth:`plot` go to :meth:`matplotlib.axes.Axes.plot` for every line
    (the exact and, when drawn, the sampled ones), e.g. ``linewidth=2``,
    over the defaults: colour per measure, step drawstyle, markers, labels
    and the dashes of the sampled lines.

    Create it with :meth:`from_estimator` (or its alias :meth:`from_auditor`),
    or from precomputed paths and then call :meth:`plot`. All parameters are
    keyword-only.

    Parameters
    ----------
    path : pandas.DataFrame
        :meth:`MultiplicityAuditor.path` output: columns ``epsilon`` and, for
        each of ``ambiguity`` and ``discrepancy``, the measure and its
        ``_lower`` and ``_upper`` certified bounds.
    sampling_path : pandas.DataFrame, default=None
        :meth:`SamplingAuditor.path` output (columns ``epsilon``,
        ``ambiguity``, ``discrepancy``), drawn dashed; ``None`` draws the
        exact measures only.

    Attributes
    ----------
    lines_ : dict of str to matplotlib.lines.Line2D
        ``"ambiguity"``, ``"discrepancy"`` and, with a sampling path,
        ``"sampling ambiguity"``, ``"sampling discrepancy"``.
    bands_ : dict of str to matplotlib.collections.PolyCollection
        The shaded certified bands, for the measures with an open gap.

    See Also
    --------
    GroupAmbiguityDisplay : Ambiguity per group.
    MultiplicityAuditor.path : The exact path drawn here.
    SamplingAuditor.path : The sampled path drawn dashed.

    Examples
    --------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from sklearn_multiplicity import (
    ...     MultiplicityAuditor, MultiplicityPathDisplay, SamplingAuditor)
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> auditor = MultiplicityAuditor(epsilon=0.1).fit(X, y)
    >>> sampling = SamplingAuditor.from_auditor(
    ...     auditor, X, y, n_models=10, random_state=0)
    >>> ax = Figure().add_subplot()
    >>> display = MultiplicityPathDisplay.from_estimator(
    ...     auditor, sampling=sampling, ax=ax, linewidth=2)
    >>> sorted(display.lines_)
    ['ambiguity', 'discrepancy', 'sampling ambiguity', 'sampling discrepancy']
    >>> display.lines_["ambiguity"].get_linewidth()
    2.0

    Without ``ax``, a new figure is made with :func:`matplotlib.pyplot.subplots`:

    >>> import matplotlib.pyplot as plt
    >>> display = MultiplicityPathDisplay.from_estimator(auditor)  # doctest: +SKIP
    >>> plt.show()  # doctest: +SKIP
    """

    def __init__(self, *, path, sampling_path=None):
        self.path = path
        self.sampling_path = sampling_path

    @classmethod
    def from_estimator(
        cls, auditor, max_epsilon=None, *, sampling=None, ax=None, **kwargs
    ):
        """Compute the path of a fitted auditor and plot it.

        Parameters
        ----------
        auditor : MultiplicityAuditor
            A fitted auditor.
        max_epsilon : float, default=None
            Largest tolerance of the path; defaults to the auditor's
            ``epsilon``.
        sampling : SamplingAuditor, default=None
            A fitted sampling auditor; its path on the same tolerances is
            drawn dashed.
        ax : matplotlib.axes.Axes, default=None
            Passed to :meth:`plot`.
        **kwargs : dict
            Keyword arguments of every line, exact and sampled (see
            :meth:`plot`).

        Returns
        -------
        display : MultiplicityPathDisplay
            The path (and the sampled one), drawn by :meth:`plot`.
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        path = auditor.path(max_epsilon)
        sampling_path = None
        if sampling is not None:
            sampling_path = sampling.path(float(path["epsilon"].max()))
        return cls(path=path, sampling_path=sampling_path).plot(ax=ax, **kwargs)

    #: An alias of :meth:`from_estimator`.
    from_auditor = from_estimator

    def _draw(self, ax, kwargs):
        from matplotlib.lines import Line2D

        eps = self.path["epsilon"].to_numpy(dtype=float)
        self.lines_, self.bands_ = {}, {}
        for name, color in COLORS.items():
            lower = self.path[f"{name}_lower"].to_numpy(dtype=float)
            upper = self.path[f"{name}_upper"].to_numpy(dtype=float)
            gap = ~certified(lower, upper)
            # Where a limit left a band, the line is its certified lower bound.
            label = f"{name} (exact" + (", else lower bound)" if gap.any() else ")")
            style = styled(
                {
                    "color": color,
                    "drawstyle": "steps-post",
                    "marker": "o",
                    "markersize": 3,
                    "label": label,
                },
                kwargs,
                Line2D,
            )
            (self.lines_[name],) = ax.plot(
                eps, self.path[name].to_numpy(dtype=float), **style
            )
            if gap.any():
                self.bands_[name] = ax.fill_between(
                    eps,
                    lower,
                    upper,
                    where=gap,
                    step="post",
                    color=color,
                    alpha=0.2,
                    label=f"{name}: certified bounds",
                )
        if self.sampling_path is not None:
            self._plot_sampling(ax, kwargs)
        _percent_axes(ax, self._largest())
        per_class = any(str(c).startswith("epsilon_") for c in self.path.columns)
        ax.set_xlabel(
            "error-rate tolerance ε of each class (capped at its own maximum)"
            if per_class
            else "error tolerance ε (share of the training set)"
        )
        ax.set_ylabel("share of training people")
        ax.set_title("Predictive multiplicity over the ε-level set")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")

    def _largest(self):
        frames = [self.path[[f"{m}_upper" for m in COLORS]]]
        if self.sampling_path is not None:
            frames.append(self.sampling_path[list(COLORS)])
        return max(float(np.nanmax(f.to_numpy(dtype=float))) for f in frames)

    def _plot_sampling(self, ax, kwargs):
        from matplotlib.lines import Line2D

        eps = self.sampling_path["epsilon"].to_numpy(dtype=float)
        for name, color in COLORS.items():
            style = styled(
                {
                    "color": color,
                    "linestyle": "--",
                    "drawstyle": "steps-post",
                    "label": f"{name} (sampling, lower estimate)",
                },
                kwargs,
                Line2D,
            )
            (self.lines_[f"sampling {name}"],) = ax.plot(
                eps, self.sampling_path[name].to_numpy(dtype=float), **style
            )


class GroupAmbiguityDisplay(Display):
    """Bar chart of ambiguity per group, with certified bounds.

    Each bar is a group's ambiguity (its certified lower bound); an error bar
    reaches up to the certified upper bound where a time limit left a gap. The
    dotted horizontal line is the overall ambiguity. The keyword arguments
    of :meth:`plot` go to :meth:`matplotlib.axes.Axes.bar`, e.g. ``color``,
    ``edgecolor`` or ``width``, over the default colour.

    Create it with :meth:`from_estimator` (or its alias :meth:`from_auditor`),
    or from a precomputed table and then call :meth:`plot`. All parameters
    are keyword-only.

    Parameters
    ----------
    by_group : pandas.DataFrame
        ``MultiplicityFrame.by_group`` (index: groups; columns
        ``ambiguity``, ``ambiguity_lower``, ``ambiguity_upper``, ``n``, ...).
    overall : float, default=None
        Overall ambiguity, drawn as a horizontal line; ``None`` draws no line.
    epsilon : float, default=None
        The tolerance, shown in the title.

    Attributes
    ----------
    bars_ : matplotlib.container.BarContainer
        One bar per group, in the order of ``by_group``.
    errorbar_ : matplotlib.container.ErrorbarContainer or None
        The bounds of the groups with a gap (None when all are certified).
    overall_line_ : matplotlib.lines.Line2D or None
        The horizontal line of the overall ambiguity (None without
        ``overall``).

    See Also
    --------
    MultiplicityPathDisplay : Ambiguity and discrepancy against ``eps``.
    MultiplicityAuditor.by_group : The per-group measures drawn here.

    Examples
    --------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from sklearn_multiplicity import GroupAmbiguityDisplay, MultiplicityAuditor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> groups = np.where(X[:, 1] == 1, "A", "B")
    >>> auditor = MultiplicityAuditor(epsilon=0.05).fit(X, y, groups=groups)
    >>> ax = Figure().add_subplot()
    >>> display = GroupAmbiguityDisplay.from_estimator(
    ...     auditor, ax=ax, color="tab:green", alpha=0.7)
    >>> [tick.get_text() for tick in display.ax_.get_xticklabels()]
    ['A', 'B']
    >>> display.bars_[0].get_alpha()
    0.7
    """

    def __init__(self, *, by_group, overall=None, epsilon=None):
        self.by_group = by_group
        self.overall = overall
        self.epsilon = epsilon

    @classmethod
    def from_estimator(cls, auditor, eps=None, *, ax=None, **kwargs):
        """Plot the per-group ambiguity of an auditor fitted with ``groups``.

        Parameters
        ----------
        auditor : MultiplicityAuditor
            An auditor fitted with ``groups=``.
        eps : float, default=None
            Tolerance of the groups' audit; defaults to the auditor's
            ``epsilon``.
        ax : matplotlib.axes.Axes, default=None
            Passed to :meth:`plot`.
        **kwargs : dict
            Keyword arguments of the bars (see :meth:`plot`).

        Returns
        -------
        display : GroupAmbiguityDisplay
            The groups of :meth:`MultiplicityAuditor.by_group`, drawn.
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        frame = auditor.by_group(eps)
        overall = float(frame.overall["ambiguity"])
        display = cls(by_group=frame.by_group, overall=overall, epsilon=frame.epsilon)
        return display.plot(ax=ax, **kwargs)

    #: An alias of :meth:`from_estimator`.
    from_auditor = from_estimator

    def _draw(self, ax, kwargs):
        from matplotlib.patches import Rectangle

        frame = self.by_group
        labels = [str(g) for g in frame.index]
        x = np.arange(len(labels))
        lower = frame["ambiguity_lower"].to_numpy(dtype=float)
        upper = frame["ambiguity_upper"].to_numpy(dtype=float)
        style = styled({"color": COLORS["ambiguity"]}, kwargs, Rectangle)
        self.bars_ = ax.bar(x, frame["ambiguity"].to_numpy(dtype=float), **style)
        gap = ~certified(lower, upper)
        self.errorbar_ = None
        if gap.any():
            self.errorbar_ = ax.errorbar(
                x[gap],
                lower[gap],
                yerr=np.vstack([np.zeros(gap.sum()), (upper - lower)[gap]]),
                fmt="none",
                ecolor="black",
                capsize=4,
                label="certified upper bound",
            )
        self.overall_line_ = None
        if self.overall is not None:
            self.overall_line_ = ax.axhline(
                self.overall, color="grey", linestyle=":", label="overall"
            )
            ax.legend(loc="best", fontsize="small")
        ax.set_xticks(x, labels)
        ax.set_ylabel("ambiguity (share of the group)")
        ax.yaxis.set_major_formatter(_percent_formatter())
        ax.set_ylim(0, 1.02)
        eps = "" if self.epsilon is None else f" at ε = {self.epsilon:g}"
        ax.set_title(f"Ambiguity by group{eps}")
        ax.grid(True, axis="y", alpha=0.3)


class FoldMultiplicityDisplay(Display):
    """Multiplicity per cross-validation fold, with certified bands.

    For each fold, three marks side by side: the training audit's ambiguity
    and discrepancy (a dot at the certified lower bound, a bar up to the
    certified upper bound where a limit left a gap), and the held-out
    people's ambiguity (a square at the share certified contestable, a bar
    up to that share plus the undecided). A mark without a bar is a
    certified value. The keyword arguments of :meth:`plot` go to
    :meth:`matplotlib.axes.Axes.errorbar` for every mark, e.g.
    ``markersize=8`` or ``capsize=2``, over the defaults: colour, marker,
    caps and labels.

    Create it with :meth:`from_estimator` (or its alias :meth:`from_auditor`),
    or from the table of :func:`cross_validate_multiplicity` and then call
    :meth:`plot`. All parameters are keyword-only.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`cross_validate_multiplicity` output: one row per fold, with
        columns ``train_ambiguity_lower``, ``train_ambiguity_upper``,
        ``train_discrepancy_lower``, ``train_discrepancy_upper``,
        ``test_contestable`` and ``test_undecided``.
    epsilon : float, default=None
        The tolerance, shown in the title.

    Attributes
    ----------
    errorbars_ : dict of str to matplotlib.container.ErrorbarContainer
        ``"training ambiguity"``, ``"training discrepancy"`` and
        ``"held-out ambiguity"``: one mark per fold each.

    See Also
    --------
    cross_validate_multiplicity : The table drawn here.
    MultiplicityPathDisplay : Ambiguity and discrepancy against ``eps``.

    Examples
    --------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from sklearn_multiplicity import FoldMultiplicityDisplay, MultiplicityAuditor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 2, size=(40, 3))
    >>> y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    >>> ax = Figure().add_subplot()
    >>> display = FoldMultiplicityDisplay.from_estimator(
    ...     MultiplicityAuditor(), X, y, eps=0.05, cv=2, ax=ax, markersize=8)
    >>> sorted(display.errorbars_)
    ['held-out ambiguity', 'training ambiguity', 'training discrepancy']
    >>> [tick.get_text() for tick in display.ax_.get_xticklabels()]
    ['0', '1']
    """

    #: What is drawn: label, lower and upper columns (or the share added to
    #: the lower one), colour, marker and offset from the fold's tick.
    MARKS = (
        ("training ambiguity", "train_ambiguity", "C0", "o", -0.2),
        ("training discrepancy", "train_discrepancy", "C1", "o", 0.0),
        ("held-out ambiguity", "test", "C2", "s", 0.2),
    )

    def __init__(self, *, results, epsilon=None):
        self.results = results
        self.epsilon = epsilon

    @classmethod
    def from_estimator(
        cls,
        auditor,
        X,
        y,
        *,
        eps=None,
        cv=5,
        groups=None,
        params=None,
        ax=None,
        **kwargs,
    ):
        """Cross-validate the multiplicity of an auditor and plot it per fold.

        Parameters
        ----------
        auditor : MultiplicityAuditor or Pipeline
            An (unfitted) auditor, or a Pipeline ending in one.
        X : array-like of shape (n_samples, n_features)
            Features.
        y : array-like of shape (n_samples,)
            Labels.
        eps : float or dict, default=None
            Error tolerance; ``None`` uses the auditor's ``epsilon``.
        cv : int, cross-validation generator or iterable, default=5
            Splitting strategy, as in :func:`cross_validate_multiplicity`.
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group splitter.
        params : dict, default=None
            Parameters passed to the auditor's ``fit``.
        ax : matplotlib.axes.Axes, default=None
            Passed to :meth:`plot`.
        **kwargs : dict
            Keyword arguments of every mark's error bar (see :meth:`plot`).

        Returns
        -------
        display : FoldMultiplicityDisplay
            The folds, drawn.
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        from ._cross_validation import cross_validate_multiplicity

        results = cross_validate_multiplicity(
            auditor, X, y, eps=eps, cv=cv, groups=groups, params=params
        )
        return cls(results=results, epsilon=eps).plot(ax=ax, **kwargs)

    #: An alias of :meth:`from_estimator`.
    from_auditor = from_estimator

    def _draw(self, ax, kwargs):
        from matplotlib.lines import Line2D

        folds = np.arange(len(self.results))
        self.errorbars_ = {}
        for label, column, color, marker, offset in self.MARKS:
            lower, upper = self._band(column)
            style = styled(
                {
                    "color": color,
                    "marker": marker,
                    "linestyle": "none",
                    "capsize": 3,
                    "label": label,
                },
                kwargs,
                Line2D,
            )
            self.errorbars_[label] = ax.errorbar(
                folds + offset,
                lower,
                yerr=np.vstack([np.zeros_like(lower), upper - lower]),
                **style,
            )
        ax.set_xticks(folds, [str(fold) for fold in self.results.index])
        ax.set_xlabel("fold (mark: certified lower bound; bar: up to the upper bound)")
        ax.set_ylabel("share of people (training or held-out)")
        ax.set_yticks(np.linspace(0.0, 1.0, 6))
        ax.yaxis.set_major_formatter(_percent_formatter())
        ax.set_ylim(-0.02, 1.2)  # room above 100% for the legend
        eps = "" if self.epsilon is None else f" at ε = {_tolerance(self.epsilon)}"
        ax.set_title(f"Multiplicity per fold{eps}")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="upper center", ncol=len(self.MARKS), fontsize="small")

    def _band(self, column):
        """Certified lower and upper bounds of a mark, per fold."""
        frame = self.results
        if column == "test":
            lower = frame["test_contestable"].to_numpy(dtype=float)
            return lower, lower + frame["test_undecided"].to_numpy(dtype=float)
        lower = frame[f"{column}_lower"].to_numpy(dtype=float)
        return lower, frame[f"{column}_upper"].to_numpy(dtype=float)
