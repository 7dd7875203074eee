"""Input checks shared by the estimators: clear errors, never silent repairs."""

import numbers

import numpy as np
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_sample_weight

from ._problem import MAX_CLASSES


def check_binary_target(y):
    """Return ``(classes, y01)``; raise a clear ``ValueError`` otherwise."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"The target has only one class ({classes.tolist()}); a classifier "
            "needs two classes."
        )
    if kind in ("continuous", "continuous-multioutput"):
        raise ValueError(
            f"The target is continuous ({classes.size} distinct values): the "
            "audit needs class labels, two (binary) or 3 to "
            f"{MAX_CLASSES} (threshold or bin a score into classes first)."
        )
    if kind not in ("binary",) or classes.size > 2:
        raise ValueError(
            f"Only binary classification is supported; the target is {kind!r} "
            f"with {classes.size} classes."
        )
    return classes, (np.asarray(y) == classes[1]).astype(int)


def check_multiclass_target(y):
    """Return ``(classes, indices)`` of a target of 3 to
    :data:`~._problem.MAX_CLASSES` labels, each on at least two rows;
    raise a clear ``ValueError`` otherwise."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind != "multiclass":
        raise ValueError(f"Expected a target of several classes; it is {kind!r}.")
    classes, indices, counts = np.unique(y, return_inverse=True, return_counts=True)
    if classes.size > MAX_CLASSES:
        raise ValueError(
            f"The target has {classes.size} classes; the K-class audit takes at "
            f"most {MAX_CLASSES} (its MIPs grow with the square of K)."
        )
    once = classes[counts < 2]
    if once.size:
        raise ValueError(
            f"The label(s) {once.tolist()} appear on one row only: no error rate "
            "or tolerance of such a label means anything; merge or drop it."
        )
    return classes, indices.ravel()


def check_weights(sample_weight, X):
    """Validated non-negative weights with a positive total."""
    if sample_weight is not None:
        raw = np.asarray(sample_weight)
        if raw.ndim != 1 or raw.shape[0] != X.shape[0]:
            raise ValueError(
                f"sample_weight has shape {raw.shape}; expected ({X.shape[0]},), "
                "one weight per row of X."
            )
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if not np.all(np.isfinite(weight)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if np.any(weight < 0):
        raise ValueError("sample_weight must be non-negative.")
    if weight.sum() <= 0:
        raise ValueError("sample_weight sums to zero: there is nothing to fit.")
    return weight


def check_epsilon(eps, name="eps"):
    if (
        isinstance(eps, bool)
        or not isinstance(eps, numbers.Real)
        or not np.isfinite(eps)
        or not 0 <= eps <= 1
    ):
        raise ValueError(f"{name} must be a number in [0, 1], got {eps!r}.")
    return float(eps)


class PerClassEpsilon(tuple):
    """Tolerances, one per class label on that label's error rate, with the
    labels they were given for: ``PerClassEpsilon(eps_1, ..., eps_K,
    labels)``. For two labels, ``(eps_neg, eps_pos)`` on the false positive
    and false negative rates."""

    def __new__(cls, *args):
        *values, labels = args
        self = super().__new__(cls, tuple(float(v) for v in values))
        self.labels = tuple(labels)
        if len(self.labels) != len(self):
            raise ValueError("one tolerance per class label")
        return self

    def __getnewargs__(self):
        return (*self, self.labels)

    def __format__(self, spec):
        spec = spec or "g"
        pairs = (f"{c!r}: {e:{spec}}" for c, e in zip(self.labels, self, strict=True))
        return "{" + ", ".join(pairs) + "}"

    def __str__(self):
        return format(self)

    def columns(self):
        """``{"epsilon_<label>": tolerance}`` for each class, as in paths."""
        return {f"epsilon_{c}": e for c, e in zip(self.labels, self, strict=True)}

    def steps(self, step=None):
        """Equal steps of both rates up to these tolerances.

        Step ``i`` is ``i * step`` on each rate, capped at that rate's own
        tolerance, until both reach theirs.

        Parameters
        ----------
        step : float, default=None
            Spacing of the steps (default: a tenth of the larger tolerance).

        Returns
        -------
        list of (float, PerClassEpsilon)
            Each step's uncapped rate ``i * step`` and its tolerances.
        """
        step = step or max(self) / 10 or 1.0
        n_steps = int(np.ceil(max(self) / step - 1e-9))
        return [
            (
                min(i * step, max(self)),
                PerClassEpsilon(*(min(i * step, top) for top in self), self.labels),
            )
            for i in range(n_steps + 1)
        ]


def check_tolerance(eps, classes, name="eps"):
    """A tolerance: a number in [0, 1], or a dict of one per class label
    (returned as a :class:`PerClassEpsilon`, which is accepted as is)."""
    if isinstance(eps, PerClassEpsilon):
        return eps
    if not isinstance(eps, dict):
        return check_epsilon(eps, name)
    labels = [c.item() if hasattr(c, "item") else c for c in classes]
    unknown = [key for key in eps if not any(key == c for c in labels)]
    if unknown:
        raise ValueError(
            f"{name} has keys {unknown!r} that are not class labels; use one "
            f"tolerance per class: {labels!r}."
        )
    missing = [c for c in labels if not any(key == c for key in eps)]
    if missing:
        raise ValueError(
            f"{name} gives no tolerance for class {missing[0]!r}; use one "
            f"tolerance per class: {labels!r}."
        )
    values = []
    for c in labels:
        key = next(key for key in eps if key == c)
        values.append(check_epsilon(eps[key], f"{name}[{key!r}]"))
    return PerClassEpsilon(*values, labels)


def resolve_threads(n_jobs):
    """Solver threads from a joblib-style ``n_jobs`` (None -> 1, -1 -> all)."""
    import os

    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None, got {n_jobs!r}.")
    cpus = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cpus + 1 + int(n_jobs))
