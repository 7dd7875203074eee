"""K-class ground truth by enumeration, independent of the library's MIPs.

Every labelling of the distinct points is tested for strict K-class linear
realisability with a linear program: ``(w_l - w_m) . x + (b_l - b_m) >= 1``
for the point's label ``l`` and every other ``m``, class 0's weights and
intercept fixed at 0, the others free. Labellings are grown point by point
and a prefix that no model realises is not extended, so only a few thousand
LPs are solved. Only usable on a handful of points.
"""

import functools

import numpy as np
from scipy.optimize import linprog

#: Bound on the LP's parameters: far above any margin-1 solution on a tiny grid.
BOX = 1e4


def _constraints(points, labels, n_classes):
    """``A`` of ``A @ theta <= -1``: each point's label beats every other by 1,
    ``theta`` stacking ``(w_k, b_k)`` of classes ``1 .. K-1``."""
    k, d = points.shape
    rows = []
    for x, win in zip(points, labels, strict=True):
        for other in range(n_classes):
            if other == win:
                continue
            row = np.zeros((n_classes - 1) * (d + 1))
            for c, sign in ((win, -1.0), (other, 1.0)):
                if c > 0:
                    row[(c - 1) * (d + 1) : c * (d + 1)] = sign * np.append(x, 1.0)
            rows.append(row)
    return np.array(rows).reshape(-1, (n_classes - 1) * (d + 1))


def realising_model(points, labels, n_classes):
    """Parameters ``theta`` of a model labelling ``points`` strictly
    ``labels`` (margin 1, weights free), or None when none does."""
    points = np.asarray(points, dtype=float)
    A = _constraints(points, labels, n_classes)
    n_vars = A.shape[1]
    # A random objective on a large box picks a vertex in general position,
    # which labels further points without ties (see :func:`labellings`);
    # the box only bounds the scale, which strictness does not depend on.
    rng = np.random.default_rng(len(labels))
    result = linprog(
        rng.normal(size=n_vars),
        A_ub=A,
        b_ub=-np.ones(A.shape[0]),
        bounds=[(-BOX, BOX)] * n_vars,
        method="highs",
    )
    return result.x if result.status == 0 else None


def realisable(points, labels, n_classes):
    """Whether some K-class linear model labels ``points`` strictly ``labels``."""
    return realising_model(points, labels, n_classes) is not None


def sampled_labellings(points, n_classes, n_models=50_000, seed=0):
    """Labellings of ``points`` by random models whose every winner is strict:
    each is realisable, found without an LP."""
    points = np.asarray(points, dtype=float)
    k, d = points.shape
    lo, hi = points.min(axis=0), points.max(axis=0)
    scaled = (points - lo) / np.where(hi > lo, hi - lo, 1.0)
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(n_models, n_classes - 1, d))
    # Intercepts that put each class's boundary with class 0 through the data.
    anchor = rng.random(size=(n_models, n_classes - 1, d))
    b = -(W * anchor).sum(axis=2) + 0.3 * rng.normal(size=(n_models, n_classes - 1))
    scores = np.concatenate(
        [np.zeros((n_models, k, 1)), scaled @ W.transpose(0, 2, 1) + b[:, None, :]],
        axis=2,
    )
    top = np.sort(scores, axis=2)
    strict = np.all(top[..., -1] - top[..., -2] > 1e-9, axis=1)
    return np.unique(np.argmax(scores[strict], axis=2), axis=0)


def labellings(points, n_classes):
    """Every strictly realisable labelling of ``points``, ``(m, k)`` of int.

    Labellings grow point by point and a prefix that no model realises is
    not extended. A prefix of a labelling of a sampled model
    (:func:`sampled_labellings`) is realisable as is; every other prefix gets
    an LP, so sampling only saves time and misses nothing.
    """
    points = np.asarray(points, dtype=float)
    k = len(points)
    known = {
        tuple(row[:j])
        for row in sampled_labellings(points, n_classes).tolist()
        for j in range(1, k + 1)
    }
    found = []

    def grow(prefix):
        if len(prefix) == k:
            found.append(prefix)
            return
        for label in range(n_classes):
            labels = [*prefix, label]
            if tuple(labels) in known or realisable(
                points[: len(labels)], labels, n_classes
            ):
                grow(labels)

    grow([])
    return np.array(found, dtype=np.int64).reshape(-1, k)


class MulticlassTruth:
    """Minimum error, ambiguity and discrepancy of one dataset, by enumeration.

    ``points`` are the distinct rows of ``X`` in ``np.unique`` order, the
    library's pattern order; labels are indices into ``np.unique(y)`` (or
    ``classes``).
    """

    def __init__(self, X, y, sample_weight=None, *, classes=None):
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        classes = np.unique(y) if classes is None else np.asarray(classes)
        weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
        self.points, inverse = np.unique(X, axis=0, return_inverse=True)
        self.inverse = inverse.ravel()
        self.n_classes = len(classes)
        label = np.searchsorted(classes, y)
        self.counts = np.zeros((len(self.points), self.n_classes))
        np.add.at(self.counts, (self.inverse, label), weight)
        self.weight = self.counts.sum(axis=1)
        self.total = float(self.weight.sum())
        self.L = labellings(self.points, self.n_classes)
        kept = self.counts[np.arange(len(self.points)), self.L].sum(axis=1)
        self.errors = self.total - kept

    @property
    def min_error(self):
        return float(self.errors.min())

    def errors_of(self, labels):
        return float(self.total - self.counts[np.arange(len(labels)), labels].sum())

    def level_set(self, baseline, budget):
        """Labellings within ``budget`` extra errors of ``baseline``'s, or,
        with one budget per label, within each label's extra errors."""
        if np.ndim(budget):
            ceilings = self.label_errors(baseline) + np.asarray(budget)
            return self.L[(self.label_errors(self.L) <= ceilings + 1e-9).all(axis=1)]
        ceiling = self.errors_of(baseline) + budget
        return self.L[self.errors <= ceiling + 1e-9]

    def label_errors(self, labels):
        """Errors on each true label of labellings ``labels`` (1-D or 2-D)."""
        labels = np.asarray(labels)
        right = np.stack(
            [
                (self.counts[np.arange(labels.shape[-1]), labels] * (labels == k)).sum(
                    -1
                )
                for k in range(self.n_classes)
            ],
            axis=-1,
        )
        return self.counts.sum(axis=0) - right

    def flippable(self, baseline, budget):
        return (self.level_set(baseline, budget) != baseline).any(axis=0)

    def ambiguity(self, baseline, budget):
        return float(self.weight[self.flippable(baseline, budget)].sum() / self.total)

    def discrepancy(self, baseline, budget):
        """Largest weight share labelled differently (0 on an empty level set)."""
        S = self.level_set(baseline, budget)
        return float(((S != baseline) @ self.weight).max(initial=0.0) / self.total)

    def label_set(self, baseline, budget, x):
        """The labels models of the level set give the point ``x``: a training
        point's labels in the level set's labellings, elsewhere every label
        that some labelling's model scores highest at ``x`` (ties count)."""
        x = np.asarray(x, dtype=float)
        same = np.flatnonzero((self.points == x).all(axis=1))
        S = self.level_set(baseline, budget)
        if same.size:
            return set(S[:, same[0]].tolist())
        return {
            label
            for label in range(self.n_classes)
            if any(leading_model(self.points, s, self.n_classes, x, label) for s in S)
        }

    def fewest_flip_errors(self, pattern, label):
        """Fewest errors of a labelling not giving ``pattern`` ``label``."""
        return float(self.errors[self.L[:, pattern] != label].min(initial=np.inf))


def leading_model(points, labels, n_classes, x, label):
    """Whether some model labels ``points`` strictly ``labels`` and scores
    ``label`` at ``x`` at least as high as every other label (a tie counts)."""
    points = np.asarray(points, dtype=float)
    A = _constraints(points, labels, n_classes)
    d = points.shape[1]
    lead = []
    for other in range(n_classes):
        if other == label:
            continue
        row = np.zeros((n_classes - 1) * (d + 1))
        for c, sign in ((label, -1.0), (other, 1.0)):
            if c > 0:
                row[(c - 1) * (d + 1) : c * (d + 1)] = sign * np.append(x, 1.0)
        lead.append(row)
    result = linprog(
        np.zeros(A.shape[1]),
        A_ub=np.vstack([A, lead]),
        b_ub=np.concatenate([-np.ones(A.shape[0]), np.zeros(len(lead))]),
        bounds=[(-BOX, BOX)] * A.shape[1],
        method="highs",
    )
    return result.status == 0


def random_tiny_multiclass(seed, n=9, d=2, levels=3, n_classes=3, noise=0.3):
    """Small integer-grid data with ``n_classes`` labels (all present) from
    random linear scores, with label noise (possibly repeated points)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(float)
    W = rng.normal(size=(n_classes, d))
    y = np.argmax((X - X.mean(0)) @ W.T + 0.3 * rng.normal(size=n_classes), axis=1)
    noisy = rng.random(n) < noise
    y[noisy] = rng.integers(0, n_classes, size=noisy.sum())
    y[:n_classes] = np.arange(n_classes)  # every label present
    return X, y


@functools.cache
def tiny_case(seed, n=8):
    """``(X, y, truth)`` of :func:`random_tiny_multiclass`, enumerated once
    per test session."""
    X, y = random_tiny_multiclass(seed, n=n)
    return X, y, MulticlassTruth(X, y)
