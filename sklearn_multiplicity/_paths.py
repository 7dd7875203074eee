"""Both measures along a path of error tolerances."""

import numpy as np
import pandas as pd

from ._core._validation import PerClassEpsilon
from ._tables import bounds_columns, path_frame

#: Most of a per-class path's time that settling its largest pair may take
#: (its proofs carry down to every step).
LARGEST_SHARE = 0.5


def progress_bar(verbose, total, desc, unit="pattern"):
    """``update(remaining)`` of a progress bar (``verbose >= 1``), or None.

    Parameters
    ----------
    verbose : int
        The estimator's verbosity.
    total : int
        Items to settle.
    desc : str
        Label of the bar.
    unit : str, default="pattern"
        What an item is.

    Returns
    -------
    callable or None
        ``update(remaining)``, which closes the bar when nothing remains.
    """
    if verbose < 1 or total == 0:
        return None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit)

    def update(remaining):
        bar.n = total - remaining
        bar.refresh()
        if remaining == 0:
            bar.close()

    return update


class PathMixin:
    """:meth:`path` of :class:`MultiplicityAuditor`.

    Reads the fitted ``session_`` and ``verbose``, and the auditor's
    ``_request(eps)`` (tolerance, budget and deadline of a request).
    """

    def path(self, max_epsilon=None, *, step=None, n_discrepancy=None):
        """Ambiguity and discrepancy for every error tolerance up to ``max_epsilon``.

        With integral weights, every whole number of extra errors from 0 to
        ``floor(max_epsilon * W)``; otherwise ``step``-spaced tolerances.
        Flip MIPs are solved to optimality once (below the largest budget),
        which answers ambiguity at every tolerance. Discrepancy is one MIP per
        tolerance not yet certified, smallest first, warm-started from all
        models found so far. With ``n_discrepancy``, only that many evenly
        spaced tolerances get a MIP and the others are bracketed by
        monotonicity. Under ``total_time_limit``, a first pass spends at most
        a fifth of the time on short (5 s) discrepancy MIPs at every tenth
        open tolerance, largest first, so that tolerances the ascending pass
        does not reach are still bracketed closely.

        With a dict of per-class tolerances, both rates grow in equal steps
        of ``step`` (default: a tenth of the largest), each capped at its own
        maximum, and every step is certified on its own.

        Parameters
        ----------
        max_epsilon : float in [0, 1] or dict, default=None
            Largest tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.
        step : float, default=None
            Spacing of tolerances when weights are not integral or the
            tolerances are per class.
        n_discrepancy : int, default=None
            Number of tolerances with a discrepancy MIP (``None``: all).

        Returns
        -------
        pandas.DataFrame
            One row per tolerance: ``epsilon``, ``extra_errors``, ``budget``,
            ``ambiguity``, ``ambiguity_lower``, ``ambiguity_upper``,
            ``discrepancy``, ``discrepancy_lower``, ``discrepancy_upper``,
            ``certified``. Per class, ``epsilon`` is the step's common rate
            (before each class's cap), followed by ``epsilon_<label>`` for
            each class, ``false_positives_budget`` and
            ``false_negatives_budget`` instead of ``extra_errors`` and
            ``budget``. Also stored as ``path_``.
        """
        max_eps, _, deadline = self._request(max_epsilon)
        if isinstance(max_eps, PerClassEpsilon):
            self.path_ = self._per_class_path(max_eps, step, deadline)
            return self.path_
        session, discrepancy = self.session_, self.session_.discrepancy
        epsilons, extras, budgets = session.level_set.grid(max_eps, step)
        n_open = session.n_undetermined(budgets[-1], exact=True)
        session.certify_ambiguity(
            budgets[-1],
            deadline,
            exact=True,
            progress=progress_bar(self.verbose, n_open, "ambiguity path"),
        )
        if n_discrepancy is not None and n_discrepancy < budgets.size:
            spaced = np.linspace(0, budgets.size - 1, max(2, n_discrepancy))
            for i in np.unique(np.round(spaced)).astype(int):
                discrepancy.discrepancy(budgets[i], deadline=deadline)
        else:
            n_open = discrepancy.open_budgets(budgets).size
            progress = progress_bar(
                self.verbose, n_open, "discrepancy path", "tolerance"
            )
            discrepancy.path(budgets, deadline=deadline, progress=progress)
        ambiguity, disc = session.path_bounds(budgets, discrepancy.envelope(budgets))
        self.path_ = path_frame(epsilons, extras, budgets, ambiguity, disc)
        return self.path_

    def _per_class_path(self, max_eps, step, deadline):
        """The path of equal steps on both rates (see :meth:`path`)."""
        session = self.session_
        steps = max_eps.steps(step)
        # The largest pair first: a flip it proves infeasible is infeasible
        # at every step (each is no larger in either kind of error), so the
        # steps below only decide the patterns the largest pair can flip.
        session.certify_ambiguity(
            session.level_set.budget(steps[-1][1]), deadline.share(LARGEST_SHARE)
        )
        budgets, discrepancy = [], []
        for _, eps in steps:
            budget = session.level_set.budget(eps)
            session.certify_ambiguity(budget, deadline)
            budgets.append(budget)
            discrepancy.append(
                session.discrepancy_bounds(budget, deadline=deadline).bounds
            )
        # Both rates grow along the steps: the bounds are monotone along them.
        ambiguity, discrepancy = session.path_bounds(budgets, discrepancy)
        rows = [
            {
                "epsilon": common,
                **eps.columns(),
                "false_positives_budget": budget.false_positives,
                "false_negatives_budget": budget.false_negatives,
                **bounds_columns("ambiguity", amb),
                **bounds_columns("discrepancy", disc),
                "certified": bool(amb.certified and disc.certified),
            }
            for (common, eps), budget, amb, disc in zip(
                steps, budgets, ambiguity, discrepancy, strict=True
            )
        ]
        return pd.DataFrame(rows)
