"""Ground truth by enumeration, independent of the library's MIPs.

Every labelling of the distinct points is tested for strict linear
separability with a linear program (``w . x + b >= 1`` on positives,
``<= -1`` on negatives, weights unbounded). Only usable on a handful of points.
"""

import itertools

import numpy as np
from scipy.optimize import linprog


def separable(points, labels):
    """Whether some ``(w, b)`` puts ``labels`` (bool) strictly on each side."""
    points = np.asarray(points, dtype=float)
    k, d = points.shape
    sign = np.where(labels, 1.0, -1.0)
    # -sign * (w . x + b) <= -1
    A = -sign[:, None] * np.column_stack([points, np.ones(k)])
    res = linprog(
        np.zeros(d + 1),
        A_ub=A,
        b_ub=-np.ones(k),
        bounds=[(None, None)] * (d + 1),
        method="highs",
    )
    return res.status == 0


def dichotomies(points):
    """All linear dichotomies of ``points`` as a bool array (n_dichotomies, k)."""
    k = len(points)
    found = [
        np.array(bits, dtype=bool)
        for bits in itertools.product([False, True], repeat=k)
        if separable(points, np.array(bits, dtype=bool))
    ]
    return np.array(found)


class Truth:
    """Min error, discrepancy and ambiguity of one dataset, by enumeration."""

    def __init__(self, X, y, sample_weight=None):
        X = np.asarray(X, dtype=float)
        y = np.asarray(y).astype(int)
        w = (
            np.ones(len(y))
            if sample_weight is None
            else np.asarray(sample_weight, float)
        )
        self.points, self.inverse = np.unique(X, axis=0, return_inverse=True)
        self.inverse = self.inverse.ravel()
        k = len(self.points)
        self.pos = np.bincount(self.inverse, weights=w * (y == 1), minlength=k)
        self.neg = np.bincount(self.inverse, weights=w * (y == 0), minlength=k)
        self.total = w.sum()
        self.D = dichotomies(self.points)
        self.errors = (~self.D) @ self.pos + self.D @ self.neg

    @property
    def min_error(self):
        return float(self.errors.min())

    def level_set(self, baseline_errors, eps):
        return self.D[self.errors <= baseline_errors + eps * self.total + 1e-9]

    def discrepancy(self, baseline_z, baseline_errors, eps):
        S = self.level_set(baseline_errors, eps)
        weight = self.pos + self.neg
        return float(((S != baseline_z) @ weight).max() / self.total)

    def ambiguity(self, baseline_z, baseline_errors, eps):
        S = self.level_set(baseline_errors, eps)
        flippable = (S != baseline_z).any(axis=0)
        return float((self.pos + self.neg)[flippable].sum() / self.total)

    def flippable(self, baseline_z, baseline_errors, eps):
        S = self.level_set(baseline_errors, eps)
        return (S != baseline_z).any(axis=0)


def random_tiny(seed, n=8, d=2, levels=4, noise=0.3):
    """Small integer-grid data with label noise (possibly repeated points)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(float)
    w = rng.normal(size=d)
    y = ((X - X.mean(0)) @ w > 0).astype(int)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return X, y


def baseline_truth(auditor, X, y, sample_weight=None):
    """Enumerated truth plus the baseline's predictions on its points."""
    truth = Truth(X, y, sample_weight)
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    err0 = float((~z0) @ truth.pos + z0 @ truth.neg)
    return truth, z0, err0
