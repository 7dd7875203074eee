"""How the MIPs of one audit reach a solver: backend copies, threads, rows."""

import copy

from ..._mip import IdentitySeparator
from ...backends import get_backend
from ..timing._scheduling import hand_out, solve_all
from .supports._split import split_by_support


class Solvers:
    """The backend, worker threads and LP relaxations of one audit.

    Parameters
    ----------
    enc : Encoding
    backend : Backend
        Solves every MIP; each solve gets a copy with its own time limit.
    n_jobs : int
        MIPs solved at once, in threads (the solvers release the GIL).
    separator : IdentitySeparator or None
        LP relaxations of ``enc`` (built on first use when ``None``).
    """

    def __init__(self, enc, backend, *, n_jobs=1, separator=None):
        self.enc = enc
        self.backend = backend
        self.n_jobs = n_jobs
        self._separator = separator
        self._split = None

    @property
    def support_split(self):
        """The supports of a sparse class (:mod:`._supports`; built on first
        use), or None when the class does not split."""
        if self._split is None:
            self._split = split_by_support(self.enc) or False
        return self._split or None

    def separator(self, deadline=None):
        """The LP relaxations of the encoding (built on first use).

        Its first LP (of the minimum-error MIP) gets the next MIP's share of
        ``deadline`` (``None``: unlimited).
        """
        if self._separator is None:
            limit = None if deadline is None else deadline.limit()
            self._separator = IdentitySeparator(self.enc, time_limit=limit)
        return self._separator

    def small(self, mip, rows=None, *, deadline=None, near=None):
        """``mip`` with only the identity rows its LP needs (``rows`` if known).

        Returns the small MIP and its LP relaxation (``None`` if ``rows`` were
        given or there are no identity rows). The LP gets the next MIP's
        share of ``deadline`` (``None``: unlimited); its separation starts
        from ``near``, the rows of a nearby MIP's LP, if given.
        """
        if not self.enc.n_identities:
            return mip, None
        separator = self.separator(deadline)
        if rows is not None:
            return separator.restrict(mip, rows), None
        limit = None if deadline is None else deadline.limit()
        return separator.tighten(mip, time_limit=limit, near=near)

    def backend_for(self, deadline, threads=None):
        """A copy of the backend limited to the next MIP's share of ``deadline``."""
        backend = copy.copy(self.backend)
        backend.time_limit = deadline.limit()
        if threads is not None:
            backend.threads = threads
        return backend

    def second_opinion(self, deadline):
        """A backend of another solver (SCIP, or HiGHS when the audit's is
        SCIP) limited to the next MIP's share of ``deadline``: a proof that
        settles a value to the solvers' resolution is checked by a second,
        independent implementation."""
        other = "highs" if self.backend.name == "scip" else "scip"
        return get_backend(other, time_limit=deadline.limit(), threads=1)

    def solve(self, mip, deadline, first_solution=False):
        """Solve one MIP within ``deadline`` (with every thread of the backend)."""
        return self.backend_for(deadline).solve(mip, first_solution=first_solution)

    def solve_all(self, mips, deadline, first_solution):
        """Solve ``mips``, ``n_jobs`` at a time; results in their order."""
        return solve_all(
            mips, first_solution, self.n_jobs, lambda t: self.backend_for(deadline, t)
        )

    def hand_out(self, workers, next_job, deadline, *, lookahead=False):
        """Solve the MIPs of ``next_job`` ``workers`` at a time (see ``hand_out``)."""
        hand_out(
            workers,
            next_job,
            deadline,
            lambda t: self.backend_for(deadline, t),
            lookahead=lookahead,
        )
