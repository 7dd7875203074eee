"""HiGHS and SCIP through OR-Tools' MathOpt.

The model is handed to MathOpt as one ``ModelProto`` built from the sparse
matrix, never through Python expressions: building tens of thousands of rows
one expression at a time costs more than solving them.
"""

import logging
import math
import re
import time

import numpy as np

from .._core import Status
from .._mip import MIPResult
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
    """Common code of the MathOpt backends (continuous and integer variables).

    The ``ModelProto`` goes straight to MathOpt's C++ solver and the
    ``SolveResultProto`` is read back directly: the Python ``Model`` wrapper
    would cost more than a quick solve. The C++ solve releases the GIL, so
    MIPs of one process can run in parallel threads.
    """

    solver_type_name = None
    #: Whether the solver takes branching priorities through MathOpt.
    takes_priorities = False

    def _parameters(self, mip, first_solution):
        mathopt = _mathopt()
        params = mathopt.SolveParameters(enable_output=self.verbose > 1)
        if self.seconds() is not None:
            params.time_limit = _timedelta(self.seconds())
        if self.random_state is not None:
            params.random_seed = int(self.random_state) % (2**31 - 1)
        params.relative_gap_tolerance = 0.0
        params.absolute_gap_tolerance = 1e-6
        if first_solution:
            params.solution_limit = 1
        self._set_threads(params)
        self._tune(params, mip)
        return params

    def _tune(self, params, mip):
        """Solver-specific settings for one MIP (none by default)."""

    def _set_threads(self, params):
        if self.threads is not None:
            params.threads = int(self.threads)

    def _model_parameters(self, mip):
        from ortools.math_opt import model_parameters_pb2

        proto = model_parameters_pb2.ModelSolveParametersProto()
        if self.takes_priorities and mip.branching_priority is not None:
            ranked = np.flatnonzero(mip.branching_priority)
            proto.branching_priorities.ids.extend(ranked.tolist())
            proto.branching_priorities.values.extend(
                mip.branching_priority[ranked].tolist()
            )
        if mip.hint is not None:
            known = np.flatnonzero(~np.isnan(mip.hint))
            if known.size:
                hint = proto.solution_hints.add()
                hint.variable_values.ids.extend(known.tolist())
                hint.variable_values.values.extend(mip.hint[known].tolist())
        return proto

    def _solve(self, mip, *, first_solution=False):
        from ortools.math_opt.core.python import solver

        mathopt = _mathopt()
        solver_type = getattr(mathopt.SolverType, self.solver_type_name)
        proto = model_proto(mip)
        params = self._parameters(mip, first_solution).to_proto()
        log = self._log(mip)
        registration, on_event = self._events(mip)
        start = time.perf_counter()
        try:
            result = solver.solve(
                proto,
                solver_type.value,
                mathopt.StreamableSolverInitArguments().to_proto(),
                params,
                self._model_parameters(mip),
                log,
                registration,
                on_event,
                None,
            )
        except Exception as exc:
            raise SolverError(unwrap_status_error(exc)) from exc
        elapsed = time.perf_counter() - start
        return self._parse(mip, result, elapsed)

    def _log(self, mip):
        """The solver log's callback: printed when ``verbose > 1``."""
        return _print_lines if self.verbose > 1 else None

    def _events(self, mip):
        """The callback registration of a solve and its callback (none by
        default)."""
        from ortools.math_opt import callback_pb2

        return callback_pb2.CallbackRegistrationProto(), None

    def _parse(self, mip, result, elapsed):
        from ortools.math_opt import result_pb2, solution_pb2

        reasons = result_pb2.TerminationReasonProto
        termination = result.termination
        reason = termination.reason
        x = None
        for solution in result.solutions:
            primal = solution.primal_solution
            if (
                solution.HasField("primal_solution")
                and primal.feasibility_status == solution_pb2.SOLUTION_STATUS_FEASIBLE
            ):
                x = np.zeros(mip.n_vars)
                ids = np.asarray(primal.variable_values.ids, dtype=np.int64)
                x[ids] = np.asarray(primal.variable_values.values, dtype=float)
                break  # solutions come best first
        worst = math.inf if mip.maximize else -math.inf
        bound = termination.objective_bounds.dual_bound
        if not np.isfinite(bound):
            bound = worst
        name = reasons.Name(reason).removeprefix("TERMINATION_REASON_").lower()
        if reason == reasons.TERMINATION_REASON_OPTIMAL:
            status = Status.OPTIMAL
        elif reason == reasons.TERMINATION_REASON_INFEASIBLE:
            status = Status.INFEASIBLE
            bound = -worst
        elif reason in (
            reasons.TERMINATION_REASON_FEASIBLE,
            reasons.TERMINATION_REASON_NO_SOLUTION_FOUND,
        ):
            status = Status.FEASIBLE if x is not None else Status.NO_SOLUTION
        else:
            raise SolverError(
                f"{mip.name}: unexpected termination {name}: {termination.detail}"
            )
        return MIPResult(
            status=status,
            x=x,
            objective=math.nan,
            bound=float(bound),
            solve_time=elapsed,
            solver=self.name,
            message=f"{name} {termination.detail}".strip(),
        )


def _print_lines(lines):
    for line in lines:
        print(line)


#: A node line of HiGHS's MIP log: an optional source letter, the node
#: counts, the share explored, then the best bound and the best solution.
_HIGHS_NODE_LINE = re.compile(
    r"^\s*[A-Za-z]?\s+\d+\s+\d+\s+\d+\s+[\d.]+%\s+(\S+)\s+(\S+)\s"
)


def highs_bounds(line):
    """``(dual, primal)`` of a node line of HiGHS's MIP log, or None.

    Examples
    --------
    >>> highs_bounds(" R  0  0  0  0.00%  1751.858218  1631  7.41%  0 0 0 10 0.0s")
    (1751.858218, 1631.0)
    >>> highs_bounds("Presolving model") is None
    True
    """
    match = _HIGHS_NODE_LINE.match(line)
    if match is None:
        return None
    try:
        return float(match.group(1)), float(match.group(2))
    except ValueError:
        return None


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
        # Feasibility jump scans every row before the root LP: with tens of
        # thousands of affine-identity rows it costs about a second per MIP
        # and rarely finds what the root heuristics would not.
        params.highs.bool_options["mip_heuristic_run_feasibility_jump"] = False

    def _log(self, mip):
        # HiGHS reports its bounds only in its log: an observed solve reads
        # them from the node lines (and prints the log only when verbose).
        printing = super()._log(mip)
        if self.observer is None:
            return printing

        def read(lines):
            if printing is not None:
                printing(lines)
            for line in lines:
                bounds = highs_bounds(line)
                if bounds is not None:
                    self._observe(mip, bounds[1], bounds[0])

        return read


@register
class ScipBackend(MathOptBackend):
    """SCIP (branch-and-cut, open source) through MathOpt."""

    name = "scip"
    solver_type_name = "GSCIP"
    takes_priorities = True

    def _set_threads(self, params):
        # SCIP solves in one thread. Through MathOpt 9.15 any other count
        # ends some solves in "GScipOutput.status: UNKNOWN [INTERNAL]" (the
        # COMPAS discrepancy MIP, for one), so the count is not passed on.
        params.threads = 1

    def _tune(self, params, mip):
        if mip.kind == "disagreement" and mip.branching_priority is not None:
            # Branching heaviest first, SCIP's own cutting planes cost more
            # than they prune (the LP already has the identity rows it needs),
            # and so do restarts: without both, six COMPAS budgets took 64 s
            # instead of 109 s (benchmarks/README.rst).
            params.cuts = _mathopt().Emphasis.OFF
            params.gscip.int_params["presolving/maxrestarts"] = 0

    def _events(self, mip):
        # SCIP reports its bounds at every node; only an observed solve asks.
        from ortools.math_opt import callback_pb2

        registration = callback_pb2.CallbackRegistrationProto()
        if self.observer is None:
            return registration, None
        registration.request_registration.append(callback_pb2.CALLBACK_EVENT_MIP_NODE)

        def on_event(data):
            stats = data.mip_stats
            self._observe(mip, stats.primal_bound, stats.dual_bound)
            return callback_pb2.CallbackResultProto()

        return registration, on_event
