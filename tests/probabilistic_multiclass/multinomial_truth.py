"""Independent ground truth for the multinomial level set: scikit-learn's
objective written out in the full (K, d + 1) parameters, scipy's constrained
solver and samples of the set."""

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.linear_model import LogisticRegression


def three_labels(seed=0, n=36, d=2):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ rng.normal(size=(d, 3)) + 1.2 * rng.normal(size=(n, 3)), 1)
    return X, y


def fitted(X, y, C=1.0):
    return LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, y)


def objective(W, X, y, C):
    """scikit-learn's ``mean logloss + ||coef||^2 / (2 C n)`` with ``W`` (K, d+1)
    (intercept last), at its centred representative."""
    coef = W[:, :-1] - W[:, :-1].mean(axis=0)
    S = X @ coef.T + W[:, -1]
    loss = -log_softmax(S, axis=1)[np.arange(len(y)), y].mean()
    return loss + (coef**2).sum() / (2 * C * len(y))


def min_with_label(X, y, C, W0, x, label):
    """``min F`` over ``W`` giving ``x`` the label ``label`` (SLSQP from
    several starts)."""
    K, q = W0.shape
    xt = np.append(x, 1.0)

    def leads(w):
        s = w.reshape(K, q) @ xt
        return np.delete(s[label] - s, label)

    best = np.inf
    for start in range(3):
        w0 = W0.ravel() + 0.3 * start * np.random.RandomState(start).normal(size=K * q)
        res = minimize(
            lambda w: objective(w.reshape(K, q), X, y, C),
            w0,
            constraints=[{"type": "ineq", "fun": leads}],
            method="SLSQP",
            options={"ftol": 1e-12, "maxiter": 500},
        )
        if np.all(leads(res.x) >= -1e-9):
            best = min(best, res.fun)
    return best


def sample_set(X, y, C, W0, level, n=3000, seed=0, scale=1.0):
    """Models of the set: Gaussian draws around ``W0`` kept when their
    objective is below ``level``."""
    rng = np.random.RandomState(seed)
    kept = []
    for s in (scale, scale / 3, scale / 10):
        for _ in range(n // 3):
            W = W0 + s * rng.normal(size=W0.shape)
            if objective(W, X, y, C) <= level:
                kept.append(W)
    return kept


def probs(W, x):
    return softmax(W @ np.append(x, 1.0))
