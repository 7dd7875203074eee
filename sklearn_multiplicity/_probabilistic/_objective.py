"""The objective of the probabilistic level set, for two and K labels, and its
certified minimum.

The level set holds the logistic models of the baseline's family (its
penalty, intercept and class weights) whose objective is at most
``F(baseline) + eps``. ``F`` is scikit-learn's ``LogisticRegression``
objective divided by ``C * sum(sample_weight)``: the same minimiser, with the
loss a weighted mean so that ``eps`` is in nats per unit of weight,

    F(theta) = sum_i a_i loss_i(theta) + penalty(theta),

``a_i = sample_weight_i / sum(sample_weight)`` (class weights folded in) and
``rho = 1 / (C * sum(sample_weight))`` (``C = inf``, no penalty: ``rho = 0``).
Rows are augmented, ``x~ = (x, 1)`` (``x`` without intercept), of length
``q``; the intercept is not penalised (except by ``liblinear``, which
penalises ``b / intercept_scaling`` like a weight).

**Shapes.** A model is a parameter vector ``theta`` of length ``dim = (K - 1)
q``: for two labels the one coefficient vector scikit-learn fits,
``theta = (w, b)``; for K labels, class 0 is the reference and ``theta =
V.ravel()`` with ``V_k = W_k - W_0`` (K - 1, q) (adding one vector to every
``W_k`` changes no prediction). Many models are the columns of an array
(dim, B). A person's free scores are ``z = V x~`` (K - 1,), class 0 scoring 0.

- **Two labels** (``is_multiclass`` False): ``loss_i = log(1 + exp(-s_i
  theta . x~_i))`` with ``s_i = +-1``, penalty ``rho / 2 ||w||^2``. The
  closed forms are per row: the curvature weights ``h`` of
  :meth:`LogisticObjective.derivatives` make every Hessian ``X' diag(h) X +
  diag(penalty)``.
- **K labels**: ``loss_i = log(1 + sum_k exp(z_ik)) - z_i,y_i``, penalty
  ``rho / 2 (sum_k ||v_k||^2 - ||sum_k v_k||^2 / K)`` on the coefficients,
  which is scikit-learn's penalty of the label-centred ``coef`` (the smallest
  over the representations ``W`` of one predictive function).

Both losses are self-concordant in the generalised sense: along a direction
changing a row's scores by ``u``, the derivative of the curvature is at most
``range(u)`` times the curvature (``|phi'''| <= phi''`` for two labels, the
margin's change; ``max_k u_k - min_k u_k`` for K labels, the score range).
The certificates of the ellipsoids, the walks and the minimum rest on it.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg import cho_factor, cho_solve, cholesky, solve_triangular
from scipy.special import expit, log_expit
from sklearn.linear_model import LogisticRegression
from sklearn.utils.class_weight import compute_sample_weight

#: Newton iterations allowed to certify a minimum.
MAX_NEWTON = 100
#: Two labels: the Hessian's smallest eigenvalue below which the problem is
#: declared unbounded (separable data without a penalty), relative to its
#: largest.
SEPARABLE = 1e-12
#: K labels: Newton decrement (relative) at which the minimisation stops.
DECREMENT = 1e-18
#: K labels: rows per block of the Hessian (bounds its temporary memory).
HESSIAN_ROWS = 4096

SUPPORTED = (
    "a sklearn.linear_model.LogisticRegression with an L2 penalty or none "
    "(multinomial for three or more labels), a Pipeline ending in one, or "
    "either wrapped in sklearn.frozen.FrozenEstimator"
)


class UnsupportedModelError(TypeError, ValueError):
    """A baseline outside the audited family: another estimator, or a
    penalty whose level set is not smooth."""


class LogisticObjective:
    """``F`` on the training rows of positive weight, for two or K labels.

    Shapes and formulas are those of the module docstring.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Training features in the audit space.
    labels : ndarray of shape (n_samples,)
        Label indices in ``0 .. n_classes - 1``.
    weight : ndarray of shape (n_samples,)
        Non-negative weights (with any class weights folded in).
    n_classes : int
    C : float
        Inverse penalty strength (``inf``: no penalty).
    fit_intercept : bool
    intercept_penalty : float, default=0.0
        Two labels: penalty on the intercept relative to the weights'
        (``liblinear``: ``1 / intercept_scaling**2``).
    """

    def __init__(
        self, Z, labels, weight, n_classes, C, fit_intercept, intercept_penalty=0.0
    ):
        weight = np.asarray(weight, dtype=float)
        keep = weight > 0
        self.fit_intercept = bool(fit_intercept)
        self.K = int(n_classes)
        self.X = self.augment(np.asarray(Z, dtype=float)[keep])
        self.labels = np.asarray(labels)[keep].astype(int)
        total = float(weight.sum())
        self.a = weight[keep] / total
        self.rho = 0.0 if not np.isfinite(C) else 1.0 / (C * total)
        self.q = self.X.shape[1]
        self.n_coef = self.q - int(self.fit_intercept)
        # Penalty matrix between the K - 1 free classes (module docstring).
        k = self.K - 1
        self.mix = np.eye(k) if self.K == 2 else np.eye(k) - 1.0 / self.K
        self.onehot = np.zeros((self.X.shape[0], k))
        free = self.labels > 0
        self.onehot[np.flatnonzero(free), self.labels[free] - 1] = 1.0
        if not self.is_multiclass:
            self.sign = np.where(self.labels == 1, 1.0, -1.0)
            self.penalty = np.full(self.q, self.rho)
            if self.fit_intercept:
                self.penalty[-1] = self.rho * intercept_penalty
            # Rows with their sign folded in: row i's margin is Xs[i] . theta.
            self.Xs = self.X * self.sign[:, None]
            norms = np.linalg.norm(self.X, axis=1)
            self.row_norm_max = float(np.max(norms, initial=0))

    @property
    def is_multiclass(self):
        return self.K > 2

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

    def coefficients(self, theta):
        """scikit-learn's ``(coef_, intercept_)`` of the parameters ``theta``
        (K labels: the label-centred representative)."""
        theta = np.asarray(theta, dtype=float)
        if self.is_multiclass:
            W = np.vstack([np.zeros(self.q), theta.reshape(self.K - 1, self.q)])
            W -= W.mean(axis=0)
        else:
            W = theta.reshape(1, self.q).copy()
        if self.fit_intercept:
            return W[:, :-1].copy(), W[:, -1].copy()
        return W.copy(), np.zeros(1 if self.K == 2 else self.K)

    def scores(self, rows, theta):
        """Free scores ``z`` (n, K - 1, B) of the augmented ``rows`` at the
        columns of ``theta`` (dim, B); class 0 scores 0."""
        B = theta.shape[1]
        V = theta.reshape(self.K - 1, self.q, B).transpose(1, 0, 2)
        return (rows @ V.reshape(self.q, -1)).reshape(rows.shape[0], self.K - 1, B)

    # ------------------------------------------------------------ evaluation
    def value(self, theta):
        """``F`` at ``theta`` (dim,) or at each column of (dim, B)."""
        if self.is_multiclass and theta.ndim == 1:
            return self.evaluate(theta[:, None]).value[0]
        if self.is_multiclass:
            return self.evaluate(theta).value
        m = self.Xs @ theta
        loss = -(self.a @ log_expit(m))
        return loss + 0.5 * (self.penalty @ (theta * theta))

    def derivatives(self, theta):
        """``(F, gradient, curvature)`` at the columns of ``theta`` (dim, B).

        ``curvature``, two labels: the weights ``h`` (n, B) of the Hessians
        ``X' diag(h[:, b]) X + diag(penalty)`` (:meth:`hessians`); K labels:
        None (see :meth:`hessian`).
        """
        if self.is_multiclass:
            evaluation = self.evaluate(theta)
            return evaluation.value, evaluation.gradient(), None
        m = self.Xs @ theta
        value = -(self.a @ log_expit(m)) + 0.5 * (self.penalty @ (theta * theta))
        dphi = -expit(-m) * self.a[:, None]
        grad = self.Xs.T @ dphi + self.penalty[:, None] * theta
        h = expit(m) * expit(-m) * self.a[:, None]
        return value, grad, h

    # ---------------------------------------------------- two labels: Hessians
    def hessians(self, h, outer=None):
        """Two labels: Hessians (B, dim, dim) from curvature weights ``h``
        (n, B)."""
        if outer is not None:
            H = (h.T @ outer).reshape(h.shape[1], self.dim, self.dim)
        else:
            H = np.stack([(self.X * h[:, [b]]).T @ self.X for b in range(h.shape[1])])
        H[:, np.arange(self.dim), np.arange(self.dim)] += self.penalty
        return H

    def outer_products(self, limit=2e7):
        """Two labels: rows' outer products (n, dim * dim) when they fit in
        ``limit`` floats, to form many Hessians with one matrix product; else
        None."""
        n, p = self.X.shape
        if n * p * p > limit:
            return None
        return (self.X[:, :, None] * self.X[:, None, :]).reshape(n, p * p)

    def certify(self, value, grad, H, lam_min=None):
        """Two labels: certified lower bounds on ``min F - t c.theta`` from
        points near it.

        ``value``/``grad``/``H`` (B,), (dim, B), (B, dim, dim) are the
        objective, gradient and Hessian at the points. Where every margin
        moves by at most 1 the Hessian is at least ``H / e``
        (self-concordance). In the Euclidean ball of radius ``r = 1 / max
        ||x~_i||``, with ``mu = lambda_min(H) / e``, a gradient ``||g|| < mu r
        / 2`` puts the minimiser in the ball and the minimum above ``value -
        ||g||^2 / (2 mu)``. Ill-conditioned points fall back on the same
        argument in the norm of ``H`` (affine invariant): with ``kappa = max
        ||x~_i||_{H^-1}`` and ``nu = ||g||_{H^-1}``, ``nu < 1 / (2 e kappa)``
        bounds the minimum by ``value - e nu^2 / 2``. Points where neither
        holds get ``-inf``. ``lam_min`` (B,), when known, are the smallest
        eigenvalues of ``H``.
        """
        gnorm = np.linalg.norm(grad, axis=0)
        radius = 1.0 / max(self.row_norm_max, 1e-300)
        # The smallest diagonal entry bounds lambda_min from above: points it
        # rules out skip the eigenvalues.
        diag = H[:, np.arange(self.dim), np.arange(self.dim)]
        hopeful = gnorm < 0.5 * radius * diag.min(axis=1) / np.e
        mu = np.zeros(len(gnorm))
        if lam_min is not None:
            mu = lam_min * (1 - 1e-9) / np.e
        elif hopeful.any():
            mu[hopeful] = np.linalg.eigvalsh(H[hopeful])[:, 0] * (1 - 1e-9) / np.e
        ok = (mu > 0) & (gnorm < 0.5 * mu * radius)
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = np.where(ok, value - gnorm**2 / (2 * mu), -np.inf)
        for b in np.flatnonzero(~ok & (gnorm < 1e-6 * (1 + np.abs(value)))):
            lower[b] = self._certify_in_h_norm(value[b], grad[:, b], H[b])
        return lower

    def _certify_in_h_norm(self, value, grad, H):
        try:
            factor = cholesky(H, lower=True)
        except np.linalg.LinAlgError:
            return -np.inf
        nu = np.linalg.norm(solve_triangular(factor, grad, lower=True))
        kappa = 0.0
        for start in range(0, self.X.shape[0], 4096):
            rows = solve_triangular(factor, self.X[start : start + 4096].T, lower=True)
            kappa = max(kappa, float(np.sqrt(np.max(np.sum(rows * rows, axis=0)))))
        # Rounding of the factorisation: a margin of 1e-6 on both quantities.
        nu, kappa = nu * (1 + 1e-6), kappa * (1 + 1e-6)
        if not nu < 1.0 / (2 * np.e * max(kappa, 1e-300)):
            return -np.inf
        return value - np.e * nu**2 / 2

    # ------------------------------------------------------ the softmax form
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

    def evaluate(self, theta):
        """``F`` at the columns of ``theta`` (dim, B) in the softmax form,
        with the training rows' scores and what the gradient needs
        (:class:`Evaluation`)."""
        z = self.scores(self.X, theta)
        loss, e, total = self._softmax_parts(z)
        value = self.a @ loss + self.penalty_value(theta)
        return Evaluation(self, theta, value, z, e, total)

    def value_and_scores(self, theta):
        """``F`` at the columns of ``theta`` (dim, B) and the training rows'
        scores there (n, K - 1, B), from one product."""
        evaluation = self.evaluate(theta)
        return evaluation.value, evaluation.scores

    def probabilities(self, theta):
        """Probabilities of classes 1.. (n, K - 1) at one ``theta`` (dim,)."""
        _, e, total = self._softmax_parts(self.scores(self.X, theta[:, None]))
        return (e / total[:, None, :])[:, :, 0]

    def hessian(self, theta, row_scale=None):
        """``sum_i a_i c_i (diag(pi_i) - pi_i pi_i') (x) x~_i x~_i' + penalty``
        at one ``theta`` (dim,), with row scales ``c`` (default 1): the
        Hessian, or the self-concordant bounds of :mod:`._ellipsoids`."""
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
        H4 = H.reshape(k, q, k, q)
        idx = np.arange(self.n_coef)
        H4[:, idx, :, idx] += self.rho * self.mix
        return H


@dataclass
class Evaluation:
    """``F`` at models ``theta`` (dim, B), the training rows' ``scores``
    there (n, K - 1, B) and the softmax parts of :meth:`gradient`, which is
    computed only for the models asked (a model already settled needs
    none)."""

    objective: LogisticObjective
    theta: np.ndarray
    value: np.ndarray
    scores: np.ndarray
    exponentials: np.ndarray
    totals: np.ndarray

    def gradient(self, columns=None):
        """The gradient (dim, m) at the models ``columns`` (default: all).

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


# -------------------------------------------------------------- the family
def check_logistic(linear):
    """The ``LogisticRegression`` at the end of the baseline, checked."""
    if type(linear) is not LogisticRegression:
        raise UnsupportedModelError(
            f"{type(linear).__name__} is not supported; the probabilistic "
            f"auditor needs {SUPPORTED}."
        )
    return linear


def penalty_of(lr):
    """``C`` of the L2 penalty (``inf``: none); an error for L1/elastic-net."""
    params = lr.get_params()
    penalty = params.get("penalty", "deprecated")
    C, l1_ratio = float(params["C"]), params.get("l1_ratio")
    if penalty is None:
        return np.inf
    if penalty in ("l1", "elasticnet") or (
        penalty != "l2" and np.isfinite(C) and l1_ratio not in (None, 0, 0.0)
    ):
        raise UnsupportedModelError(
            "Only an L2 penalty or none is supported (the level set of an L1 "
            f"penalty is not smooth); got penalty={penalty!r}, l1_ratio={l1_ratio!r}."
        )
    return C


def objective_of(lr, Z, y, weight=None):
    """The training objective of the family of the fitted ``lr`` on ``(Z,
    y)`` and the baseline's parameters ``theta0`` (dim,)."""
    params = check_logistic(lr).get_params()
    C = penalty_of(lr)
    classes = lr.classes_
    y = np.asarray(y)
    labels = np.searchsorted(classes, y)
    if np.any(labels >= len(classes)) or np.any(classes[labels] != y):
        raise ValueError("y holds labels the estimator was not fitted on.")
    if len(classes) > 2 and params.get("solver") == "liblinear":
        raise ValueError("liblinear fits one-vs-rest models, not a multinomial one.")
    if len(classes) > 2 and params.get("multi_class", "auto") == "ovr":
        raise ValueError("multi_class='ovr' fits one-vs-rest models.")
    weight = np.ones(len(y)) if weight is None else weight
    weight = np.asarray(weight, dtype=float)
    if params.get("class_weight") is not None:
        weight = weight * compute_sample_weight(params["class_weight"], y)
    intercept_penalty = 0.0
    if params.get("solver") == "liblinear" and params["fit_intercept"]:
        intercept_penalty = 1.0 / float(params["intercept_scaling"]) ** 2
    objective = LogisticObjective(
        Z,
        labels,
        weight,
        len(classes),
        C,
        params["fit_intercept"],
        intercept_penalty=intercept_penalty,
    )
    intercept = lr.intercept_ if objective.fit_intercept else np.zeros(len(classes))
    return objective, objective.theta(lr.coef_, intercept)


def describe(objective, C):
    """The level set's family and objective, in words."""
    penalty = "no penalty" if not np.isfinite(C) else f"L2 penalty, C={C:g}"
    intercept = "with intercept" if objective.fit_intercept else "no intercept"
    if not objective.is_multiclass:
        return (
            f"binary logistic regression ({penalty}, {intercept}); objective: "
            "weighted mean log-loss + ||w||^2 / (2 C sum(sample_weight))"
        )
    return (
        f"multinomial logistic regression, {objective.K} labels ({penalty}, "
        f"{intercept}); objective: weighted mean log-loss + ||coef||^2 / (2 C "
        "sum(sample_weight)), coef centred over the labels"
    )


def check_full_rank(objective, names=None):
    """Refuse a level set without a penalty whose columns are constant or
    collinear, naming them: its objective is then flat along a direction,
    so it has no single minimum and no bounded level set.

    Parameters
    ----------
    objective : LogisticObjective
    names : sequence of str or None
        The names of the audited columns (``column j`` when None).

    Raises
    ------
    ValueError
        With the constant columns and the columns that are linear
        combinations of the others (and of the intercept).
    """
    if objective.rho > 0:
        return  # an L2 penalty bounds every direction
    X = objective.X
    d = objective.n_coef
    names = [f"column {j}" for j in range(d)] if names is None else list(names)
    _, r, order = scipy.linalg.qr(X, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(r))
    rank = int(np.sum(diagonal > 1e-10 * max(diagonal.max(initial=0.0), 1.0)))
    if rank == X.shape[1]:
        return
    constant = [j for j in range(d) if np.ptp(X[:, j]) == 0]
    dependent = [int(j) for j in order[rank:] if j < d and j not in constant]
    parts = []
    if constant:
        parts.append("constant: " + ", ".join(repr(names[j]) for j in constant))
    if dependent:
        parts.append(
            "a linear combination of the others"
            + (" and the intercept" if objective.fit_intercept else "")
            + ": "
            + ", ".join(repr(names[j]) for j in dependent)
        )
    raise ValueError(
        "The baseline has no penalty (C=inf) and its features are not "
        f"independent ({'; '.join(parts) or 'rank deficient'}): the "
        "log-loss is flat along a direction, so the level set is unbounded. "
        "Drop those columns (one-hot encodings: drop one level per feature) "
        "or use an L2 penalty (finite C)."
    )


# ------------------------------------------------------- the certified minimum
def level_slack(level):
    """Rounding margin of every comparison with the level ``L`` of the set."""
    return 1e-11 * (1.0 + abs(level))


def minimum(objective, theta0):
    """Certified ``(theta, lower, upper)`` of ``min F``, from ``theta0``.

    Raises
    ------
    ValueError
        When ``F`` has no minimum (separable data without a penalty) or its
        minimum cannot be certified.
    """
    if objective.is_multiclass:
        theta, lower, upper = certified_minimum(objective, theta0)
        unbounded = not np.isfinite(lower)
    else:
        theta, lower, upper = newton(objective, theta0[:, None])
        _, _, h = objective.derivatives(theta)
        eig = np.linalg.eigvalsh(objective.hessians(h)[0])
        theta, lower, upper = theta[:, 0], float(lower[0]), float(upper[0])
        unbounded = eig[0] <= SEPARABLE * max(eig[-1], 1e-300)
        unbounded = unbounded or not np.isfinite(lower)
    if unbounded:
        raise ValueError(
            "The training objective has no certified minimum in the baseline's "
            "feature space: the classes are (nearly) separable and the baseline "
            "has no penalty, so the level set is unbounded. Use an L2 penalty "
            "(finite C) or remove the separating features."
        )
    return theta, lower, upper


def newton(objective, theta, c=None, t=None, *, outer=None, max_iter=MAX_NEWTON):
    """Two labels: minimise ``F(theta) - t_b c_b . theta`` for each column b,
    certified.

    Damped Newton from the columns of ``theta`` (dim, B); ``c`` (dim, B) and
    ``t`` (B,) default to zero (the minimum of ``F``).

    Returns
    -------
    theta : ndarray (dim, B)
    lower : ndarray (B,)
        Certified lower bounds on each minimum (``-inf`` if not certified).
    upper : ndarray (B,)
        The value at ``theta``, an upper bound on each minimum.
    """
    theta = np.array(theta, dtype=float, copy=True)
    B = theta.shape[1]
    c = np.zeros_like(theta) if c is None else c
    t = np.zeros(B) if t is None else np.asarray(t, dtype=float)
    lower = np.full(B, -np.inf)
    upper = np.full(B, np.inf)
    active = np.arange(B)
    for _ in range(max_iter):
        th, cc, tt = theta[:, active], c[:, active], t[active]
        F, g, h = objective.derivatives(th)
        G = F - tt * np.einsum("pb,pb->b", cc, th)
        g = g - tt * cc
        H = objective.hessians(h, outer)
        lower[active] = objective.certify(G, g, H)
        upper[active] = G
        gap = upper[active] - lower[active]
        done = gap <= 1e-13 * (1 + np.abs(G))
        if done.all():
            break
        step = np.linalg.solve(H, g.T[:, :, None])[:, :, 0].T
        theta[:, active] = line_search(objective, th, step, cc, tt, G)
        active = active[~done] if (~done).any() else active
    return theta, lower, upper


def line_search(objective, theta, step, c, t, G0, halvings=40):
    """``theta - s * step`` with the largest ``s`` in 1, 1/2, ... that does not
    increase the objective (``s = 0`` if none does)."""
    out = theta.copy()
    todo = np.arange(theta.shape[1])
    s = 1.0
    for _ in range(halvings):
        trial = theta[:, todo] - s * step[:, todo]
        with np.errstate(over="ignore", invalid="ignore"):
            # Overflowing trials give inf or nan, which the test below rejects.
            value = objective.value(trial)
        G = value - t[todo] * np.einsum("pb,pb->b", c[:, todo], trial)
        ok = G <= G0[todo]
        out[:, todo[ok]] = trial[:, ok]
        todo = todo[~ok]
        if todo.size == 0:
            break
        s /= 2
    return out


def certified_minimum(objective, theta0, c=None, max_iter=MAX_NEWTON):
    """K labels: certified ``(theta, lower, upper)`` of ``min F(theta) - c .
    theta`` by damped Newton from ``theta0`` (``c`` defaults to 0: the
    minimum of ``F``).

    The lower bound is the affine-invariant argument of
    :meth:`LogisticObjective.certify` with the score range in place of the
    margin: with ``nu = ||g||_{H^-1}`` and ``kappa`` the largest
    ``H^-1``-norm of a training row's score difference, ``nu < 1 / (2 e
    kappa)`` bounds the minimum by ``F - e nu^2 / 2`` (``-inf`` otherwise).
    """
    theta = np.array(theta0, dtype=float)
    c = np.zeros_like(theta) if c is None else np.asarray(c, dtype=float)

    def value_grad(t):
        F, g, _ = objective.derivatives(t[:, None])
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


def full_scores(z):
    """Scores of all K classes from the free ones, class 0 at 0: (..., K)."""
    return np.concatenate([np.zeros(z.shape[:-1] + (1,)), z], axis=-1)


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
