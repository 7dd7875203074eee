"""The objective of the multinomial level set, and its certified minimum.

A ``K``-label ``LogisticRegression`` scores a row ``x~ = (x, 1)`` with
``s_k = W_k . x~`` and predicts ``softmax(s)``. Adding one vector to every
``W_k`` changes no prediction, so the level set is described up to that
direction: class 0 is the reference, ``V_k = W_k - W_0`` for ``k >= 1``,
``theta = V.ravel()`` of length ``p = (K - 1) q``, scores ``(0, V x~)``.

The objective of a predictive function is the smallest scikit-learn
objective over its representations ``W``: the L2 penalty
``||coef||^2 / (2 C S)`` (``S`` the weight sum, the loss a weighted mean as in
:mod:`._objective`) of the centred ``coef`` is, in ``V``,

    rho / 2 (sum_k ||v_k||^2 - ||sum_k v_k||^2 / K),   rho = 1 / (C S),

on the coefficients (the intercept is not penalised). For two labels
scikit-learn fits one coefficient vector ``w`` with ``rho / 2 ||w||^2``, and
the objective follows it (``theta = (w, b)``). The loss part is
``sum_i a_i (log(1 + sum_k exp(z_ik)) - s_i,y_i)``, ``z_i = V x~_i``.

The softmax loss is self-concordant in the sense used by :mod:`._bounds`:
along a direction changing the scores by ``u``, the derivative of the
curvature is at most ``range(u) = max_k u_k - min_k u_k`` times the
curvature (the covariance of ``u`` with a squared centred score under the
softmax), so the score *range* of a row plays the part of the binary margin.
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from sklearn.linear_model import LogisticRegression
from sklearn.utils.class_weight import compute_sample_weight

#: Newton iterations allowed to certify the minimum.
MAX_NEWTON = 100
#: Newton decrement (relative) at which the minimisation stops.
DECREMENT = 1e-18
#: Rows per block of the Hessian (bounds its temporary memory).
HESSIAN_ROWS = 4096


def check_multinomial(estimator):
    """``(C, fit_intercept, class_weight)`` of a supported fitted estimator.

    Raises
    ------
    ValueError
        Unless ``estimator`` is a ``LogisticRegression`` with an L2 penalty
        or none, fitted by a multinomial solver.
    """
    if type(estimator) is not LogisticRegression:
        raise ValueError(
            f"{type(estimator).__name__} is not supported: the multinomial level "
            "set needs a sklearn.linear_model.LogisticRegression."
        )
    params = estimator.get_params()
    penalty, C = params.get("penalty", "deprecated"), float(params["C"])
    l1_ratio = params.get("l1_ratio")
    if penalty is None or not np.isfinite(C):
        C = np.inf
    elif penalty in ("l1", "elasticnet") or l1_ratio not in (None, 0, 0.0):
        raise ValueError(
            "Only an L2 penalty or none is supported (an L1 level set is not "
            f"smooth); got penalty={penalty!r}, l1_ratio={l1_ratio!r}."
        )
    if params.get("solver") == "liblinear" and len(estimator.classes_) > 2:
        raise ValueError("liblinear fits one-vs-rest models, not a multinomial one.")
    if params.get("multi_class", "auto") == "ovr":
        raise ValueError("multi_class='ovr' fits one-vs-rest models.")
    return C, bool(params["fit_intercept"]), params.get("class_weight")


class MultinomialObjective:
    """``F`` on the training rows of positive weight, in reference coordinates.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        Label indices in ``0 .. n_labels - 1``.
    weight : ndarray of shape (n_samples,)
        Non-negative weights (with any class weights folded in).
    n_labels : int
    C : float
        Inverse penalty strength (``inf``: none).
    fit_intercept : bool
    """

    def __init__(self, X, labels, weight, n_labels, C, fit_intercept):
        weight = np.asarray(weight, dtype=float)
        keep = weight > 0
        self.fit_intercept = bool(fit_intercept)
        self.K = int(n_labels)
        self.X = self.augment(np.asarray(X, dtype=float)[keep])
        self.labels = np.asarray(labels)[keep].astype(int)
        total = float(weight.sum())
        self.a = weight[keep] / total
        self.rho = 0.0 if not np.isfinite(C) else 1.0 / (C * total)
        self.q = self.X.shape[1]
        self.n_coef = self.q - int(self.fit_intercept)
        # Penalty matrix between the K - 1 free classes (see module docstring).
        k = self.K - 1
        self.mix = np.eye(k) if self.K == 2 else np.eye(k) - 1.0 / self.K
        self.onehot = np.zeros((self.X.shape[0], k))
        free = self.labels > 0
        self.onehot[np.flatnonzero(free), self.labels[free] - 1] = 1.0

    @property
    def dim(self):
        return (self.K - 1) * self.q

    def augment(self, Z):
        """Rows ``x~ = (x, 1)`` (or ``x`` without intercept)."""
        Z = np.asarray(Z, dtype=float)
        if not self.fit_intercept:
            return Z
        return np.hstack([Z, np.ones((Z.shape[0], 1))])

    def theta(self, coef, intercept):
        """The parameter vector of scikit-learn's ``(coef_, intercept_)``."""
        coef = np.atleast_2d(np.asarray(coef, dtype=float))
        intercept = np.atleast_1d(np.asarray(intercept, dtype=float))
        W = np.hstack([coef, intercept[:, None]]) if self.fit_intercept else coef
        V = W if self.K == 2 else W[1:] - W[0]
        return V.ravel()

    def scores(self, rows, theta):
        """Scores ``z`` (n, K - 1, B) of the augmented ``rows`` at the columns
        of ``theta`` (p, B); class 0 scores 0."""
        B = theta.shape[1]
        V = theta.reshape(self.K - 1, self.q, B).transpose(1, 0, 2)
        return (rows @ V.reshape(self.q, -1)).reshape(rows.shape[0], self.K - 1, B)

    # ------------------------------------------------------------ evaluation
    def penalty_value(self, theta):
        coef = theta.reshape(self.K - 1, self.q, -1)[:, : self.n_coef]
        mixed = np.einsum("kl,lqb->kqb", self.mix, coef)
        return 0.5 * self.rho * np.einsum("kqb,kqb->b", coef, mixed)

    def penalty_gradient(self, theta):
        V = theta.reshape(self.K - 1, self.q, -1)
        out = np.zeros_like(V)
        out[:, : self.n_coef] = self.rho * np.einsum(
            "kl,lqb->kqb", self.mix, V[:, : self.n_coef]
        )
        return out.reshape(theta.shape)

    def _softmax_parts(self, z):
        """Per-row losses (n, B), the exponentials of the scores ``z`` (n, K -
        1, B) and their sums with class 0 (n, B); ``z`` is left as it is.

        ``log(1 + sum_k exp(z_k))`` is summed directly, one label at a time
        (reductions over the middle axis are slow): the exponentials are the
        cost. Scores large enough to overflow shift each row by its top
        score (the exponentials and sums shifted alike).
        """
        n, k, B = z.shape

        def totals(start):  # start: class 0's term
            for j in range(k):
                start += e[:, j, :]
            return start

        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(z)
            total = totals(np.ones((n, B)))
            top = None
            if not np.isfinite(total.max(initial=0.0)):
                top = np.zeros((n, B))  # class 0 scores 0
                for j in range(k):
                    np.maximum(top, z[:, j, :], out=top)
                np.subtract(z, top[:, None, :], out=e)
                np.exp(e, out=e)
                total = totals(np.exp(-top))
        lse = np.log(total)
        if top is not None:
            lse += top
        free = self.labels > 0
        lse[free] -= z[np.flatnonzero(free), self.labels[free] - 1]
        return lse, e, total

    def value(self, theta):
        """``F`` at the columns of ``theta`` (p, B)."""
        return self.evaluate(theta).value

    def value_and_scores(self, theta):
        """``F`` at the columns of ``theta`` (p, B) and the training rows'
        scores there (n, K - 1, B), from one product."""
        evaluation = self.evaluate(theta)
        return evaluation.value, evaluation.scores

    def evaluate(self, theta):
        """``F`` at the columns of ``theta`` (p, B), with the training rows'
        scores and what the gradient needs (:class:`Evaluation`)."""
        z = self.scores(self.X, theta)
        loss, e, total = self._softmax_parts(z)
        value = self.a @ loss + self.penalty_value(theta)
        return Evaluation(self, theta, value, z, e, total)

    def derivatives(self, theta, scores=False):
        """``(F, gradient)`` at the columns of ``theta`` (p, B); ``scores``:
        also the training rows' scores there (n, K - 1, B)."""
        evaluation = self.evaluate(theta)
        g = evaluation.gradient()
        if scores:
            return evaluation.value, g, evaluation.scores
        return evaluation.value, g

    def probabilities(self, theta):
        """Probabilities of classes 1.. (n, K - 1) at one ``theta`` (p,)."""
        _, e, total = self._softmax_parts(self.scores(self.X, theta[:, None]))
        return (e / total[:, None, :])[:, :, 0]

    def hessian(self, theta, row_scale=None):
        """``sum_i a_i c_i (diag(pi_i) - pi_i pi_i') (x) x~_i x~_i' + penalty``
        at one ``theta`` (p,), with row scales ``c`` (default 1): the
        Hessian, or the self-concordant bounds of :mod:`._multinomial_geometry`.
        """
        prob = self.probabilities(theta)
        w = self.a if row_scale is None else self.a * row_scale
        return self.curvature_form(prob, w)

    def curvature_form(self, prob, w):
        """``sum_i w_i (diag(pi_i) - pi_i pi_i') (x) x~_i x~_i' + penalty``."""
        k, q, X = self.K - 1, self.q, self.X
        H = np.zeros((k, q, k, q))
        for start in range(0, X.shape[0], HESSIAN_ROWS):
            rows = slice(start, start + HESSIAN_ROWS)
            P, Xr, wr = prob[rows], X[rows], w[rows]
            for i in range(k):
                # Row weights of the blocks (i, j): w (delta_ij pi_i - pi_i pi_j).
                cw = -(wr * P[:, i])[:, None] * P
                cw[:, i] += wr * P[:, i]
                block = Xr.T @ (cw[:, :, None] * Xr[:, None, :]).reshape(len(Xr), -1)
                H[i] += block.reshape(q, k, q)
        H = H.reshape(k * q, k * q)
        return self.add_penalty(H)

    def add_penalty(self, H):
        k, q = self.K - 1, self.q
        H4 = H.reshape(k, q, k, q)
        idx = np.arange(self.n_coef)
        H4[:, idx, :, idx] += self.rho * self.mix
        return H


@dataclass
class Evaluation:
    """``F`` at models ``theta`` (p, B), the training rows' ``scores`` there
    (n, K - 1, B) and the softmax parts of :meth:`gradient`, which is
    computed only for the models asked (a model already settled needs
    none)."""

    objective: MultinomialObjective
    theta: np.ndarray
    value: np.ndarray
    scores: np.ndarray
    exponentials: np.ndarray
    totals: np.ndarray

    def gradient(self, columns=None):
        """The gradient (p, m) at the models ``columns`` (default: all).

        The softmax parts are turned into probabilities in place: ask once.
        """
        obj = self.objective
        if self.exponentials is None:
            raise RuntimeError("The gradient of an evaluation is computed once.")
        B = self.totals.shape[1]
        if columns is None or np.array_equal(columns, np.arange(B)):
            prob, totals, theta = self.exponentials, self.totals, self.theta
        else:
            prob = np.take(self.exponentials, columns, axis=2)
            totals, theta = self.totals[:, columns], self.theta[:, columns]
        self.exponentials = None
        prob /= totals[:, None, :]
        prob -= obj.onehot[:, :, None]
        prob *= obj.a[:, None, None]
        m = prob.shape[2]
        g = obj.X.T @ prob.reshape(obj.X.shape[0], -1)  # (q, (K-1) m)
        g = g.reshape(obj.q, obj.K - 1, m).transpose(1, 0, 2).reshape(obj.dim, m)
        g += obj.penalty_gradient(theta)
        return g


def multinomial_objective(estimator, X, y, sample_weight=None):
    """The objective of a fitted estimator's family on ``(X, y)`` and the
    baseline's parameters.

    Parameters
    ----------
    estimator : LogisticRegression
        Fitted, with an L2 penalty or none.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    objective : MultinomialObjective
    theta0 : ndarray of shape (p,)
        The baseline in reference coordinates.
    """
    C, fit_intercept, class_weight = check_multinomial(estimator)
    classes = estimator.classes_
    y = np.asarray(y)
    labels = np.searchsorted(classes, y)
    if np.any(labels >= len(classes)) or np.any(classes[labels] != y):
        raise ValueError("y holds labels the estimator was not fitted on.")
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
    weight = np.asarray(weight, dtype=float)
    if class_weight is not None:
        weight = weight * compute_sample_weight(class_weight, y)
    objective = MultinomialObjective(X, labels, weight, len(classes), C, fit_intercept)
    intercept = estimator.intercept_ if fit_intercept else np.zeros(len(classes))
    return objective, objective.theta(estimator.coef_, intercept)


def score_ranges(grams):
    """Largest variance of a score difference ``s_k - s_l`` (classes 0..K-1,
    class 0 fixed) from the grams (n, K - 1, K - 1) of the free scores."""
    n, k, _ = grams.shape
    full = np.zeros((n, k + 1, k + 1))
    full[:, 1:, 1:] = grams
    d = np.einsum("nkk->nk", full)
    return np.maximum(d[:, :, None] + d[:, None, :] - 2 * full, 0.0)


def row_grams(objective, rows, Q_inv):
    """``G_i[k, l] = x~_i' [Q^-1]_kl x~_i`` (n, K - 1, K - 1): the covariance
    of person i's free scores under ``Q^-1``."""
    k, q = objective.K - 1, objective.q
    Qb = Q_inv.reshape(k, q, k, q)
    G = np.empty((rows.shape[0], k, k))
    for i in range(k):
        for j in range(i, k):
            G[:, i, j] = np.einsum("nq,nq->n", rows @ Qb[i, :, j, :], rows)
            G[:, j, i] = G[:, i, j]
    return G


def certified_minimum(objective, theta0, c=None, max_iter=MAX_NEWTON):
    """Certified ``(theta, lower, upper)`` of ``min F(theta) - c . theta`` by
    damped Newton from ``theta0`` (``c`` defaults to 0: the minimum of ``F``).

    The lower bound is the affine-invariant argument of
    :meth:`._objective.LogisticObjective.certify` with the score range in
    place of the margin: with ``nu = ||g||_{H^-1}`` and ``kappa`` the largest
    ``H^-1``-norm of a training row's score difference, ``nu < 1 / (2 e
    kappa)`` bounds the minimum by ``F - e nu^2 / 2`` (``-inf`` otherwise).
    """
    theta = np.array(theta0, dtype=float)
    c = np.zeros_like(theta) if c is None else np.asarray(c, dtype=float)

    def value_grad(t):
        F, g = objective.derivatives(t[:, None])
        return float(F[0]) - c @ t, g[:, 0] - c

    G, g = value_grad(theta)
    H = objective.hessian(theta)
    for _ in range(max_iter):
        try:
            factor = cho_factor(H, lower=True)
        except np.linalg.LinAlgError:
            break
        step = cho_solve(factor, g)
        # Newton decrement: below this the certificate's gap is negligible.
        if float(g @ step) <= DECREMENT * (1 + abs(G)):
            break
        s = 1.0
        for _ in range(40):
            trial = theta - s * step
            with np.errstate(over="ignore", invalid="ignore"):
                G_t, g_t = value_grad(trial)
            if G_t <= G:
                theta, G, g = trial, G_t, g_t
                break
            s /= 2
        else:
            break
        H = objective.hessian(theta)
    lower = -np.inf
    try:
        H_inv = cho_solve(cho_factor(H, lower=True), np.eye(objective.dim))
        nu = np.sqrt(max(float(g @ H_inv @ g), 0.0)) * (1 + 1e-6)
        var = score_ranges(row_grams(objective, objective.X, H_inv))
        kappa = np.sqrt(var.max(initial=0.0)) * (1 + 1e-6)
        if nu < 1.0 / (2 * np.e * max(kappa, 1e-300)):
            lower = G - np.e * nu**2 / 2
    except np.linalg.LinAlgError:
        pass
    return theta, lower, G


def minimum(objective, theta0):
    """Certified ``(theta_c, lower, upper)`` of ``min F``.

    Raises
    ------
    ValueError
        When the minimum is not certified (separable data without penalty).
    """
    theta, lower, upper = certified_minimum(objective, theta0)
    if not np.isfinite(lower):
        raise ValueError(
            "The training objective has no certified minimum: the labels are "
            "(nearly) separable and the baseline has no penalty, so the level "
            "set is unbounded. Use an L2 penalty (finite C)."
        )
    return theta, lower, upper
