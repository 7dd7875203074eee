"""Solver backends: each turns any :class:`~sklearn_multiplicity._mip.MIP` into a
:class:`~sklearn_multiplicity._mip.MIPResult`."""

from ._base import Backend, SolverError, available_solvers, get_backend

__all__ = ["Backend", "SolverError", "available_solvers", "get_backend"]
