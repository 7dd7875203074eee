"""Both measures along a path of error tolerances."""

import numpy as np
import pandas as pd

from ._core._validation import PerClassEpsilon
from ._progress import progress_bar
from ._tables import bounds_columns, path_frame


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
        does not reach are still bracketed closely. A path is one question
        with its own ``total_time_limit``: asked again with the same
        arguments, it reads what it certified at no solver time, and
        everything it learns serves every tolerance's audit.

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
        max_eps, top, _ = self._request(max_epsilon)
        # A path is one question: asked again, it reads what it certified.
        key = ("path", top, step, n_discrepancy)
        self.path_ = self.session_.accounts.spend(
            key,
            self.total_time_limit,
            self.time_limit,
            lambda deadline: self._path(max_eps, step, n_discrepancy, deadline),
            settled=lambda: False,  # a second run would repeat this one
        )
        return self.path_

    def _path(self, max_eps, step, n_discrepancy, deadline):
        if isinstance(max_eps, PerClassEpsilon):
            return self._per_class_path(max_eps, step, deadline)
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
        return path_frame(epsilons, extras, budgets, ambiguity, disc)

    def _per_class_path(self, max_eps, step, deadline):
        """The path of equal steps on both rates (see :meth:`path`)."""
        session = self.session_
        steps = max_eps.steps(step)
        budgets = [session.level_set.budget(eps) for _, eps in steps]
        ambiguity, discrepancy = session.per_class_path(budgets, deadline)
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
