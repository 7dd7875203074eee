"""Both measures along a path of error tolerances.

The function behind :meth:`MultiplicityAuditor.path`, with that method's
docstring; the engine runs the path (:meth:`AuditSession.path`).
"""

import functools

from ._progress import progress_bar
from ._tables import path_frame

# Docstring of the auditor's path.
PATH = """Ambiguity and discrepancy for every error tolerance up to ``max_epsilon``.

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


def path_table(session, max_eps, step, n_discrepancy, limit, per_mip, verbose):
    """The table of :meth:`MultiplicityAuditor.path`: the session's path up
    to ``max_eps`` within ``limit`` seconds (``per_mip`` each), with progress
    bars when ``verbose >= 1``."""
    steps = session.path(
        max_eps,
        step,
        n_discrepancy,
        limit,
        per_mip,
        progress=functools.partial(progress_bar, verbose),
    )
    return path_frame(steps)
