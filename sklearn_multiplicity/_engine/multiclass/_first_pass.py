"""The first models of a K-class audit, before any solver.

The constant models, the baseline's own model and logistic regressions
(multinomial and one-vs-rest), scaled into the class: the K-class
certifier (:mod:`._multiclass`) keeps those it verifies. Cheap models that
often lie within a small budget of the baseline, and warm-start its MIPs.
"""

import numpy as np
from sklearn.linear_model import LogisticRegression

#: Regularisations of the logistic regressions of the first pass.
LOGISTIC_C = (1.0, 100.0)


def first_pass(certifier, baseline_model, *, logistic=True):
    """Pool the first models of ``certifier`` (a ``MulticlassCertifier``):
    constant models, ``baseline_model`` (canonical ``(W, b)`` or None) and,
    with ``logistic``, logistic regressions scaled into the class."""
    problem, hypothesis = certifier.problem, certifier.hypothesis
    for label in range(problem.n_classes):
        W, b = hypothesis.constant_model(problem, label)
        certifier.add(certifier.verify(W, b, f"constant {label}"))
    if baseline_model is not None:
        certifier.add(certifier.verify(*baseline_model, source="baseline"))
    if not logistic:
        return
    for W, b, source in logistic_fits(problem, certifier.enc.X):
        fitted = hypothesis.fit_model(problem, W, b)
        if fitted is not None:
            certifier.add(certifier.verify(*fitted, source=source))


def logistic_fits(problem, X, *, one_vs_rest=True):
    """Multinomial and one-vs-rest logistic regressions on the weighted
    patterns.

    Parameters
    ----------
    problem : PatternProblem
    X : ndarray of shape (n_patterns, p)
        The canonical scaled patterns.
    one_vs_rest : bool, default=True
        Fit the one-vs-rest regressions too (``K`` fits each), not only the
        multinomial ones.

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
        if not one_vs_rest:
            continue
        coef, intercept = np.zeros((K, X.shape[1])), np.zeros(K)
        for k in range(K):
            binary = LogisticRegression(C=C, max_iter=1000)
            binary.fit(X[rows], labels == k, sample_weight=weights)
            coef[k], intercept[k] = binary.coef_[0], binary.intercept_[0]
        fits.append((coef, intercept, f"one-vs-rest logistic (C={C:g})"))
    return [(c[1:] - c[0], i[1:] - i[0], s) for c, i, s in fits]
