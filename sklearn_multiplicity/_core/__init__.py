"""The ground floor: the pattern problem (K labels; two are K = 2), the level
set, the hypothesis classes, verified models and typed results. Imports
nothing of the package."""

from ._hypothesis import BoxMargin, IntegerWeights, make_hypothesis_class
from ._level_set import (
    TOLERANCE,
    ClassBudget,
    LabelCeilings,
    LevelSet,
    admits,
    error_ceiling,
    weight_unit,
)
from ._models import (
    CanonicalModel,
    ModelPool,
    constant_models,
    in_class,
    logistic_fit,
    logistic_model,
    verify,
)
from ._problem import PatternProblem, affinely_independent_columns
from ._relations import (
    across_groups,
    along_budgets,
    disagreement_cap,
    overall_error,
    within_level_set,
)
from ._results import Bounds, MIPLogEntry, Status, certified

__all__ = [
    "TOLERANCE",
    "BoxMargin",
    "Bounds",
    "CanonicalModel",
    "ClassBudget",
    "IntegerWeights",
    "LevelSet",
    "MIPLogEntry",
    "ModelPool",
    "PatternProblem",
    "Status",
    "across_groups",
    "admits",
    "LabelCeilings",
    "affinely_independent_columns",
    "along_budgets",
    "certified",
    "constant_models",
    "disagreement_cap",
    "error_ceiling",
    "in_class",
    "logistic_fit",
    "logistic_model",
    "make_hypothesis_class",
    "overall_error",
    "verify",
    "weight_unit",
    "within_level_set",
]
