"""Probabilistic multiplicity: certified viable prediction ranges of logistic
models, and the measures read off them."""

from ._auditor import ProbabilisticAuditor
from ._display import ViablePredictionRangeDisplay
from ._scorers import probabilistic_ambiguity_scorer, vpr_width_scorer

__all__ = [
    "ProbabilisticAuditor",
    "ViablePredictionRangeDisplay",
    "probabilistic_ambiguity_scorer",
    "vpr_width_scorer",
]
