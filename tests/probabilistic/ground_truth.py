"""Independent ground truth for the probabilistic level set: the objective
written out from scikit-learn's documentation, scipy's generic constrained
solver, and samples of the set."""

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression


def sklearn_objective(theta, X, y, C=1.0, sample_weight=None, fit_intercept=True):
    """scikit-learn's ``C * sum(s_i logloss_i) + ||w||^2 / 2`` over ``C * S``."""
    s = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w, b = (theta[:-1], theta[-1]) if fit_intercept else (theta, 0.0)
    z = X @ w + b
    sign = np.where(y == 1, 1.0, -1.0)
    loss = np.logaddexp(0.0, -sign * z)
    penalty = 0.0 if not np.isfinite(C) else (w @ w) / (2 * C * s.sum())
    return (s @ loss) / s.sum() + penalty


def small_problem(seed=0, n=40, d=2, noise=1.0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = (X @ np.linspace(1, 0.3, d) + noise * rng.normal(size=n) > 0).astype(int)
    return X, y


def precise_lr(**params):
    """A LogisticRegression fitted to machine precision (a true minimiser)."""
    return LogisticRegression(tol=1e-12, max_iter=10_000, **params)


def scipy_extremes(x_row, X, y, theta0, level, fit_intercept=True, **kw):
    """``(min, max)`` of the score of ``x_row`` over ``{F <= level}`` by SLSQP,
    each checked to lie in the set (its objective recomputed)."""
    row = np.append(x_row, 1.0) if fit_intercept else np.asarray(x_row, float)

    def F(theta):
        return sklearn_objective(theta, X, y, fit_intercept=fit_intercept, **kw)

    center = minimize(F, theta0, method="BFGS", options={"gtol": 1e-10}).x
    found = []
    for sign in (1.0, -1.0):
        best = None
        for start in (theta0, center, center + 0.01 * sign * row):
            res = minimize(
                lambda t, s=sign: -s * (row @ t),
                start,
                jac=lambda t, s=sign: -s * row,
                constraints=[{"type": "ineq", "fun": lambda t: level - F(t)}],
                method="SLSQP",
                options={"ftol": 1e-12, "maxiter": 1000},
            )
            theta = res.x
            if F(theta) > level:  # back into the set along the segment to theta0
                lo, hi = 0.0, 1.0
                for _ in range(60):
                    mid = 0.5 * (lo + hi)
                    lo, hi = (
                        (mid, hi)
                        if F(theta0 + mid * (theta - theta0)) <= level
                        else (lo, mid)
                    )
                theta = theta0 + lo * (theta - theta0)
            if F(theta) <= level:
                value = row @ theta
                best = (
                    value if best is None else (max if sign > 0 else min)(best, value)
                )
        found.append(best)
    return found[1], found[0]


def boundary_samples(X, y, theta0, center, level, n_dirs=400, seed=0, **kw):
    """Points of ``{F <= level}``: on the boundary along random rays from the
    minimiser (bisection) and random points inside."""
    rng = np.random.RandomState(seed)
    p = center.size
    points = []

    def F(theta):
        return sklearn_objective(theta, X, y, **kw)

    for _ in range(n_dirs):
        d = rng.normal(size=p)
        d /= np.linalg.norm(d)
        lo, hi = 0.0, 1.0
        while F(center + hi * d) <= level and hi < 1e6:
            lo, hi = hi, 2 * hi
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if F(center + mid * d) <= level else (lo, mid)
        points.append(center + lo * d)
        points.append(center + rng.uniform() * lo * d)
    points.append(theta0)
    return np.array(points)
