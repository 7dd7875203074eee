"""The engine: the audit contract (:class:`Session`), its two certifier
families (``binary/``: two labels; ``multiclass/``: K labels), and time
(``timing/``: deadlines, accounts, plans). Imports :mod:`.._core`,
:mod:`.._mip` and :mod:`..backends`; the estimators call a session,
:class:`AuditSession` (two labels) or :class:`MulticlassSession` (K labels),
through the contract only."""

from ._records import group_key
from .binary._ambiguity import STRATEGIES, AmbiguityCertifier
from .binary._min_error import MinErrorResult, solve_min_error
from .binary._state import AuditState
from .binary.discrepancy._certifier import DiscrepancyCertifier
from .binary.discrepancy._requests import DiscrepancyRequest, DiscrepancyResult
from .session._binary import AuditSession
from .session._contract import Session, UnsupportedCapability, require
from .session._multiclass import MulticlassSession
from .timing._plans import FIT_SHARE, PLANS, Step, run_plan
from .timing._scheduling import Deadline, Job, capped, hand_out

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
    "Session",
    "UnsupportedCapability",
    "require",
    "FIT_SHARE",
    "PLANS",
    "Step",
    "run_plan",
    "hand_out",
    "solve_min_error",
]
