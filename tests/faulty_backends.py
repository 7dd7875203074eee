"""Faulty backends: broken, lying and slow solvers, for fault-injection tests."""

import math
import time

import numpy as np

from sklearn_multiplicity._mip._program import MIPResult
from sklearn_multiplicity.backends import Backend, SolverError, get_backend


def _worst(mip):
    """The dual bound that proves nothing."""
    return math.inf if mip.maximize else -math.inf


class SolverErrorBackend(Backend):
    """Fails the way a solver is supposed to report failure."""

    name = "solver-error"

    def _solve(self, mip, *, first_solution=False):
        raise SolverError("injected solver failure")


class CrashingBackend(Backend):
    """Crashes with an unexpected exception type."""

    name = "crashing"

    def _solve(self, mip, *, first_solution=False):
        raise RuntimeError("injected crash")


class InfeasibleBackend(Backend):
    """Lies: claims every MIP is infeasible.

    With ``only`` set, lies only about MIPs whose name starts with it and
    solves the others with HiGHS.
    """

    name = "liar"

    def __init__(self, only=None, **kwargs):
        super().__init__(**kwargs)
        self.only = only

    def _solve(self, mip, *, first_solution=False):
        if self.only is not None and not mip.name.startswith(self.only):
            return _highs(self)._solve(mip, first_solution=first_solution)
        return MIPResult(
            "infeasible", None, math.nan, -_worst(mip), 0.0, self.name, "lie"
        )


class ViolatingBackend(Backend):
    """Returns an 'optimal' point that violates the bounds of every variable."""

    name = "violating"

    def _solve(self, mip, *, first_solution=False):
        x = np.where(np.isfinite(mip.var_upper), mip.var_upper, 1e6) + 5.0
        return MIPResult(
            "optimal", x, mip.evaluate(x), _worst(mip), 0.0, self.name, "garbage"
        )


class MisreportingBackend(Backend):
    """Solves with HiGHS, then misreports the objective or the bound.

    ``"objective"``: claims an objective far better than the solution's, with
    status optimal. ``"bound"``: claims a dual bound that the returned
    solution itself contradicts (better than its own objective).
    """

    name = "misreporting"

    def __init__(self, mode="objective", **kwargs):
        super().__init__(**kwargs)
        self.mode = mode

    def _solve(self, mip, *, first_solution=False):
        result = _highs(self)._solve(mip, first_solution=first_solution)
        if result.x is None:
            return result
        value = mip.evaluate(result.x)
        better = 1.0 if mip.maximize else -1.0
        if self.mode == "objective":
            result.objective = value + 100.0 * better
        else:
            result.bound = value - better
        result.status = "optimal"
        result.message = f"misreported {self.mode}"
        return result


class SleepyBackend(Backend):
    """Uses its whole time limit, then finds nothing."""

    name = "sleepy"

    def _solve(self, mip, *, first_solution=False):
        seconds = 5.0 if self.time_limit is None else self.time_limit
        time.sleep(seconds)
        return MIPResult(
            "no_solution", None, math.nan, _worst(mip), seconds, self.name, "slept"
        )


class NoSolutionBackend(Backend):
    """Finds nothing and proves nothing, at once."""

    name = "no-solution"

    def _solve(self, mip, *, first_solution=False):
        return MIPResult("no_solution", None, math.nan, _worst(mip), 0.0, self.name)


class OverclaimingBackend(Backend):
    """Finds nothing but claims a dual bound of 1000 errors (min problems)."""

    name = "overclaiming"

    def _solve(self, mip, *, first_solution=False):
        bound = -1000.0 if mip.maximize else 1000.0
        return MIPResult("no_solution", None, math.nan, bound, 0.0, self.name, "lie")


def _highs(backend):
    return get_backend(
        "highs", time_limit=backend.time_limit, threads=1, random_state=0
    )
