"""The engine: audit state, ambiguity and discrepancy certifiers, heuristics,
scheduling under deadlines and the minimum error. Imports :mod:`.._core`,
:mod:`.._mip` and :mod:`..backends`; the estimators call
:class:`AuditSession`."""

from ._ambiguity import STRATEGIES, AmbiguityCertifier
from ._discrepancy import DiscrepancyCertifier, DiscrepancyRequest, DiscrepancyResult
from ._min_error import MinErrorResult, solve_min_error
from ._scheduling import Deadline, Job, capped, hand_out
from ._session import AuditSession
from ._state import AuditState

__all__ = [
    "STRATEGIES",
    "AmbiguityCertifier",
    "AuditSession",
    "AuditState",
    "Deadline",
    "DiscrepancyCertifier",
    "DiscrepancyRequest",
    "DiscrepancyResult",
    "Job",
    "capped",
    "MinErrorResult",
    "hand_out",
    "solve_min_error",
]
