"""The default backend: each kind of MIP goes to the solver fastest on it."""

from ._base import Backend, get_backend, register


@register
class AutoBackend(Backend):
    """HiGHS for minimum-error and flip MIPs, SCIP for disagreement MIPs.

    Both solve the same continuous hypothesis class, so the choice changes
    speed, never the certified answer: HiGHS settles flip MIPs quickly and
    SCIP proves the disagreement MIPs faster (measured in
    ``benchmarks/README.rst``).
    """

    name = "auto"
    #: Solver per :attr:`~sklearn_multiplicity._mip.MIP.kind`.
    solvers = {"disagreement": "scip"}
    #: Solver of every other kind.
    default = "highs"

    def solver_for(self, mip):
        """Name of the backend that solves ``mip``."""
        return self.solvers.get(mip.kind, self.default)

    def _solve(self, mip, *, first_solution=False):
        backend = get_backend(
            self.solver_for(mip),
            time_limit=self.time_limit,
            threads=self.threads,
            random_state=self.random_state,
            verbose=self.verbose,
            observer=self.observer,
        )
        return backend._solve(mip, first_solution=first_solution)
