"""Valid inequalities from affine identities between patterns.

If four patterns satisfy ``x_a + x_b = x_c + x_d`` then every linear score
satisfies ``s_a + s_b = s_c + s_d``: ``a`` and ``b`` cannot both be positive
while ``c`` and ``d`` are both negative, and vice versa. With ``z_u = 1`` for a
positive prediction, ``-1 <= z_a + z_b - z_c - z_d <= 1`` holds for every
linear classifier (with a margin or not). The same holds with ``a == b``
(``x_a`` is the midpoint of ``c`` and ``d``): ``-1 <= 2 z_a - z_c - z_d <= 1``.

Binary and categorical data have many such identities; adding them all makes
the LP relaxation of the 0-1 loss MIP far tighter.
"""

import numpy as np


def affine_identities(patterns, *, max_identities=200_000):
    """Quadruples ``(a, b, c, d)`` with ``x_a + x_b == x_c + x_d`` exactly.

    Only integer-valued patterns are searched: their pair sums are exact in
    floating point, so an identity found is an identity of the real data.

    Returns
    -------
    ndarray of shape (n_identities, 4), dtype int
        Pairs ``{a, b}`` and ``{c, d}`` are disjoint and each identity appears
        once. Empty when there are none or the data are not integer-valued.
    """
    patterns = np.asarray(patterns, dtype=float)
    k = patterns.shape[0]
    empty = np.zeros((0, 4), dtype=np.int64)
    if k < 3 or np.any(patterns != np.round(patterns)):
        return empty
    a, b = np.triu_indices(k)
    sums = patterns[a] + patterns[b]
    # Group equal pair sums: sort the rows and find runs.
    _, group, counts = np.unique(sums, axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    order = np.argsort(group, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    quads = []
    total = 0
    for g in np.flatnonzero(counts > 1):
        members = order[starts[g] : starts[g] + counts[g]]
        i, j = np.triu_indices(members.size, k=1)
        left, right = members[i], members[j]
        quad = np.column_stack([a[left], b[left], a[right], b[right]])
        quads.append(quad)
        total += quad.shape[0]
        if total >= max_identities:
            break
    if not quads:
        return empty
    quads = np.concatenate(quads)[:max_identities]
    # Distinct patterns: equal pair sums with a shared member force the other
    # members equal, so every pair of pairs here is disjoint.
    return quads.astype(np.int64)


def identity_rows(quads, z_offset, n_vars):
    """Sparse rows ``-1 <= z_a + z_b - z_c - z_d <= 1`` for ``quads``.

    Returns
    -------
    rows, cols, vals : ndarrays for a COO matrix with ``len(quads)`` rows.
    """
    n = quads.shape[0]
    rows = np.repeat(np.arange(n), 4)
    cols = (quads + z_offset).ravel()
    vals = np.tile([1.0, 1.0, -1.0, -1.0], n)
    return rows, cols, vals
