"""Logistic regressions as first models of a K-class level set.

The K-class certifier's first pass (:mod:`._multiclass`) scales these into the
class and keeps those it verifies: cheap models that often lie within a small
budget of the baseline, and that warm-start its MIPs.
"""

import numpy as np
from sklearn.linear_model import LogisticRegression

#: Regularisations of the logistic regressions of the first pass.
LOGISTIC_C = (1.0, 100.0)


def logistic_fits(problem, X):
    """Multinomial and one-vs-rest logistic regressions on the weighted
    patterns.

    Parameters
    ----------
    problem : MulticlassProblem
    X : ndarray of shape (n_patterns, p)
        The canonical scaled patterns.

    Returns
    -------
    list of tuple
        ``(W, b, source)`` with class 0's row subtracted; none when a label
        has no weight (its score would have to lose everywhere).
    """
    n, K = problem.counts.shape
    if X.shape[1] == 0 or np.any(problem.counts.sum(axis=0) <= 0):
        return []
    rows, labels = np.nonzero(problem.counts > 0)
    weights = problem.counts[rows, labels] / problem.weight_unit
    fits = []
    for C in LOGISTIC_C:
        model = LogisticRegression(C=C, max_iter=1000)
        model.fit(X[rows], labels, sample_weight=weights)
        coef, intercept = model.coef_, model.intercept_
        if K == 2:  # one row: the log-odds of label 1
            coef = np.vstack([np.zeros_like(coef), coef])
            intercept = np.concatenate([[0.0], intercept])
        fits.append((coef, intercept, f"multinomial logistic (C={C:g})"))
        coef, intercept = np.zeros((K, X.shape[1])), np.zeros(K)
        for k in range(K):
            binary = LogisticRegression(C=C, max_iter=1000)
            binary.fit(X[rows], labels == k, sample_weight=weights)
            coef[k], intercept[k] = binary.coef_[0], binary.intercept_[0]
        fits.append((coef, intercept, f"one-vs-rest logistic (C={C:g})"))
    return [(c[1:] - c[0], i[1:] - i[0], s) for c, i, s in fits]
