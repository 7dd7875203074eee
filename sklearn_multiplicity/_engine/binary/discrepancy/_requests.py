"""One discrepancy question: its record, its answer and its MIP.

A :class:`DiscrepancyRequest` carries one question (a budget, overall or
within a group) from its preparation to the settling of its MIP; the
:class:`DiscrepancyResult` it ends in is kept in the audit state under
:func:`cache_key`. :func:`disagreement_mip` builds the MIP of most
disagreement with the baseline that answers it, for the discrepancy
certifier and for budgets per class alike.
"""

from dataclasses import dataclass

import numpy as np

from ...._core import Bounds
from ...._mip import _formulations


def disagreement_mip(state, budget, weights, unflippable, best=None, key="all"):
    """The MIP of most ``weights`` of disagreement with the baseline within
    ``budget``, the patterns ``unflippable`` (a mask) fixed to the baseline's
    label and ``best`` (a pooled model, or None) as its hint."""
    enc = state.enc
    hint = None if best is None else enc.hint_from((best.w, best.b))
    extended = np.zeros(enc.X.shape[0])
    extended[: state.problem.n_patterns] = weights
    mip = _formulations.max_disagreement(
        enc,
        state.extended_baseline(),
        budget,
        weights=extended,
        hint=hint,
        name=f"max_disagreement[{key}, budget {budget:g}]",
    )
    fixed = np.flatnonzero(unflippable)
    return _formulations.fix_labels(enc, mip, fixed, state.baseline[fixed])


@dataclass
class DiscrepancyResult:
    """Certified discrepancy bounds and the model that realises the lower one."""

    bounds: Bounds
    model: object  # CanonicalModel realising ``bounds.lower`` (or None)


@dataclass
class DiscrepancyRequest:
    """One discrepancy question, between preparing and settling its MIP."""

    budget: float
    key: str
    weights: np.ndarray
    total: float
    cached: DiscrepancyResult = None
    answer: DiscrepancyResult = None  # known without a MIP
    best: object = None  # best pooled model within the budget
    lower: float = 0.0
    upper: float = np.inf  # proven upper bound before the MIP
    mip: object = None
    relaxation: object = None


def cache_key(budget, key):
    """Key of the result at ``budget`` for ``key`` (``"all"`` or a group)."""
    return (round(budget, 9), key)
