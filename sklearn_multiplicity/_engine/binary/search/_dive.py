"""LP dives: models from a MIP's LP relaxation by fixing its labels one by one.

An LP dive solves the relaxation, fixes the label ``z`` of one pattern whose
``z`` is fractional to its nearest integer, and solves again, until every
``z`` (and every binary variable of the constraints) is integral. Such a
relaxation is a model of the class (the big-M rows then make ``z`` its
dichotomy), within the MIP's error budget and meeting its constraints,
because they are rows of the MIP. Fixing the heaviest open pattern first
keeps the dive where the objective is; fixing the labels closest to integral
first instead runs into infeasible LPs sooner (``benchmarks/README.rst``).

When both values of a label make the LP infeasible, the dive switches the
deepest earlier fixing whose other value it has not tried (depth first),
within :data:`MAX_STEPS` LPs.

A fixed label is a restriction, not a valid inequality, so the LPs of a dive
bound nothing; only the verified models it yields count.
"""

import numpy as np

from ...._mip import _formulations
from ._heuristics import lp_models

#: A ``z`` farther than this from 0 and 1 is fractional.
FRACTIONAL = 1e-6
#: Most LPs of one dive; each fixes one more label or switches one.
MAX_STEPS = 100


def dive(separator, mip, relaxation, budget, *, priority, deadline):
    """Verified models within ``budget`` met by an LP dive on ``mip``.

    Parameters
    ----------
    separator : IdentitySeparator
        Solves the LPs, starting from the identity rows of ``relaxation``.
    mip : MIP
        A MIP on the separator's encoding with every identity row (the
        dive fixes labels on copies).
    relaxation : Relaxation
        The LP relaxation of ``mip`` the dive starts from.
    budget : float
        Error budget of the models kept (overall weighted errors).
    priority : ndarray of shape (n_train,)
        The open pattern of largest priority is fixed first.
    deadline : Deadline
        Bounds each LP and the dive.

    Returns
    -------
    list of CanonicalModel
        Every verified model within ``budget`` that the LPs gave, from
        ``relaxation`` on (its own models even with no time to dive); the
        last is the dive's end when it reached an integral ``z``.
    """
    enc = separator.enc
    columns, order = _dived_columns(enc, mip, priority)
    # Depth-first: each entry is [column, value, whether its other value
    # was tried]; an infeasible LP switches the deepest fixing not yet
    # switched, dropping those below it.
    stack = []
    x, rows = relaxation.x, relaxation.rows
    found = [] if x is None else lp_models(enc, x, budget)
    for _ in range(MAX_STEPS):
        if deadline.expired():
            break
        if x is not None:
            v = x[columns]
            fractional = np.flatnonzero((v > FRACTIONAL) & (v < 1 - FRACTIONAL))
            if fractional.size == 0:
                break
            pick = fractional[np.argmax(order[fractional])]
            stack.append([columns[pick], float(v[pick] > 0.5), False])
        else:
            while stack and stack[-1][2]:
                stack.pop()
            if not stack:
                break  # every branch of the dive is infeasible
            stack[-1][1], stack[-1][2] = 1.0 - stack[-1][1], True
        fixed = _formulations.fix_columns(
            mip, [c for c, _, _ in stack], [v for _, v, _ in stack]
        )
        step = separator.relax(fixed, time_limit=deadline.limit(), rows=rows)
        x, rows = step.x, step.rows
        if x is not None:
            found.extend(lp_models(enc, x, budget))
    return found


def _dived_columns(enc, mip, priority):
    """The binary columns a dive fixes, and the order it fixes them in.

    The labels ``z`` of the training patterns by ``priority``, then the
    constraints' binary variables (the support of ``MaxNonzero``, say),
    which an integral ``z`` can leave fractional.
    """
    labels = enc.z_offset + np.arange(enc.n_train)
    after_z = enc.z_offset + enc.X.shape[0]
    aux = after_z + np.flatnonzero(mip.is_integer[after_z:])
    below = np.min(priority, initial=0.0) - 1.0
    order = np.concatenate([np.asarray(priority, float), np.full(aux.size, below)])
    return np.concatenate([labels, aux]), order
