"""The three MIPs of the library, as solver-neutral :class:`~._program.MIP` objects.

Each starts from the variables and big-M rows of an
:class:`~._encoding.Encoding`, which make ``z`` exactly the dichotomy of a
model of the hypothesis class. Formulations:

- :func:`min_error` -- fewest weighted training errors;
- :func:`flip` -- fewest errors among models giving one pattern a fixed label
  (optionally within an error budget);
- :func:`score_flip` -- a model within an error budget scoring a person
  outside the training data at or across 0;
- :func:`max_disagreement` -- most weight predicted differently from a
  baseline, within an error budget;
- :func:`coefficient` -- the least or largest value of one weight within an
  error budget;
- :func:`sign_test` -- fewest errors among models within an error budget
  whose weight ``j`` has a given sign.

An error budget is a number (the overall weighted error) or a
:class:`~.._core.ClassBudget` (false positives and false negatives, one row
each). Weights and budgets enter every MIP in the encoding's unit
(:attr:`~._encoding.Encoding.unit`), disagreement weights in their own
(:func:`~.._core.weight_unit`); the MIP records the unit of its
objective, and results come back in weights.
"""

import copy
import dataclasses

import numpy as np
import scipy.sparse as sp

from .._core import TOLERANCE, weight_unit


def fix_labels(enc, mip, patterns, labels):
    """``mip`` with the labels ``z`` of ``patterns`` fixed to ``labels``.

    With ``z`` fixed, a pattern's big-M row becomes a plain margin row, so a
    label known in every model of a level set (a pattern proven unflippable
    within its budget) tightens the relaxation at no cost.
    """
    patterns = np.asarray(patterns, dtype=int)
    if not patterns.size:
        return mip
    return fix_columns(mip, enc.z_offset + patterns, labels)


def fix_columns(mip, columns, values):
    """A copy of ``mip`` with the variables ``columns`` fixed to ``values``
    (``mip`` itself unchanged)."""
    fixed = copy.copy(mip)
    fixed.var_lower = mip.var_lower.copy()
    fixed.var_upper = mip.var_upper.copy()
    fixed.var_lower[columns] = fixed.var_upper[columns] = np.asarray(
        values, dtype=float
    )
    return fixed


def min_error(enc, *, hint=None):
    """Fewest weighted training errors over the class."""
    return enc.fewest_errors("min_error", "min_error", hint=hint)


def flip(enc, pattern, label, *, budget=None, hint=None):
    """Fewest errors among models predicting ``label`` for ``pattern``.

    ``pattern`` indexes the rows of the encoding (training or extra patterns).
    With a ``budget``, the MIP is infeasible when no model of the class within
    that many errors gives ``pattern`` that label.
    """
    j = enc.z_offset + int(pattern)
    return _fewest_errors_with_bound(
        enc,
        j,
        lower=float(label),
        upper=float(label),
        budget=budget,
        hint=hint,
        name=f"flip[pattern {int(pattern)} -> {int(label)}]",
    )


def score_flip(enc, x, *, positive, budget):
    """Fewest errors among models within ``budget`` scoring the person ``x``
    at or above 0 (``positive``) or at or below 0.

    ``x`` is a canonical pattern outside the training data: it gets one row
    on its score ``s = w . x + b`` and no binary, so no margin, and no other
    person's row, constrains it. The row is closed: a score of exactly 0 (a
    tie) counts on both sides, so infeasibility proves that every model
    within ``budget`` scores ``x`` strictly on the other side.

    Parameters
    ----------
    x : ndarray of shape (p,)
        Canonical pattern (as the encoding's ``X``).
    positive : bool
        Ask for ``s >= 0`` (else ``s <= 0``).
    budget : float or ClassBudget
    """
    row = np.zeros((1, enc.n_vars))
    row[0, : enc.p] = np.asarray(x, dtype=float)
    row[0, enc.p] = 1.0
    lower, upper = (0.0, np.inf) if positive else (-np.inf, 0.0)
    budget_A, budget_lo, budget_hi = enc.budget_rows(budget)
    return enc.fewest_errors(
        f"score_flip[new person {'>=' if positive else '<='} 0]",
        "flip",
        extra_rows=(
            sp.vstack([budget_A, sp.csr_matrix(row)], format="csr"),
            np.concatenate([budget_lo, [lower]]),
            np.concatenate([budget_hi, [upper]]),
        ),
    )


def _fewest_errors_with_bound(enc, column, *, lower, upper, budget, hint, name):
    """Fewest errors among models with variable ``column`` within
    ``[lower, upper]`` (and within ``budget`` errors unless it is None)."""
    var_lower = enc.var_lower.copy()
    var_upper = enc.var_upper.copy()
    var_lower[column] = max(var_lower[column], lower)
    var_upper[column] = min(var_upper[column], upper)
    return enc.fewest_errors(
        name,
        "flip",
        hint=hint,
        var_lower=var_lower,
        var_upper=var_upper,
        extra_rows=None if budget is None else enc.budget_rows(budget),
    )


def max_disagreement(
    enc,
    baseline,
    budget,
    *,
    weights=None,
    hint=None,
    name=None,
    heaviest_first=True,
):
    """Most weight predicted differently from ``baseline`` within ``budget`` errors.

    Parameters
    ----------
    baseline : ndarray of bool, shape (n_patterns_in_encoding,)
        The baseline's prediction of every pattern of the encoding.
    budget : float
        Largest allowed weighted training error.
    weights : ndarray or None
        Weight of disagreeing on each pattern; defaults to the training weight
        (restrict it to a group, or to uncertified patterns, by zeroing others).
        The objective counts in their :func:`~.._core.weight_unit`:
        whole weights in their greatest common divisor (0/1 weights as they
        are), others in the smallest positive one.
    heaviest_first : bool
        Give the MIP branching priorities by ``weights``
        (:meth:`Encoding.heaviest_first`).
    """
    baseline = np.asarray(baseline, dtype=bool)
    if weights is None:
        weights = np.zeros(enc.X.shape[0])
        weights[: enc.n_train] = enc.problem.pattern_weight
    weights = np.asarray(weights, dtype=float)
    unit = weight_unit(weights)
    in_units = weights / unit
    c = np.zeros(enc.n_vars)
    # |z - z0| is z where z0 = 0 and 1 - z where z0 = 1.
    c[enc.z_slice()] = np.where(baseline, -in_units, in_units)
    offset = float(in_units[baseline].sum())
    integral = bool(np.all(np.abs(in_units - np.round(in_units)) < TOLERANCE))
    # Deciding the heaviest patterns first closes the gap between the LP bound
    # and the incumbent far sooner than SCIP's default choice (2.3 times less
    # solver time over six COMPAS budgets; see benchmarks/README.rst).
    return enc.mip(
        c,
        offset,
        maximize=True,
        integral=integral,
        name=name or "max_disagreement",
        kind="disagreement",
        hint=hint,
        extra_rows=enc.budget_rows(budget),
        branching_priority=enc.heaviest_first(weights) if heaviest_first else None,
        unit=unit,
    )


def coefficient(enc, feature, budget, *, maximize, hint=None):
    """The least (or, with ``maximize``, largest) canonical weight ``feature``
    of a model within ``budget``."""
    c = np.zeros(enc.n_vars)
    c[int(feature)] = 1.0
    direction = "max" if maximize else "min"
    return enc.mip(
        c,
        0.0,
        maximize=maximize,
        integral=bool(enc.hypothesis.integer),
        name=f"{direction}_weight[{int(feature)}, budget {budget:g}]",
        kind="coefficient",
        hint=hint,
        extra_rows=enc.budget_rows(budget),
    )


def weight_probe(enc, feature, threshold, budget, *, maximize):
    """Fewest errors among models within ``budget`` whose canonical weight
    ``feature`` is at least ``threshold`` (with ``maximize``) or at most it.

    Infeasible exactly when the largest (least) weight over the level set is
    below (above) ``threshold``; any solution is a model of the level set
    at or beyond it. Like :func:`sign_test`, of which it is the general
    case, an error objective prunes by the budget far sooner than the
    weight's own objective.
    """
    relation = ">=" if maximize else "<="
    return _fewest_errors_with_bound(
        enc,
        int(feature),
        lower=threshold if maximize else -np.inf,
        upper=np.inf if maximize else threshold,
        budget=budget,
        hint=None,
        name=f"weight_probe[{int(feature)} {relation} {threshold:.6g}, "
        f"budget {budget:g}]",
    )


def labelled_weight(enc, feature, labels, budget, *, maximize):
    """The least (largest) canonical weight ``feature`` of a model predicting
    ``labels`` on the training patterns: :func:`coefficient` with every label
    fixed, in effect an LP."""
    mip = coefficient(enc, feature, budget, maximize=maximize)
    patterns = np.arange(len(labels))
    mip = fix_labels(enc, mip, patterns, np.asarray(labels, dtype=bool))
    direction = "max" if maximize else "min"
    name = f"{direction}_labelled_weight[{int(feature)}, budget {budget:g}]"
    return dataclasses.replace(mip, name=name)


def sign_test(enc, feature, budget, *, nonpositive, hint=None):
    """Fewest errors among models within ``budget`` whose canonical weight
    ``feature`` is at most 0 (``nonpositive``) or at least 0.

    Infeasible exactly when every model within ``budget`` gives the weight
    the other, strict, sign. An error objective prunes by the budget far
    sooner than a weight objective, so this settles a sign that the weight's
    own MIP leaves open.
    """
    relation = "<=" if nonpositive else ">="
    return _fewest_errors_with_bound(
        enc,
        int(feature),
        lower=-np.inf if nonpositive else 0.0,
        upper=0.0 if nonpositive else np.inf,
        budget=budget,
        hint=hint,
        name=f"sign_test[{int(feature)} {relation} 0, budget {budget:g}]",
    )
