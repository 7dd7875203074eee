"""Solver-neutral MIPs: one assembly (:mod:`._assembly`), the two-label and
K-label encodings of a pattern problem on it, formulations, cuts and LP
relaxations. Imports only :mod:`.._core`."""

from . import _formulations
from ._constraints import (
    ConstraintContext,
    NonzeroRows,
    RateGapRows,
    SignRows,
)
from ._encoding import Encoding, encode
from ._program import MIP, MIPResult
from ._realize import max_margin, realise
from ._relaxation import IdentitySeparator, Relaxation, lp_bound

__all__ = [
    "MIP",
    "ConstraintContext",
    "NonzeroRows",
    "RateGapRows",
    "SignRows",
    "Encoding",
    "IdentitySeparator",
    "MIPResult",
    "Relaxation",
    "_formulations",
    "encode",
    "lp_bound",
    "max_margin",
    "realise",
]
