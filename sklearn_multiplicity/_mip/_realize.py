"""Whether the continuous hypothesis class realises a labelling of the patterns.

A labelling ``z`` of the training patterns is a dichotomy of the class
:class:`~.._core.BoxMargin` iff the LP

    maximise delta  s.t.  x_u . w + b >= delta  (z_u = 1),
                          x_u . w + b <= -delta (z_u = 0),
                          w and b in the class's box

has an optimum ``delta >= margin``; its solution is then a model of the class
that predicts ``z``. Heuristics use it to turn a labelling they guess (a
threshold of a known direction, say) into a model, rotating the hyperplane
as needed.
"""

import numpy as np
from scipy.optimize import linprog


def max_margin(enc, z):
    """The model of largest margin that predicts ``z`` on the training patterns.

    Parameters
    ----------
    enc : Encoding
        Of a continuous hypothesis class (scaled features, a weight box).
    z : ndarray of bool, shape (n,)
        The labelling (True: positive) of the encoding's first ``n`` patterns
        (the training patterns, then any extra ones).

    Returns
    -------
    (w, b, delta) or None
        The LP's optimum (``delta <= 0``: no strictly separating model);
        ``None`` when the LP solver fails.
    """
    z = np.asarray(z, dtype=bool)
    X = enc.X[: z.size]
    k, p = X.shape
    sign = np.where(z, -1.0, 1.0)[:, None]  # rows as "<= 0"
    A = np.hstack([sign * X, sign, np.ones((k, 1))])
    w_lo, w_hi, b_lo, b_hi = enc.weight_bounds()
    bounds = [*zip(w_lo, w_hi, strict=True), (b_lo, b_hi), (None, 1.0)]
    c = np.zeros(p + 2)
    c[-1] = -1.0
    result = linprog(c, A_ub=A, b_ub=np.zeros(k), bounds=bounds, method="highs")
    if result.status != 0:
        return None
    x = result.x
    return x[:p], float(x[p]), float(x[p + 1])


def realise(enc, z):
    """``(w, b)`` of a model of the class that predicts ``z``, or ``None``.

    The max-margin model, when its margin reaches the class's.
    """
    solution = max_margin(enc, z)
    if solution is None or solution[2] < enc.hypothesis.margin:
        return None
    return solution[0], solution[1]
