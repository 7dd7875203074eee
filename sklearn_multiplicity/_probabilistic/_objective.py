"""The one objective of the probabilistic level set, and its certified minimum.

The level set holds the binary logistic models ``theta = (w, b)`` of the
baseline's family whose objective

    F(theta) = sum_i a_i log(1 + exp(-s_i (x_i . w + b))) + rho / 2 ||w||^2,

with ``a_i = sample_weight_i / sum(sample_weight)``, ``s_i = +-1`` and
``rho = 1 / (C * sum(sample_weight))``, is at most ``F(baseline) + eps``.
This is scikit-learn's ``LogisticRegression`` objective ``C * sum(s_i *
logloss_i) + ||w||^2 / 2`` divided by ``C * sum(sample_weight)``: the same
minimiser, with the loss as a weighted mean so that ``eps`` is in nats per
unit of weight. ``C = inf`` (no penalty) gives ``rho = 0``. The intercept is
not penalised (except by ``liblinear``, which penalises ``b / intercept_scaling``
like a weight).
"""

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from scipy.special import expit, log_expit

#: Newton iterations allowed to certify a minimum.
MAX_NEWTON = 100
#: The Hessian's smallest eigenvalue below which the problem is declared
#: unbounded (separable data without a penalty), relative to its largest.
SEPARABLE = 1e-12


class LogisticObjective:
    """``F`` on the training rows of positive weight, in the audit space.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Training features in the audit space.
    y01 : ndarray of shape (n_samples,)
        Labels, 1 for the second class.
    weight : ndarray of shape (n_samples,)
        Non-negative weights (with any class weights folded in).
    C : float
        Inverse penalty strength (``inf``: no penalty).
    fit_intercept : bool
    intercept_penalty : float, default=0.0
        Penalty on the intercept relative to the weights' (``liblinear``:
        ``1 / intercept_scaling**2``).
    """

    def __init__(self, Z, y01, weight, C, fit_intercept, intercept_penalty=0.0):
        keep = weight > 0
        Z = np.asarray(Z, dtype=float)
        self.fit_intercept = bool(fit_intercept)
        self.X = self.augment(Z[keep])
        self.sign = np.where(np.asarray(y01)[keep] == 1, 1.0, -1.0)
        total = float(weight.sum())
        self.a = weight[keep] / total
        rho = 0.0 if not np.isfinite(C) else 1.0 / (C * total)
        self.penalty = np.full(self.X.shape[1], rho)
        if self.fit_intercept:
            self.penalty[-1] = rho * intercept_penalty
        # Rows with their sign folded in: the margin of row i is Xs[i] . theta.
        self.Xs = self.X * self.sign[:, None]
        self.row_norm_max = float(np.max(np.linalg.norm(self.X, axis=1), initial=0))

    @property
    def dim(self):
        return self.X.shape[1]

    def augment(self, Z):
        """Rows ``x~ = (x, 1)`` (or ``x`` without intercept): score = x~ . theta."""
        Z = np.asarray(Z, dtype=float)
        if not self.fit_intercept:
            return Z
        return np.hstack([Z, np.ones((Z.shape[0], 1))])

    def theta(self, coef, intercept):
        """The parameter vector of ``(coef, intercept)``."""
        coef = np.asarray(coef, dtype=float).ravel()
        return np.append(coef, intercept) if self.fit_intercept else coef.copy()

    def split(self, theta):
        """``(coef, intercept)`` of a parameter vector."""
        if self.fit_intercept:
            return theta[:-1].copy(), float(theta[-1])
        return theta.copy(), 0.0

    # ------------------------------------------------------------ evaluation
    def value(self, theta):
        """``F`` at ``theta`` of shape (p,) or at each column of (p, B)."""
        m = self.Xs @ theta
        loss = -(self.a @ log_expit(m))
        return loss + 0.5 * (self.penalty @ (theta * theta))

    def derivatives(self, theta):
        """``(F, gradient, curvature weights)`` at the columns of ``theta``
        (p, B): the Hessian of column b is ``X' diag(h[:, b]) X + diag(penalty)``."""
        m = self.Xs @ theta
        value = -(self.a @ log_expit(m)) + 0.5 * (self.penalty @ (theta * theta))
        dphi = -expit(-m) * self.a[:, None]
        grad = self.Xs.T @ dphi + self.penalty[:, None] * theta
        h = expit(m) * expit(-m) * self.a[:, None]
        return value, grad, h

    def hessians(self, h, outer=None):
        """Hessians (B, p, p) from curvature weights ``h`` (n, B)."""
        if outer is not None:
            H = (h.T @ outer).reshape(h.shape[1], self.dim, self.dim)
        else:
            H = np.stack([(self.X * h[:, [b]]).T @ self.X for b in range(h.shape[1])])
        H[:, np.arange(self.dim), np.arange(self.dim)] += self.penalty
        return H

    def outer_products(self, limit=2e7):
        """Rows' outer products (n, p*p) when they fit in ``limit`` floats,
        to form many Hessians with one matrix product; else None."""
        n, p = self.X.shape
        if n * p * p > limit:
            return None
        return (self.X[:, :, None] * self.X[:, None, :]).reshape(n, p * p)

    def certify(self, value, grad, H, lam_min=None):
        """Certified lower bounds on ``min F - t c.theta`` from points near it.

        ``value``/``grad``/``H`` (B,), (p, B), (B, p, p) are the objective,
        gradient and Hessian at the points. The logistic loss has
        ``|phi'''| <= phi''``, so where every margin moves by at most 1 the
        Hessian is at least ``H / e``. In the Euclidean ball of radius
        ``r = 1 / max ||x~_i||``, with ``mu = lambda_min(H) / e``, a gradient
        ``||g|| < mu r / 2`` puts the minimiser in the ball and the minimum
        above ``value - ||g||^2 / (2 mu)``. Ill-conditioned points fall back
        on the same argument in the norm of ``H`` (affine invariant): with
        ``kappa = max ||x~_i||_{H^-1}`` and ``nu = ||g||_{H^-1}``,
        ``nu < 1 / (2 e kappa)`` bounds the minimum by ``value - e nu^2 / 2``.
        Points where neither holds get ``-inf``. ``lam_min`` (B,), when
        known, are the smallest eigenvalues of ``H``.
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


def newton(objective, theta, c=None, t=None, *, outer=None, max_iter=MAX_NEWTON):
    """Minimise ``F(theta) - t_b c_b . theta`` for each column b, certified.

    Damped Newton from the columns of ``theta`` (p, B); ``c`` (p, B) and
    ``t`` (B,) default to zero (the minimum of ``F``).

    Returns
    -------
    theta : ndarray (p, B)
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


def minimum(objective, theta0):
    """Certified ``(theta, lower, upper)`` of ``min F``, from ``theta0``.

    Raises
    ------
    ValueError
        When ``F`` has no minimum (separable data without a penalty) or its
        minimum cannot be certified.
    """
    theta, lower, upper = newton(objective, theta0[:, None])
    _, _, h = objective.derivatives(theta)
    eig = np.linalg.eigvalsh(objective.hessians(h)[0])
    if eig[0] <= SEPARABLE * max(eig[-1], 1e-300) or not np.isfinite(lower[0]):
        raise ValueError(
            "The training objective has no certified minimum in the baseline's "
            "feature space: the classes are (nearly) separable and the baseline "
            "has no penalty, so the level set is unbounded. Use an L2 penalty "
            "(finite C) or remove the separating features."
        )
    return theta[:, 0], float(lower[0]), float(upper[0])
