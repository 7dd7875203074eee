"""The baseline's model family: which logistic regressions, which objective."""

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.utils.class_weight import compute_sample_weight

from ._objective import LogisticObjective

SUPPORTED = (
    "a binary sklearn.linear_model.LogisticRegression with an L2 penalty or "
    "none, a Pipeline ending in one, or either wrapped in "
    "sklearn.frozen.FrozenEstimator"
)


def check_logistic(linear):
    """The ``LogisticRegression`` at the end of the baseline, checked."""
    if type(linear) is not LogisticRegression:
        raise TypeError(
            f"{type(linear).__name__} is not supported; the probabilistic "
            f"auditor needs {SUPPORTED}."
        )
    return linear


def penalty_of(lr):
    """``C`` of the L2 penalty (``inf``: none); ``TypeError`` for L1/elastic-net."""
    params = lr.get_params()
    penalty = params.get("penalty", "deprecated")
    C, l1_ratio = float(params["C"]), params.get("l1_ratio")
    if penalty is None:
        return np.inf
    if penalty in ("l1", "elasticnet") or (
        penalty != "l2" and np.isfinite(C) and l1_ratio not in (None, 0, 0.0)
    ):
        raise TypeError(
            "Only an L2 penalty or none is supported (the level set of an L1 "
            f"penalty is not smooth); got penalty={penalty!r}, l1_ratio={l1_ratio!r}."
        )
    return C


def objective_of(lr, Z, y, y01, weight):
    """The training objective of the family of ``lr`` (see ``_objective``)."""
    params = lr.get_params()
    weight = np.asarray(weight, dtype=float)
    if params.get("class_weight") is not None:
        weight = weight * compute_sample_weight(params["class_weight"], y)
    intercept_penalty = 0.0
    if params.get("solver") == "liblinear" and params["fit_intercept"]:
        intercept_penalty = 1.0 / float(params["intercept_scaling"]) ** 2
    return LogisticObjective(
        Z,
        y01,
        weight,
        penalty_of(lr),
        params["fit_intercept"],
        intercept_penalty=intercept_penalty,
    )


def describe(objective, C):
    """The level set's family and objective, in words."""
    penalty = "no penalty" if not np.isfinite(C) else f"L2 penalty, C={C:g}"
    intercept = "with intercept" if objective.fit_intercept else "no intercept"
    return (
        f"binary logistic regression ({penalty}, {intercept}); objective: "
        "weighted mean log-loss + ||w||^2 / (2 C sum(sample_weight))"
    )
