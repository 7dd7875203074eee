"""The engine: audit state, ambiguity and discrepancy certifiers, heuristics,
scheduling under deadlines and the minimum error. Imports :mod:`.._core`,
:mod:`.._mip` and :mod:`..backends`; the estimators call
:class:`AuditSession` (two labels) and :class:`MulticlassSession` (K labels)."""

from ._ambiguity import STRATEGIES, AmbiguityCertifier
from ._audit import group_key
from ._discrepancy import DiscrepancyCertifier
from ._discrepancy_requests import DiscrepancyRequest, DiscrepancyResult
from ._min_error import MinErrorResult, solve_min_error
from ._multiclass_session import MulticlassSession
from ._plans import PLANS, Step, run_plan
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
    "group_key",
    "MinErrorResult",
    "MulticlassSession",
    "PLANS",
    "Step",
    "run_plan",
    "hand_out",
    "solve_min_error",
]
