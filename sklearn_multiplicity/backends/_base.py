"""The backend interface and the registry of solvers."""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._core import Status
from .._mip import MIPResult
from ._stopping import stop_requested

#: Seconds of a solve that starts after a stop was requested: what presolve
#: and the first heuristics prove, at once.
STOPPED_TIME_LIMIT = 1e-3


class SolverError(RuntimeError):
    """A solver failed in a way that proves nothing about the problem."""


@dataclass(kw_only=True, eq=False)
class Backend:
    """Solve a :class:`~sklearn_multiplicity._mip.MIP`; one method, :meth:`solve`.

    Subclasses implement :meth:`_solve`. The public :meth:`solve` re-checks
    the returned solution against the MIP (a solver is never trusted blindly),
    rounds dual bounds of integral objectives and converts crashes into an
    ``"error"`` result.

    Parameters
    ----------
    time_limit : float or None
        Seconds for one solve.
    threads : int or None
        Solver threads (``None``: the solver's default).
    random_state : int or None
        Solver seed.
    verbose : int
        Print the solver log when > 1.
    observer : callable or None
        ``observer(primal, dual)``, called while a MIP runs with its best
        objective value and bound so far (in the weights of the problem,
        ``nan`` or infinite while unknown), as often as the solver reports
        them. ``None``: not observed, and no solver callback is set.
    """

    name = "base"
    #: Whether the backend accepts continuous variables. The audit session
    #: reads it to choose the hypothesis class: a backend without them gets
    #: integer weights under ``weights="auto"`` and refuses
    #: ``weights="continuous"``.
    supports_continuous = True
    #: Absolute tolerance used to accept a returned solution.
    feasibility_tolerance = 1e-5

    # The parameters, as keyword-only dataclass fields (compared by identity).
    time_limit: float | None = None
    threads: int | None = None
    random_state: int | None = None
    verbose: int = 0
    observer: Callable[[float, float], None] | None = None

    def solve(self, mip, *, first_solution=False):
        """Solve ``mip``.

        Parameters
        ----------
        mip : MIP
        first_solution : bool
            Stop at the first feasible solution: enough to answer a decision
            question whose limit is a constraint of ``mip`` (a flip within an
            error budget).

        Returns
        -------
        MIPResult
        """
        self.check_supported(mip)
        start = time.perf_counter()
        try:
            result = self._solve(mip, first_solution=first_solution)
        except Exception as exc:  # noqa: BLE001 - a crash proves nothing
            worst = math.inf if mip.maximize else -math.inf
            return MIPResult(
                status=Status.ERROR,
                x=None,
                objective=math.nan,
                bound=worst,
                solve_time=time.perf_counter() - start,
                solver=self.name,
                message=f"{mip.name}: {_describe(exc)}",
            )
        return self._checked(mip, result)

    def seconds(self):
        """The time limit of the solve starting now (``None``: unlimited);
        next to nothing once a stop is requested."""
        if stop_requested():
            return STOPPED_TIME_LIMIT
        return self.time_limit

    def check_supported(self, mip):
        """Raise ``ValueError`` when this backend cannot solve ``mip`` exactly."""
        if not self.supports_continuous and not mip.is_integer.all():
            raise ValueError(
                f"solver {self.name!r} only solves problems whose variables are all "
                "integer; this problem has continuous variables"
            )

    def _solve(self, mip, *, first_solution=False):  # pragma: no cover - abstract
        raise NotImplementedError

    def _observe(self, mip, primal, dual):
        """Hand the solver's ``primal`` and ``dual`` (in the MIP's objective
        unit) to :attr:`observer` in weights; an observer's failure never
        stops a solve."""
        if self.observer is None:
            return
        unit = mip.objective_unit
        try:
            self.observer(unit * float(primal), unit * float(dual))
        except Exception:  # noqa: BLE001 - progress is never worth a failed solve
            self.observer = None

    def _checked(self, mip, result):
        # ``_solve`` reports in the MIP's objective unit: every check is made
        # in it, then values and bounds are converted to weights.
        if result.x is not None:
            x = np.asarray(result.x, dtype=float).copy()
            x[mip.is_integer] = np.round(x[mip.is_integer])
            violation = mip.max_violation(x)
            if violation > self.feasibility_tolerance:
                # Not a solution of this problem: keep only what the bound proves.
                result.message += (
                    f" {mip.name}: returned solution violates the problem by "
                    f"{violation:.3g}; discarded"
                )
                result.x = None
                result.objective = math.nan
                if result.status != Status.ERROR:
                    result.status = Status.NO_SOLUTION
            else:
                result.x = x
                result.objective = mip.evaluate(x)
        if mip.objective_is_integral and np.isfinite(result.bound):
            rounding = math.floor if mip.maximize else math.ceil
            result.bound = float(
                rounding(result.bound - (1e-6 if not mip.maximize else -1e-6))
            )
        if result.status == Status.OPTIMAL and result.x is not None:
            # An "optimal" status must agree with the bound.
            gap = abs(result.objective - result.bound)
            if gap > 1e-6 * max(1.0, abs(result.objective)):
                result.status = Status.FEASIBLE
        result.objective = mip.objective_unit * float(result.objective)
        result.bound = mip.objective_unit * float(result.bound)
        return result


def _describe(exc):
    if isinstance(exc, SolverError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


_REGISTRY = {}


def register(cls):
    _REGISTRY[cls.name] = cls
    return cls


def available_solvers():
    """Names accepted by the ``solver`` parameter."""
    from . import _auto, _cpsat, _mathopt  # noqa: F401  (registration side effect)

    return sorted(_REGISTRY)


def get_backend(name, **kwargs):
    """Instantiate the backend called ``name``."""
    names = available_solvers()
    if isinstance(name, Backend):
        return name
    if not isinstance(name, str) or name.lower() not in _REGISTRY:
        raise ValueError(f"Unknown solver {name!r}; choose one of {names}.")
    return _REGISTRY[name.lower()](**kwargs)
