"""The default backend: each kind of MIP goes to the solver fastest on it."""

from ._base import Backend, get_backend, register


@register
class AutoBackend(Backend):
    """HiGHS for minimum-error and flip MIPs, SCIP for disagreement MIPs.

    Both solve the same continuous hypothesis class, so the choice changes
    speed, never the certified answer. Measured on COMPAS (see
    ``benchmarks/README.rst``): HiGHS settles flip MIPs in well under a
    second; on the disagreement MIPs at eps = 0.5%, 1%, 2%, 3% and 5%, SCIP
    took 4.6, 16.9, 23.5, 64.5 and 27.2 s against HiGHS's 14.3, 19.7, 72.8,
    37.8 and 23.0 s (137 s against 168 s in all).
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
