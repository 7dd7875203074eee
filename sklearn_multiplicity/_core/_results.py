"""Typed records shared by every layer: statuses, certified intervals, MIP logs."""

import enum
import logging
from dataclasses import asdict, dataclass

from ._level_set import TOLERANCE

logger = logging.getLogger("sklearn_multiplicity")


class Status(str, enum.Enum):
    """What a solver run proved, from best to worst.

    A ``str`` enum: each member compares equal to its value (``"optimal"``).
    """

    OPTIMAL = "optimal"  # solution found and proven optimal
    FEASIBLE = "feasible"  # solution found, optimality not proven (limit reached)
    INFEASIBLE = "infeasible"  # proven: no feasible solution exists
    NO_SOLUTION = "no_solution"  # limit reached before any solution was found
    ERROR = "error"  # the solver failed; nothing is proven

    def __str__(self):
        return self.value


@dataclass
class Bounds:
    """A certified interval ``lower <= value <= upper`` (shares in [0, 1])."""

    lower: float
    upper: float

    @property
    def certified(self):
        """Whether the interval pins the value (within :data:`TOLERANCE`)."""
        return certified(self.lower, self.upper)


def certified(lower, upper):
    """Whether certified bounds ``lower <= upper`` pin one value."""
    return upper - lower <= TOLERANCE


@dataclass
class MIPLogEntry:
    """One solve of an audit: what was asked, what the solver proved.

    Attributes
    ----------
    mip : str
        Name of the MIP (or of a batch of LP relaxations).
    status : Status
    objective, bound : float
        Value of the best solution and the certified bound (``nan``/``inf``
        when there is none).
    seconds : float
    solver : str
        ``"highs"``, ``"scip"``, ``"cpsat"`` or ``"linprog-highs"``.
    message : str
    """

    mip: str
    status: Status
    objective: float
    bound: float
    seconds: float
    solver: str
    message: str = ""

    @classmethod
    def of(cls, mip, result):
        """The entry of ``result`` (a ``MIPResult``) for ``mip``."""
        return cls(
            mip.name,
            Status(result.status),
            result.objective,
            result.bound,
            result.solve_time,
            result.solver,
            result.message,
        )

    def refute(self, why):
        """Mark the entry's bound as refuted (a verified model contradicts it)."""
        self.status = Status.ERROR
        self.message += f" ({why})"

    def as_dict(self):
        """The entry as a plain dict (statuses as strings)."""
        entry = asdict(self)
        entry["status"] = self.status.value
        return entry

    def emit(self):
        """Log the entry: solver errors as warnings, the rest at debug level."""
        level = logging.WARNING if self.status is Status.ERROR else logging.DEBUG
        logger.log(
            level,
            "%s: %s (objective %s, bound %s, %.2f s) %s",
            self.mip,
            self.status.value,
            self.objective,
            self.bound,
            self.seconds,
            self.message,
        )
