"""What a K-class audit certifies: verified models and certified bounds."""

from dataclasses import dataclass, field

import numpy as np

from ..._core import TOLERANCE, Status


@dataclass
class MulticlassModel:
    """A verified K-class model: coefficients, recomputed labels and errors.

    Attributes
    ----------
    W : ndarray of shape (n_classes - 1, p)
    b : ndarray of shape (n_classes - 1,)
        Canonical coefficients of classes ``1 .. K-1`` (class 0's are 0).
    labels : ndarray of int, shape (n_patterns,)
        The label (index into the problem's classes) of every pattern.
    errors : float
        Weighted training errors of ``labels``.
    source : str
        Which MIP or heuristic produced it.
    label_errors : ndarray of shape (n_classes,)
        Weighted training errors on each true label.
    """

    W: np.ndarray
    b: np.ndarray
    labels: np.ndarray
    errors: float
    source: str = ""
    label_errors: np.ndarray = None


@dataclass
class MulticlassMinError:
    """Certified fewest errors of the class, ``lower <= min <= upper``.

    ``model`` is a verified model making ``upper`` errors.
    """

    lower: float
    upper: float
    model: MulticlassModel
    status: Status

    @property
    def exact(self):
        return self.upper - self.lower <= TOLERANCE


@dataclass
class MulticlassAmbiguity:
    """Certified share of weight whose label some model of the level set changes.

    Attributes
    ----------
    lower, upper : float
        Shares of the total weight: patterns proven flippable, and those
        plus the ones left open.
    flippable, unflippable : ndarray of bool, shape (n_patterns,)
        Patterns proven flippable (by a verified model of the level set) and
        proven unflippable (by a solver's infeasibility or bound); the others
        are open.
    witnesses : dict
        A verified model of the level set for every flippable pattern.
    """

    lower: float
    upper: float
    flippable: np.ndarray
    unflippable: np.ndarray
    witnesses: dict = field(default_factory=dict)

    @property
    def exact(self):
        return self.upper - self.lower <= TOLERANCE


@dataclass
class MulticlassDiscrepancy:
    """Certified largest share of weight a model of the level set labels
    differently from the baseline.

    ``model`` is a verified model of the level set achieving ``lower``
    (``None`` when the level set holds no model found, then ``lower`` is 0).
    """

    lower: float
    upper: float
    model: MulticlassModel | None

    @property
    def exact(self):
        return self.upper - self.lower <= TOLERANCE
