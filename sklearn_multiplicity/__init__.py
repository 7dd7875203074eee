"""Exact predictive multiplicity of linear classifiers.

Ambiguity and discrepancy (Marx, Calmon & Ustun, ICML 2020) over the
epsilon-level set of linear classifiers, certified by mixed-integer
programming with Google OR-Tools; certified viable prediction ranges of
logistic models over their log-loss level set.
"""

from ._estimators._abstain import (
    AbstainingClassifier,
    coverage_score,
    coverage_scorer,
    decided_accuracy_score,
    decided_accuracy_scorer,
)
from ._estimators._auditor import MultiplicityAuditor
from ._estimators._classifier import ZeroOneLinearClassifier
from ._estimators._competing import CompetingModel
from ._estimators._epsilon import EpsilonSuggestion, suggest_epsilon
from ._estimators._sampling import SamplingAuditor
from ._exceptions import BaselineGapWarning, CertificationWarning, ProblemSizeWarning
from ._probabilistic import (
    ProbabilisticAuditor,
    ViablePredictionRangeDisplay,
    probabilistic_ambiguity_scorer,
    vpr_width_scorer,
)
from ._reporting._cross_validation import cross_validate_multiplicity
from ._reporting._frame import MultiplicityFrame
from ._reporting._plotting import (
    FoldMultiplicityDisplay,
    GroupAmbiguityDisplay,
    MultiplicityPathDisplay,
)
from ._reporting._scorers import (
    ambiguity_scorer,
    discrepancy_scorer,
    neg_ambiguity_scorer,
    neg_discrepancy_scorer,
)

__version__ = "0.1.0"

__all__ = [
    "AbstainingClassifier",
    "BaselineGapWarning",
    "CertificationWarning",
    "CompetingModel",
    "EpsilonSuggestion",
    "FoldMultiplicityDisplay",
    "GroupAmbiguityDisplay",
    "MultiplicityAuditor",
    "MultiplicityFrame",
    "MultiplicityPathDisplay",
    "ProbabilisticAuditor",
    "ProblemSizeWarning",
    "SamplingAuditor",
    "ViablePredictionRangeDisplay",
    "ZeroOneLinearClassifier",
    "ambiguity_scorer",
    "coverage_score",
    "coverage_scorer",
    "cross_validate_multiplicity",
    "decided_accuracy_score",
    "decided_accuracy_scorer",
    "discrepancy_scorer",
    "neg_ambiguity_scorer",
    "neg_discrepancy_scorer",
    "probabilistic_ambiguity_scorer",
    "suggest_epsilon",
    "vpr_width_scorer",
    "__version__",
]
