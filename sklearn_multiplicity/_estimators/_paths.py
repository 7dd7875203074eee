"""Both measures along a path of error tolerances.

The function behind :meth:`MultiplicityAuditor.path`; the engine runs the
path (the session's ``path``).
"""

import functools

from .._reporting._progress import progress_bar
from .._reporting._tables import path_frame


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
