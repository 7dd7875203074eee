"""Verified linear models and the pool of every model found during an audit.

A model returned by a solver is never trusted as is: its predictions and error
are recomputed here with numpy from its coefficients, and those recomputed
numbers are what the library reports.
"""

from dataclasses import dataclass, field

import numpy as np
from sklearn.linear_model import LogisticRegression

from ._level_set import admits


@dataclass
class CanonicalModel:
    """A model ``(w, b)`` in the canonical space of an encoding.

    Attributes
    ----------
    w, b : coefficients on the canonical (kept, possibly scaled) columns.
    z : ndarray of bool
        Prediction of every pattern of the encoding (training, then extra).
    errors : float
        Weighted training error, recomputed from ``z``.
    source : str
        Which MIP or heuristic produced it.
    false_positives, false_negatives : float
        The two kinds of weighted training error (they sum to ``errors``).
    """

    w: np.ndarray
    b: float
    z: np.ndarray
    errors: float
    source: str = ""
    false_positives: float = np.nan
    false_negatives: float = np.nan


def verify(enc, w, b, source=""):
    """The :class:`CanonicalModel` of ``(w, b)``, errors recomputed."""
    w = np.asarray(w, dtype=float)
    z = (enc.X @ w + float(b)) > 0
    problem, train = enc.problem, z[: enc.n_train]
    fp = float(train @ problem.negative_weight)
    fn = float((~train) @ problem.positive_weight)
    return CanonicalModel(w, float(b), z, fp + fn, source, fp, fn)


def constant_models(enc):
    """The two constant classifiers (in every hypothesis class)."""
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
    t_pos, t_neg = enc.hypothesis.thresholds
    zeros = np.zeros(enc.p)
    return [
        verify(enc, zeros, min(max(t_pos, 1.0), b_hi), "constant positive"),
        verify(enc, zeros, max(min(t_neg, -1.0), b_lo), "constant negative"),
    ]


def logistic_fit(enc, *, C=1.0, random_state=None):
    """``(w, b)`` of a logistic regression on the weighted training patterns.

    In the canonical space of ``enc``, unscaled; ``None`` when there is no
    direction to fit (one distinct pattern, or one class). The weights count
    in the problem's :attr:`~._problem.PatternProblem.weight_unit`, so that
    ``C`` regularises repeated data as much as the data once.
    """
    prob = enc.problem
    if enc.p == 0:  # one distinct pattern: only constant models exist
        return None
    X = enc.X[: enc.n_train]
    both = np.vstack([X, X])
    labels = np.concatenate([np.ones(len(X)), np.zeros(len(X))])
    weights = np.concatenate([prob.positive_weight, prob.negative_weight])
    weights = weights / prob.weight_unit
    keep = weights > 0
    if np.unique(labels[keep]).size < 2:
        return None
    model = LogisticRegression(C=C, max_iter=1000, random_state=random_state)
    model.fit(both[keep], labels[keep], sample_weight=weights[keep])
    return model.coef_.ravel(), float(model.intercept_[0])


def logistic_model(enc, *, C=1.0, random_state=None, fit=None):
    """A logistic regression on the weighted patterns, scaled into the class.

    ``fit`` reuses a :func:`logistic_fit` of the same ``C``. Returns ``None``
    when it cannot be placed in the class (margin too small).
    """
    if fit is None:
        fit = logistic_fit(enc, C=C, random_state=random_state)
    if fit is None:
        return None
    fitted = enc.hypothesis.fit_model(enc.problem, *fit)
    if fitted is None:
        return None
    return verify(enc, *fitted, source=f"logistic regression (C={C:g})")


def in_class(enc, model, tolerance=1e-6):
    """Whether ``model`` lies in the hypothesis class (box, margin, integrality)
    and meets every constraint of the encoding."""
    w_lo, w_hi, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
    if np.any(model.w < w_lo - tolerance) or np.any(model.w > w_hi + tolerance):
        return False
    if not b_lo - tolerance <= model.b <= b_hi + tolerance:
        return False
    if enc.hypothesis.integer and (
        np.any(model.w != np.round(model.w)) or model.b != round(model.b)
    ):
        return False
    t_pos, t_neg = enc.hypothesis.thresholds
    scores = enc.X @ model.w + model.b
    if not np.all((scores >= t_pos - tolerance) | (scores <= t_neg + tolerance)):
        return False
    return all(c.satisfied(enc, model, tolerance) for c in enc.constraints)


@dataclass
class ModelPool:
    """Every verified model found so far, with their pattern predictions."""

    models: list = field(default_factory=list)

    def add(self, model):
        if model is not None:
            self.models.append(model)
        return model

    def __len__(self):
        return len(self.models)

    def within(self, budget):
        """The pooled models within ``budget`` (a number or a ClassBudget)."""
        return [m for m in self.models if admits(m, budget)]
