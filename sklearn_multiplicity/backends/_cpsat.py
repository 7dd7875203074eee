"""CP-SAT through ``ortools.sat.python.cp_model``, for all-integer problems only.

MathOpt's own ``CP_SAT`` solver type silently treats continuous variables as
integers and can report a wrong "optimal"; this backend calls ``cp_model``
directly and refuses any problem with a continuous variable or a fractional
coefficient instead.
"""

import math

import numpy as np

from .._core import Status
from .._mip import MIPResult
from ._base import Backend, SolverError, register
from ._stopping import interruptible


def _as_integers(values, what):
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    if np.any(np.abs(values[finite] - np.round(values[finite])) > 1e-9):
        raise ValueError(
            f"solver 'cpsat' needs integer {what}; got fractional values. Use "
            "integer-valued features (e.g. binary or counts) or a MathOpt solver."
        )
    return np.round(values)


@register
class CpSatBackend(Backend):
    """CP-SAT (constraint programming with SAT, open source)."""

    name = "cpsat"
    supports_continuous = False

    def check_supported(self, mip):
        super().check_supported(mip)
        _as_integers(mip.A.data, "constraint coefficients")
        _as_integers(mip.objective, "objective coefficients")
        for what, bounds in [("variable bounds", (mip.var_lower, mip.var_upper))]:
            for b in bounds:
                if not np.all(np.isfinite(b)):
                    raise ValueError(f"solver 'cpsat' needs finite {what}")

    def _solve(self, mip, *, first_solution=False):
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        lower = _as_integers(mip.var_lower, "variable bounds").astype(np.int64)
        upper = _as_integers(mip.var_upper, "variable bounds").astype(np.int64)
        variables = [
            model.new_int_var(int(lo), int(hi), f"x{i}")
            for i, (lo, hi) in enumerate(zip(lower, upper, strict=True))
        ]
        A = mip.A.tocsr()
        coefficients = _as_integers(A.data, "constraint coefficients").astype(np.int64)
        big = np.iinfo(np.int64).max // 4
        for r in range(mip.n_rows):
            start, stop = A.indptr[r], A.indptr[r + 1]
            expr = cp_model.LinearExpr.weighted_sum(
                [variables[j] for j in A.indices[start:stop]],
                coefficients[start:stop].tolist(),
            )
            lo = mip.row_lower[r]
            hi = mip.row_upper[r]
            lo = -big if not np.isfinite(lo) else int(math.ceil(lo - 1e-9))
            hi = big if not np.isfinite(hi) else int(math.floor(hi + 1e-9))
            model.add_linear_constraint(expr, lo, hi)
        objective_coefs = _as_integers(mip.objective, "objective coefficients")
        nonzero = np.flatnonzero(objective_coefs)
        objective = cp_model.LinearExpr.weighted_sum(
            [variables[j] for j in nonzero],
            objective_coefs[nonzero].astype(np.int64).tolist(),
        )
        if mip.maximize:
            model.maximize(objective)
        else:
            model.minimize(objective)
        if mip.hint is not None:
            for i in np.flatnonzero(~np.isnan(mip.hint)):
                value = int(np.clip(round(mip.hint[i]), lower[i], upper[i]))
                model.add_hint(variables[i], value)

        solver = cp_model.CpSolver()
        parameters = solver.parameters
        if self.seconds() is not None:
            parameters.max_time_in_seconds = float(self.seconds())
        parameters.num_workers = int(self.threads) if self.threads else 0
        if self.random_state is not None:
            parameters.random_seed = int(self.random_state) % (2**31 - 1)
        parameters.log_search_progress = self.verbose > 1
        parameters.stop_after_first_solution = bool(first_solution)
        try:
            with interruptible(solver.stop_search):
                status = solver.solve(model, self._reporter(mip, cp_model))
        except Exception as exc:  # noqa: BLE001 - any crash proves nothing
            raise SolverError(f"{type(exc).__name__}: {exc}") from exc

        x = None
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            x = np.array([solver.value(v) for v in variables], dtype=float)
        worst = math.inf if mip.maximize else -math.inf
        bound = solver.best_objective_bound + mip.objective_offset
        if status == cp_model.OPTIMAL:
            result_status = Status.OPTIMAL
        elif status == cp_model.FEASIBLE:
            result_status = Status.FEASIBLE
        elif status == cp_model.INFEASIBLE:
            result_status, bound = Status.INFEASIBLE, -worst
        elif status == cp_model.UNKNOWN:
            result_status, bound = Status.NO_SOLUTION, worst
        else:
            raise SolverError(f"{mip.name}: CP-SAT status {solver.status_name(status)}")
        if not np.isfinite(bound):
            bound = -worst if result_status == Status.INFEASIBLE else worst
        return MIPResult(
            status=result_status,
            x=x,
            objective=math.nan,
            bound=float(bound),
            solve_time=solver.wall_time,
            solver=self.name,
            message=solver.status_name(status).lower(),
        )

    def _reporter(self, mip, cp_model):
        """A solution callback handing each new solution's objective and the
        bound to the observer (None when the solve is not observed)."""
        if self.observer is None:
            return None
        backend, offset = self, mip.objective_offset

        class Reporter(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self):
                backend._observe(
                    mip,
                    self.objective_value + offset,
                    self.best_objective_bound + offset,
                )

        return Reporter()
