"""Solver backends: each turns any :class:`~sklearn_multiplicity._mip.MIP` into a
:class:`~sklearn_multiplicity._mip.MIPResult`."""

from ._base import Backend, SolverError, available_solvers, get_backend
from ._stopping import clear_stop, request_stop, stop_requested

__all__ = [
    "Backend",
    "SolverError",
    "available_solvers",
    "clear_stop",
    "get_backend",
    "request_stop",
    "stop_requested",
]
