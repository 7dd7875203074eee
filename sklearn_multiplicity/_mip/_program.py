"""A small solver-neutral mixed-integer linear program.

Formulations emit a :class:`MIP`; backends solve any :class:`MIP`. Neither side
imports the other, so a new backend never touches a formulation and a
formulation can be unit-tested without a solver.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._core import Status

# The statuses under their short names, for backends and tests.
OPTIMAL = Status.OPTIMAL
FEASIBLE = Status.FEASIBLE
INFEASIBLE = Status.INFEASIBLE
NO_SOLUTION = Status.NO_SOLUTION
ERROR = Status.ERROR


@dataclass
class MIP:
    """``min/max c @ x + offset`` s.t. ``row_lower <= A @ x <= row_upper``.

    Parameters
    ----------
    objective : ndarray of shape (n_vars,)
    A : sparse matrix of shape (n_rows, n_vars)
    row_lower, row_upper : ndarray of shape (n_rows,)
        May contain ``-inf`` / ``inf``.
    var_lower, var_upper : ndarray of shape (n_vars,)
    is_integer : ndarray of bool, shape (n_vars,)
    maximize : bool
    objective_offset : float
    objective_is_integral : bool
        True when every feasible solution has an integral objective value, so
        that a fractional dual bound may be rounded to a whole number.
    objective_unit : float
        What one unit of the objective weighs: formulations divide weights by
        a common unit (:func:`~.._core.weight_unit`) so that solvers
        see the same numbers however often the data repeat. Backends and LP
        relaxations report objective values and bounds multiplied by it, in
        weights.
    hint : ndarray of shape (n_vars,) or None
        Starting solution; ``nan`` entries are left to the solver.
    branching_priority : ndarray of int, shape (n_vars,) or None
        Solvers that take priorities (SCIP) branch on a fractional variable of
        the highest priority first; others ignore them. Priorities change the
        search, never the optimum.
    name : str
        Used in logs and error messages.
    kind : str
        Which formulation built it (``"min_error"``, ``"flip"``,
        ``"disagreement"``): lets a backend pick a solver per kind.
    """

    objective: np.ndarray
    A: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    var_lower: np.ndarray
    var_upper: np.ndarray
    is_integer: np.ndarray
    maximize: bool = False
    objective_offset: float = 0.0
    objective_is_integral: bool = False
    objective_unit: float = 1.0
    hint: np.ndarray | None = None
    branching_priority: np.ndarray | None = None
    name: str = "mip"
    kind: str = "mip"

    def __post_init__(self):
        self.A = sp.csr_matrix(self.A)
        n_rows, n_vars = self.A.shape
        for attr, size in [
            ("objective", n_vars),
            ("var_lower", n_vars),
            ("var_upper", n_vars),
            ("row_lower", n_rows),
            ("row_upper", n_rows),
        ]:
            value = np.asarray(getattr(self, attr), dtype=float)
            if value.shape != (size,):
                raise ValueError(f"{attr} has shape {value.shape}, expected ({size},)")
            setattr(self, attr, value)
        self.is_integer = np.asarray(self.is_integer, dtype=bool)
        self.objective_unit = float(self.objective_unit)
        if not self.objective_unit > 0:
            raise ValueError(
                f"objective_unit must be positive, got {self.objective_unit}"
            )
        if self.hint is not None:
            self.hint = np.asarray(self.hint, dtype=float)
        if self.branching_priority is not None:
            priority = np.asarray(self.branching_priority)
            if priority.shape != (n_vars,) or not np.issubdtype(
                priority.dtype, np.integer
            ):
                raise ValueError(
                    f"branching_priority must be integers of shape ({n_vars},), "
                    f"got {priority.dtype} of shape {priority.shape}"
                )
            self.branching_priority = priority.astype(np.int32)

    @property
    def n_vars(self):
        return self.A.shape[1]

    @property
    def n_rows(self):
        return self.A.shape[0]

    def evaluate(self, x):
        """Objective value of ``x``, in :attr:`objective_unit` (as solvers
        report it)."""
        return float(self.objective @ x + self.objective_offset)

    def max_violation(self, x):
        """Largest violation of a bound, a row or integrality by ``x``."""
        x = np.asarray(x, dtype=float)
        ax = self.A @ x
        violations = [
            np.maximum(self.var_lower - x, 0.0),
            np.maximum(x - self.var_upper, 0.0),
            np.maximum(self.row_lower - ax, 0.0),
            np.maximum(ax - self.row_upper, 0.0),
            np.abs(x - np.round(x)) * self.is_integer,
        ]
        return float(max((v.max() if v.size else 0.0) for v in violations))

    def with_rows(self, A, lower, upper):
        """A copy with extra rows appended."""
        return dataclasses.replace(
            self,
            A=sp.vstack([self.A, sp.csr_matrix(A)], format="csr"),
            row_lower=np.concatenate([self.row_lower, lower]),
            row_upper=np.concatenate([self.row_upper, upper]),
        )

    def with_rows_only(self, keep):
        """A copy with only the rows ``keep`` (indices, in that order)."""
        keep = np.asarray(keep, dtype=np.int64)
        return dataclasses.replace(
            self,
            A=self.A[keep],
            row_lower=self.row_lower[keep],
            row_upper=self.row_upper[keep],
        )


@dataclass
class MIPResult:
    """What a backend returns for one :class:`MIP`.

    Attributes
    ----------
    status : Status
        What the solver proved (a ``str`` enum: ``"optimal"``, ``"feasible"``,
        ``"infeasible"``, ``"no_solution"``, ``"error"``).
    x : ndarray or None
        Best solution found, if any.
    objective : float
        Objective of ``x`` (``nan`` without a solution).
    bound : float
        Certified dual bound: no feasible solution is better. ``-inf`` (``inf``
        when maximising) when nothing is proven; for an infeasible problem
        ``inf`` (``-inf`` when maximising).
    solve_time : float
        Wall-clock seconds spent in the solver.
    solver : str
    message : str
        Human-readable detail (termination reason or error).
    """

    status: Status
    x: np.ndarray | None
    objective: float
    bound: float
    solve_time: float
    solver: str
    message: str = ""

    def __post_init__(self):
        self.status = Status(self.status)

    @property
    def has_solution(self):
        return self.x is not None
