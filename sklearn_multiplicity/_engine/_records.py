"""The records that :class:`~._session.AuditSession` hands the estimators.

Plain values: numbers, :class:`~.._core.Bounds`, budgets, arrays per training
row or per person, and level-set models as coefficients on the audited
features. None of them refers to the audit state, so an estimator that holds
one reads nothing else of the engine.
"""

from dataclasses import dataclass

import numpy as np

from .._core import Bounds, ClassBudget


@dataclass(frozen=True)
class SessionSummary:
    """The set-up of an audit, as the estimators report it.

    Attributes
    ----------
    n_patterns : int
        Distinct training patterns in the audit space.
    n_dimensions : int
        Affinely independent columns: the weights of every MIP.
    n_identities : int
        Affine-identity inequalities of the encoding.
    total_weight : float
        Total weight of the training rows.
    hypothesis_class : str
        The class over which every result is exact.
    integer : bool
        Whether the class has integer weights.
    constraints : list of str
        One line per constraint in force on the class.
    baseline_errors : float or None
        Weighted training errors of the baseline (``None`` before ``start``).
    """

    n_patterns: int
    n_dimensions: int
    n_identities: int
    total_weight: float
    hypothesis_class: str
    integer: bool
    constraints: list
    baseline_errors: float = None


@dataclass(frozen=True)
class FoundModel:
    """A verified model of the class, on the audited features.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Weights on the columns of the audit space (0 on dropped columns).
    intercept : float
    errors : float
        Its weighted training errors.
    source : str
        What found it.
    """

    coef: np.ndarray
    intercept: float
    errors: float
    source: str


@dataclass(frozen=True)
class Reading:
    """Both measures at one budget, as the audit state knows them.

    Attributes
    ----------
    ambiguity, discrepancy : Bounds
        Certified bounds, each related to the other.
    model : FoundModel or None
        The level-set model realising ``discrepancy.lower``.
    """

    ambiguity: Bounds
    discrepancy: Bounds
    model: FoundModel = None


@dataclass(frozen=True)
class GroupReading:
    """Both measures over one group of training people.

    Attributes
    ----------
    label : object
        The group.
    weight : float
        Its total weight.
    ambiguity, discrepancy : Bounds
    """

    label: object
    weight: float
    ambiguity: Bounds
    discrepancy: Bounds


@dataclass(frozen=True)
class GroupReadings:
    """Both measures overall and per group, related across the groups.

    Attributes
    ----------
    overall : GroupReading
        Over every training person (``label`` is ``None``).
    groups : list of GroupReading
        One per group, in the order of their labels.
    """

    overall: GroupReading
    groups: list


@dataclass(frozen=True)
class Evidence:
    """Per training row, what the audit of one budget knows of its flip.

    Rows of zero weight (no pattern) have baseline 0, are neither
    contestable nor undecided and have no flip errors (NaN).

    Attributes
    ----------
    baseline : ndarray of int
        The baseline's label (0 or 1).
    contestable : ndarray of bool
        Certified: a model of the level set flips it.
    undecided : ndarray of bool
        Neither certified contestable nor proven stable.
    min_flip_errors : ndarray of float
        Fewest errors of a known model flipping it.
    """

    baseline: np.ndarray
    contestable: np.ndarray
    undecided: np.ndarray
    min_flip_errors: np.ndarray


@dataclass(frozen=True)
class WeightRange:
    """Certified ends of one weight over a level set.

    Attributes
    ----------
    column : int
        The weight's column of the audit space.
    scale : float
        Units of the column per unit of the class's canonical feature.
    least, largest : Bounds
        Certified bounds on the least and on the largest value (canonical).
    sign : str
        ``"non-negative"``, ``"non-positive"``, ``"either"`` or ``"unknown"``.
    certified : bool
        Whether both ends are pinned.
    least_model, largest_model : FoundModel or None
        Level-set models at the inner ends.
    """

    column: int
    scale: float
    least: Bounds
    largest: Bounds
    sign: str
    certified: bool
    least_model: FoundModel
    largest_model: FoundModel


@dataclass(frozen=True)
class PathStep:
    """Both measures at one tolerance of a path.

    Attributes
    ----------
    epsilon : float
        The tolerance (per class: the common rate, before each class's cap).
    tolerance : float or PerClassEpsilon
        The tolerance the budget is of.
    extra_errors : float or None
        The errors it allows beyond the baseline's (``None`` per class).
    budget : float or ClassBudget
    ambiguity, discrepancy : Bounds
    """

    epsilon: float
    tolerance: object
    extra_errors: float
    budget: object
    ambiguity: Bounds
    discrepancy: Bounds

    @property
    def per_class(self):
        """Whether the budget bounds each kind of error apart."""
        return isinstance(self.budget, ClassBudget)

    @property
    def certified(self):
        """Whether both measures are certified at this tolerance."""
        return bool(self.ambiguity.certified and self.discrepancy.certified)
