"""HiGHS and SCIP through OR-Tools' MathOpt.

The model is handed to MathOpt as one ``ModelProto`` built from the sparse
matrix, never through Python expressions: building tens of thousands of rows
one expression at a time costs more than solving them.
"""

import logging
import math
import time

import numpy as np

from .._mip import FEASIBLE, INFEASIBLE, NO_SOLUTION, OPTIMAL, MIPResult
from ._base import Backend, SolverError, register

logger = logging.getLogger("sklearn_multiplicity")

#: Thread count of the HiGHS scheduler of this process, set by the first solve.
_HIGHS_PROCESS_THREADS = None


def _mathopt():
    from ortools.math_opt.python import mathopt

    return mathopt


def model_proto(mip):
    """The MathOpt ``ModelProto`` of ``mip``."""
    from ortools.math_opt import model_pb2

    proto = model_pb2.ModelProto(name=mip.name)
    n_vars, n_rows = mip.n_vars, mip.n_rows
    proto.variables.ids.extend(range(n_vars))
    proto.variables.lower_bounds.extend(mip.var_lower.tolist())
    proto.variables.upper_bounds.extend(mip.var_upper.tolist())
    proto.variables.integers.extend(mip.is_integer.tolist())
    proto.objective.maximize = bool(mip.maximize)
    proto.objective.offset = float(mip.objective_offset)
    nonzero = np.flatnonzero(mip.objective)
    proto.objective.linear_coefficients.ids.extend(nonzero.tolist())
    proto.objective.linear_coefficients.values.extend(mip.objective[nonzero].tolist())
    proto.linear_constraints.ids.extend(range(n_rows))
    proto.linear_constraints.lower_bounds.extend(mip.row_lower.tolist())
    proto.linear_constraints.upper_bounds.extend(mip.row_upper.tolist())
    # MathOpt wants the matrix sorted by (row, column): canonical CSR order.
    A = mip.A.tocsr(copy=True)
    A.sum_duplicates()
    A.sort_indices()
    coo = A.tocoo()
    matrix = proto.linear_constraint_matrix
    matrix.row_ids.extend(coo.row.tolist())
    matrix.column_ids.extend(coo.col.tolist())
    matrix.coefficients.extend(coo.data.tolist())
    return proto


def unwrap_status_error(exc):
    """The readable message of a MathOpt failure.

    OR-Tools 9.15 raises ``AttributeError: 'StatusNotOk' object has no attribute
    'canonical_code'`` for every solver error; the real message is in the
    exception's ``__context__``.
    """
    context = exc.__context__
    if isinstance(exc, AttributeError) and context is not None:
        return f"{type(context).__name__}: {context}"
    return f"{type(exc).__name__}: {exc}"


class MathOptBackend(Backend):
    """Common code of the MathOpt backends (continuous and integer variables)."""

    solver_type_name = None

    def _parameters(self, first_solution):
        mathopt = _mathopt()
        params = mathopt.SolveParameters(enable_output=self.verbose > 1)
        if self.time_limit is not None:
            params.time_limit = _timedelta(self.time_limit)
        if self.random_state is not None:
            params.random_seed = int(self.random_state) % (2**31 - 1)
        params.relative_gap_tolerance = 0.0
        params.absolute_gap_tolerance = 1e-6
        if first_solution:
            params.solution_limit = 1
        self._set_threads(params)
        return params

    def _set_threads(self, params):
        if self.threads is not None:
            params.threads = int(self.threads)

    def _model_parameters(self, mip, model):
        mathopt = _mathopt()
        model_params = mathopt.ModelSolveParameters()
        if mip.hint is not None:
            known = np.flatnonzero(~np.isnan(mip.hint))
            if known.size:
                values = {model.get_variable(int(i)): float(mip.hint[i]) for i in known}
                model_params.solution_hints = [
                    mathopt.SolutionHint(variable_values=values)
                ]
        return model_params

    def _solve(self, mip, *, first_solution=False):
        mathopt = _mathopt()
        solver_type = getattr(mathopt.SolverType, self.solver_type_name)
        model = mathopt.Model.from_model_proto(model_proto(mip))
        params = self._parameters(first_solution)
        model_params = self._model_parameters(mip, model)
        start = time.perf_counter()
        try:
            result = mathopt.solve(
                model, solver_type, params=params, model_params=model_params
            )
        except (AttributeError, RuntimeError, ValueError) as exc:
            raise SolverError(unwrap_status_error(exc)) from exc
        elapsed = time.perf_counter() - start
        return self._parse(mip, model, result, elapsed)

    def _parse(self, mip, model, result, elapsed):
        mathopt = _mathopt()
        reason = result.termination.reason
        x = None
        if result.has_primal_feasible_solution():
            values = result.variable_values()
            x = np.array([values[model.get_variable(i)] for i in range(mip.n_vars)])
        worst = math.inf if mip.maximize else -math.inf
        bound = result.termination.objective_bounds.dual_bound
        if not np.isfinite(bound):
            bound = worst
        if reason == mathopt.TerminationReason.OPTIMAL:
            status = OPTIMAL
        elif reason == mathopt.TerminationReason.INFEASIBLE:
            status = INFEASIBLE
            bound = -worst
        elif reason in (
            mathopt.TerminationReason.FEASIBLE,
            mathopt.TerminationReason.NO_SOLUTION_FOUND,
        ):
            status = FEASIBLE if x is not None else NO_SOLUTION
        else:
            raise SolverError(
                f"{mip.name}: unexpected termination {reason.name}: "
                f"{result.termination.detail}"
            )
        return MIPResult(
            status=status,
            x=x,
            objective=math.nan,
            bound=float(bound),
            solve_time=elapsed,
            solver=self.name,
            message=f"{reason.name.lower()} {result.termination.detail}".strip(),
        )


def _timedelta(seconds):
    import datetime

    return datetime.timedelta(seconds=float(seconds))


@register
class HighsBackend(MathOptBackend):
    """HiGHS (branch-and-cut, open source) through MathOpt."""

    name = "highs"
    solver_type_name = "HIGHS"

    def _set_threads(self, params):
        # MathOpt rejects the generic ``threads`` for HiGHS; it has its own
        # option. HiGHS keeps one thread scheduler per process: once created,
        # a solve asking for another thread count fails with an INTERNAL
        # error, so the first count used in a process is used for all.
        global _HIGHS_PROCESS_THREADS
        if _HIGHS_PROCESS_THREADS is None:
            _HIGHS_PROCESS_THREADS = int(self.threads or 1)
        elif self.threads is not None and int(self.threads) != _HIGHS_PROCESS_THREADS:
            logger.debug(
                "HiGHS runs with %d threads in this process (first setting); "
                "ignoring threads=%d",
                _HIGHS_PROCESS_THREADS,
                self.threads,
            )
        params.highs.int_options["threads"] = _HIGHS_PROCESS_THREADS
        # Tighter than the default 1e-6: big-M rows amplify integrality slack.
        params.highs.double_options["mip_feasibility_tolerance"] = 1e-9


@register
class ScipBackend(MathOptBackend):
    """SCIP (branch-and-cut, open source) through MathOpt."""

    name = "scip"
    solver_type_name = "GSCIP"
