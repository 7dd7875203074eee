"""Ground truth by enumeration, independent of the library's MIPs.

Every labelling of the distinct points is tested for strict linear
separability with a linear program (``w . x + b >= 1`` on positives,
``<= -1`` on negatives, weights unbounded). Only usable on a handful of points.
"""

import itertools

import numpy as np
from scipy.optimize import linprog


def _weight_bounds(d, signs):
    """LP bounds of ``(w, b)``: free, or per ``signs`` {column: +1, -1, 0}."""
    bounds = [(None, None)] * (d + 1)
    for j, sign in (signs or {}).items():
        bounds[j] = {1: (0, None), -1: (None, 0), 0: (0, 0)}[sign]
    return bounds


def separable(points, labels, signs=None):
    """Whether some ``(w, b)`` puts ``labels`` (bool) strictly on each side,
    with the weight signs ``signs`` ({column: +1, -1 or 0}) if given."""
    points = np.asarray(points, dtype=float)
    k, d = points.shape
    sign = np.where(labels, 1.0, -1.0)
    # -sign * (w . x + b) <= -1
    A = -sign[:, None] * np.column_stack([points, np.ones(k)])
    res = linprog(
        np.zeros(d + 1),
        A_ub=A,
        b_ub=-np.ones(k),
        bounds=_weight_bounds(d, signs),
        method="highs",
    )
    return res.status == 0


def dichotomies(points, signs=None, max_nonzero=None):
    """All linear dichotomies of ``points`` as a bool array (n_dichotomies, k).

    With ``signs``, only those of models with these weight signs; with
    ``max_nonzero``, only those of models using at most that many columns
    (every support of that size is tried, the others' weights set to 0).
    """
    k, d = np.asarray(points).shape
    supports = [None]
    if max_nonzero is not None:
        supports = [
            set(s)
            for size in range(min(max_nonzero, d) + 1)
            for s in itertools.combinations(range(d), size)
        ]
    points = np.asarray(points, dtype=float)
    # Points that coincide on a support's columns get one label from it.
    merged = [
        None
        if support is None
        else np.unique(points[:, sorted(support)], axis=0, return_inverse=True)[
            1
        ].ravel()
        for support in supports
    ]
    found = []
    for bits in itertools.product([False, True], repeat=k):
        labels = np.array(bits, dtype=bool)
        for support, same in zip(supports, merged, strict=True):
            if same is not None and _split(same, labels):
                continue
            fixed = dict(signs or {})
            if support is not None:
                fixed.update({j: 0 for j in range(d) if j not in support})
                if any(fixed.get(j, 1) == 0 and j in support for j in range(d)):
                    continue
            if separable(points, labels, fixed):
                found.append(labels)
                break
    return np.array(found)


def _split(same, labels):
    """Whether two points of one class of ``same`` get different labels."""
    m = same.max(initial=-1) + 1
    positive = np.bincount(same, weights=labels, minlength=m)
    count = np.bincount(same, minlength=m)
    return bool(np.any((positive > 0) & (positive < count)))


def weight_range(points, labels, j, maximize, margin=1e-3, signs=None):
    """The least (largest) weight ``j`` of a model of the continuous class
    (features min-max scaled to [0, 1], ``|w| <= 1``, ``|b| <= d + margin``,
    every point at score ``>= margin`` or ``<= -margin``) predicting
    ``labels``; ``None`` when no model does."""
    points = np.asarray(points, dtype=float)
    k, d = points.shape
    lo, hi = points.min(axis=0), points.max(axis=0)
    scaled = (points - lo) / np.where(hi > lo, hi - lo, 1.0)
    sign = np.where(labels, 1.0, -1.0)
    A = -sign[:, None] * np.column_stack([scaled, np.ones(k)])
    bounds = [(-1.0, 1.0)] * d + [(-(d + margin), d + margin)]
    for col, s in (signs or {}).items():
        bounds[col] = {1: (0, 1), -1: (-1, 0), 0: (0, 0)}[s]
    c = np.zeros(d + 1)
    c[j] = -1.0 if maximize else 1.0
    res = linprog(c, A_ub=A, b_ub=-margin * np.ones(k), bounds=bounds, method="highs")
    if res.status != 0:
        return None
    return float(res.x[j])


class Truth:
    """Min error, discrepancy and ambiguity of one dataset, by enumeration.

    ``signs`` and ``max_nonzero`` restrict the dichotomies (see
    :func:`dichotomies`); ``groups`` (one per row) gives :meth:`rates`.
    """

    def __init__(
        self, X, y, sample_weight=None, *, signs=None, max_nonzero=None, groups=None
    ):
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
        self.D = dichotomies(self.points, signs, max_nonzero)
        self.fp = self.D @ self.neg
        self.fn = (~self.D) @ self.pos
        self.errors = self.fn + self.fp
        if groups is not None:
            groups = np.asarray(groups)
            self.group_labels = np.unique(groups)
            self.group_weight = {
                kind: np.array(
                    [
                        np.bincount(
                            self.inverse,
                            weights=w * (groups == g) * keep,
                            minlength=k,
                        )
                        for g in self.group_labels
                    ]
                )
                for kind, keep in [
                    ("selection", np.ones(len(y))),
                    ("fpr", y == 0),
                    ("fnr", y == 1),
                ]
            }

    def rates(self, rate):
        """The ``rate`` of every group under every dichotomy (rows)."""
        share = self.group_weight[rate]
        positive = (self.D @ share.T) / share.sum(axis=1)
        return 1.0 - positive if rate == "fnr" else positive

    def keep(self, mask):
        """Restrict the dichotomies to ``mask`` (e.g. a group rate gap)."""
        self.D, self.fp, self.fn = self.D[mask], self.fp[mask], self.fn[mask]
        self.errors = self.errors[mask]
        return self

    def class_level_set(self, baseline_z, eps_neg, eps_pos):
        """Dichotomies within the per-class budgets around ``baseline_z``."""
        fp0 = float(baseline_z @ self.neg)
        fn0 = float((~baseline_z) @ self.pos)
        # Integral weights: the allowances are whole numbers of errors.
        fp_max = fp0 + np.floor(eps_neg * self.neg.sum() + 1e-9)
        fn_max = fn0 + np.floor(eps_pos * self.pos.sum() + 1e-9)
        return self.D[(self.fp <= fp_max + 1e-9) & (self.fn <= fn_max + 1e-9)]

    def class_measures(self, baseline_z, eps_neg, eps_pos):
        """``(discrepancy, ambiguity, flippable)`` at per-class tolerances."""
        S = self.class_level_set(baseline_z, eps_neg, eps_pos)
        weight = self.pos + self.neg
        flips = S != baseline_z
        flippable = flips.any(axis=0)
        return (
            float((flips @ weight).max() / self.total),
            float(weight[flippable].sum() / self.total),
            flippable,
        )

    @property
    def min_error(self):
        return float(self.errors.min())

    def level_set(self, baseline_errors, eps):
        return self.D[self.errors <= baseline_errors + eps * self.total + 1e-9]

    def level_mask(self, baseline_errors, eps):
        return self.errors <= baseline_errors + eps * self.total + 1e-9

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


def baseline_truth(auditor, X, y, sample_weight=None, **restrictions):
    """Enumerated truth plus the baseline's predictions on its points."""
    truth = Truth(X, y, sample_weight, **restrictions)
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    err0 = float((~z0) @ truth.pos + z0 @ truth.neg)
    return truth, z0, err0
