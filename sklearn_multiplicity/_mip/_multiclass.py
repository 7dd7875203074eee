"""Solver-neutral MIPs over K-class linear models: the K-label extension of
:mod:`._assembly`.

Variables are ordered ``[W ((K-1) x p, row-major), b (K-1), z (n x K,
row-major)]``: the weights and intercepts of classes ``1 .. K-1`` (class 0's
are fixed at 0, see :class:`~.._core._hypothesis.MulticlassBoxMargin`) and
one binary ``z[u, l]`` per pattern ``u`` and label ``l``. With ``s_k`` the
score of class ``k`` and ``L[u, l, m]`` a lower bound of ``s_l(x_u) -
s_m(x_u)`` over the weight box (finite, since ``x_u`` is in [0, 1]^p), the rows

    sum_l z[u, l] = 1
    s_l(x_u) - s_m(x_u) - (margin - L[u, l, m]) z[u, l] >= L[u, l, m]

(the second for every ``m != l``) make ``z[u, l] = 1`` exactly when ``l``
wins pattern ``u`` by ``margin``, so ``z`` is exactly the labelling of a model
of the class. A pattern labelled ``l`` costs its weight minus
``counts[u, l]``. Formulations:

- :func:`min_error` -- fewest weighted training errors;
- :func:`flip` -- fewest errors among models not giving one pattern a label
  (optionally within an error ceiling);
- :func:`max_disagreement` -- most weight labelled differently from a
  baseline, within an error ceiling;
- :func:`give_label` -- a model within an error ceiling giving one training
  pattern one label;
- :func:`lead` -- a model within an error ceiling under which one label's
  score at a new person is at least every other's (a tie counts).

The variable bounds, the score bounds of the rows, the weights in the
problem's :attr:`~.._core.PatternProblem.weight_unit` (disagreement weights
in their own), the error budget rows and the assembly of each MIP are the
two-label ones (:mod:`._assembly`); every MIP records the unit of its
objective.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._core import TOLERANCE, weight_unit
from .._core._hypothesis import predict
from ._assembly import PatternEncoding, model_box, score_bounds, score_entries
from ._cuts import affine_identities, label_identity_rows

#: Identity rows at most in a K-label encoding (each identity gives
#: ``K (K - 1)`` rows), as the two-label encoding's 200,000 identities.
MAX_IDENTITY_ROWS = 200_000


@dataclass
class MulticlassEncoding(PatternEncoding):
    """Where the variables of the K-class MIPs live, and their shared rows;
    ``X`` holds the canonical scaled training patterns."""

    #: The affine identities ``(a, b, c, d)`` behind the identity rows.
    identities: np.ndarray = None

    @property
    def n_identities(self):
        return 0 if self.identities is None else self.identities.shape[0]

    @property
    def n_classes(self):
        return self.problem.n_classes

    @property
    def n_patterns(self):
        return self.X.shape[0]

    @property
    def b_offset(self):
        return (self.n_classes - 1) * self.p

    @property
    def z_offset(self):
        return (self.n_classes - 1) * (self.p + 1)

    def z_index(self, pattern, label):
        """Column of ``z[pattern, label]`` (both may be arrays)."""
        return self.z_offset + np.asarray(pattern) * self.n_classes + label

    # -- weights in the unit of the solvers ---------------------------------
    def error_costs(self):
        """Cost of each label on each pattern, ``(n, K)``, in :attr:`unit`."""
        counts = self.problem.counts
        return (counts.sum(axis=1, keepdims=True) - counts) / self.unit

    def error_objective(self):
        """Objective vector and offset (0) of the weighted training error, in
        :attr:`unit`."""
        c = np.zeros(self.n_vars)
        c[self.z_offset :] = self.error_costs().ravel()
        return c, 0.0

    def label_budget_rows(self, ceilings):
        """Errors on each true label within its ceiling: labelling pattern
        ``u`` ``l`` costs label ``k != l`` its weight ``counts[u, k]``."""
        K, n = self.n_classes, self.n_patterns
        cost = self.problem.counts / self.unit  # (n, K): by true label
        rows = np.zeros((K, self.n_vars))
        for k in range(K):
            for label in range(K):
                if label != k:
                    rows[k, self.z_index(np.arange(n), label)] = cost[:, k]
        upper = np.array([self.budget_in_units(c) for c in ceilings.ceilings])
        return sp.csr_matrix(rows), np.full(K, -np.inf), upper

    # -- solutions -------------------------------------------------------------
    def decode(self, x):
        """``(W, b, labels)`` of a MIP solution vector (labels as the solver
        set ``z``; a caller recomputes them from ``W, b``)."""
        x = np.asarray(x, dtype=float)
        K, p = self.n_classes, self.p
        W = x[: self.b_offset].reshape(K - 1, p)
        b = x[self.b_offset : self.z_offset]
        z = x[self.z_offset :].reshape(-1, K)
        return W, b, np.argmax(z, axis=1)

    def encode(self, W, b):
        """Full solution vector of the model ``(W, b)``."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        labels = predict(W, b, self.X)
        z = np.zeros((self.n_patterns, self.n_classes))
        z[np.arange(self.n_patterns), labels] = 1.0
        return np.concatenate([W.ravel(), np.asarray(b, float), z.ravel()])


def encode(problem, hypothesis, *, cuts=True):
    """The variables and shared rows of every K-class MIP on ``problem``.

    Parameters
    ----------
    problem : PatternProblem
    hypothesis : MulticlassBoxMargin
    cuts : bool, default=True
        Add the affine-identity rows among training patterns
        (:func:`~._cuts.label_identity_rows`).

    Returns
    -------
    MulticlassEncoding
    """
    X = problem.canonical()
    n, p = X.shape
    K = problem.n_classes
    w_lo, w_hi, b_lo, b_hi = hypothesis.weight_bounds(problem)
    margin = hypothesis.margin
    # Score bounds of every class on every pattern (class 0 scores 0).
    L, U = score_bounds(X, w_lo, w_hi, b_lo, b_hi)
    low = np.zeros((n, K))
    high = np.zeros((n, K))
    low[:, 1:] = L[:, None]
    high[:, 1:] = U[:, None]
    b_offset = (K - 1) * p
    z_offset = (K - 1) * (p + 1)
    n_vars = z_offset + n * K
    patterns = np.arange(n)

    rows, cols, vals, lower = [], [], [], []
    n_rows = 0

    def score_terms(k, sign, row_ids):
        # ``sign * s_k(x_u)`` on rows ``row_ids``; nothing for class 0.
        if k > 0:
            r, c, v = score_entries(X, row_ids, (k - 1) * p, b_offset + k - 1, sign)
            rows.append(r)
            cols.append(c)
            vals.append(v)

    for win in range(K):
        for m in range(K):
            if m == win:
                continue
            row_ids = n_rows + patterns
            score_terms(win, 1.0, row_ids)
            score_terms(m, -1.0, row_ids)
            gap_low = low[:, win] - high[:, m]
            rows.append(row_ids)
            cols.append(z_offset + patterns * K + win)
            vals.append(-(margin - gap_low))
            lower.append(gap_low)
            n_rows += n
    # One label per pattern.
    rows.append(n_rows + np.repeat(patterns, K))
    cols.append(z_offset + np.arange(n * K))
    vals.append(np.ones(n * K))
    n_rows += n
    row_lower = np.concatenate([*lower, np.ones(n)])
    row_upper = np.concatenate([np.full(n_rows - n, np.inf), np.ones(n)])
    quads = np.zeros((0, 4), dtype=np.int64)
    if cuts and K > 1:
        quads = affine_identities(
            problem.patterns,
            weights=problem.counts.sum(axis=1),
            max_identities=MAX_IDENTITY_ROWS // (K * (K - 1)),
        )
        r, c, v = label_identity_rows(
            quads, lambda u, label: z_offset + u * K + label, K
        )
        rows.append(n_rows + r)
        cols.append(c)
        vals.append(v)
        n_rows += r.size // 4
        row_lower = np.concatenate([row_lower, np.full(r.size // 4, -np.inf)])
        row_upper = np.concatenate([row_upper, np.full(r.size // 4, 3.0)])
    A = sp.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_rows, n_vars),
    ).tocsr()
    return MulticlassEncoding(
        problem,
        hypothesis,
        X,
        A,
        row_lower,
        row_upper,
        *model_box(w_lo, w_hi, b_lo, b_hi, K - 1, n * K, False),
        quads,
    )


def min_error(enc, *, hint=None):
    """Fewest weighted training errors over the class."""
    return enc.fewest_errors(
        "multiclass_min_error",
        "min_error",
        hint=hint,
    )


def flip(enc, pattern, baseline_label, *, max_errors=None, hint=None, kept_labels=None):
    """Fewest errors among models not labelling ``pattern`` ``baseline_label``.

    With ``max_errors`` (a weight: the baseline's errors plus the budget), the
    MIP is infeasible exactly when no model within that many errors changes
    the pattern's label; otherwise its optimum is the fewest errors of a
    model that does. ``kept_labels`` as in :func:`give_label` (with
    ``max_errors`` only).
    """
    var_upper = enc.var_upper.copy()
    var_upper[enc.z_index(int(pattern), int(baseline_label))] = 0.0
    return enc.fewest_errors(
        f"multiclass_flip[pattern {int(pattern)} != {int(baseline_label)}]",
        "flip",
        hint=hint,
        var_lower=_fixed_lower(enc, kept_labels),
        var_upper=var_upper,
        extra_rows=None if max_errors is None else enc.budget_rows(max_errors),
    )


def max_disagreement(
    enc, baseline_labels, max_errors, *, weights=None, hint=None, kept_labels=None
):
    """Most weight labelled differently from ``baseline_labels`` within
    ``max_errors`` weighted errors.

    Parameters
    ----------
    baseline_labels : ndarray of int, shape (n_patterns,)
        The baseline's label (index) of every pattern.
    max_errors : float
        Largest allowed weighted training error.
    weights : ndarray or None
        Weight of disagreeing on each pattern (default: its training weight),
        counted in their :func:`~.._core.weight_unit`.
    kept_labels : tuple or None
        As in :func:`give_label`.
    """
    baseline_labels = np.asarray(baseline_labels, dtype=np.int64)
    if weights is None:
        weights = enc.problem.pattern_weight
    weights = np.asarray(weights, dtype=float)
    unit = weight_unit(weights)
    in_units = weights / unit
    keep = enc.z_index(np.arange(enc.n_patterns), baseline_labels)
    c = np.zeros(enc.n_vars)
    # Disagreeing on u is 1 - z[u, baseline_u].
    c[keep] = -in_units
    integral = bool(np.all(np.abs(in_units - np.round(in_units)) < TOLERANCE))
    return enc.mip(
        c,
        float(in_units.sum()),
        maximize=True,
        integral=integral,
        name="multiclass_max_disagreement",
        kind="disagreement",
        hint=hint,
        var_lower=_fixed_lower(enc, kept_labels),
        extra_rows=enc.budget_rows(max_errors),
        # The heaviest patterns decided first, as for two labels.
        branching_priority=enc.heaviest_first(in_units, keep),
        unit=unit,
    )


def _fixed_lower(enc, kept_labels):
    """Variable lower bounds fixing ``z[u, label] = 1`` for every
    ``(u, label)`` of ``kept_labels`` (patterns proven to keep a label)."""
    var_lower = enc.var_lower.copy()
    if kept_labels is not None:
        patterns, labels = kept_labels
        var_lower[enc.z_index(np.asarray(patterns), np.asarray(labels))] = 1.0
    return var_lower


def give_label(enc, pattern, label, max_errors, *, kept_labels=None):
    """Fewest errors of a model giving training ``pattern`` ``label``, within
    ``max_errors``: infeasible exactly when no model of the level set does.

    ``kept_labels``: ``(patterns, labels)`` proven to keep their label within
    ``max_errors``, fixed (valid cuts of the level set).
    """
    var_lower = _fixed_lower(enc, kept_labels)
    var_lower[enc.z_index(int(pattern), int(label))] = 1.0
    return enc.fewest_errors(
        f"multiclass_give_label[pattern {int(pattern)} = {int(label)}]",
        "flip",
        var_lower=var_lower,
        extra_rows=enc.budget_rows(max_errors),
    )


def lead(enc, x, label, max_errors, *, kept_labels=None):
    """Fewest errors of a model within ``max_errors`` whose score of
    ``label`` at ``x`` (a canonical scaled row, possibly outside the training
    patterns) is at least every other label's: infeasible exactly when no
    model of the level set gives ``x`` that label (ties included: the margin
    binds training patterns only).

    ``kept_labels`` as in :func:`give_label`.
    """
    x = np.asarray(x, dtype=float)
    K, p = enc.n_classes, enc.p
    label = int(label)
    rows = []
    for other in range(K):
        if other == label:
            continue
        row = np.zeros(enc.n_vars)
        for k, sign in ((label, 1.0), (other, -1.0)):
            if k > 0:  # class 0 scores 0
                row[(k - 1) * p : k * p] += sign * x
                row[enc.b_offset + k - 1] += sign
        rows.append(row)
    ceiling_row, ceiling_lo, ceiling_hi = enc.budget_rows(max_errors)
    A = sp.vstack([sp.csr_matrix(np.array(rows)), ceiling_row], format="csr")
    lower = np.concatenate([np.zeros(K - 1), ceiling_lo])
    upper = np.concatenate([np.full(K - 1, np.inf), ceiling_hi])
    return enc.fewest_errors(
        f"multiclass_lead[label {label}]",
        "flip",
        var_lower=_fixed_lower(enc, kept_labels),
        extra_rows=(A, lower, upper),
    )
