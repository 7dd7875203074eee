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
    groups = _equal_pair_sums(patterns.astype(np.int64), a, b)
    quads = []
    total = 0
    for members in groups:
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


def _equal_pair_sums(patterns, a, b, coefficients=None):
    """Runs of pairs ``(a, b)`` with equal sums, in lexicographic order of the sum.

    Pair sums are compared through a random linear hash of the patterns
    (``hash(x_a + x_b) = hash(x_a) + hash(x_b)``, exact in wrapping integer
    arithmetic), so no ``n_pairs x n_features`` array is sorted; every run of
    equal hashes is then checked on the sums themselves. Within a run, pairs
    keep their index order. ``coefficients`` (int64, one per feature) fixes
    the hash.
    """
    if coefficients is None:
        rng = np.random.default_rng(0)
        coefficients = rng.integers(1, 2**62, size=patterns.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        key = patterns @ coefficients
        pair_key = key[a] + key[b]
    order = np.argsort(pair_key, kind="stable")
    cuts = np.flatnonzero(np.diff(pair_key[order])) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [order.size]])
    runs, sums = [], []
    several = ends - starts > 1
    for start, end in zip(starts[several], ends[several], strict=True):
        members = order[start:end]
        run_sums = patterns[a[members]] + patterns[b[members]]
        if np.all(run_sums == run_sums[0]):
            runs.append(members)
            sums.append(run_sums[0])
            continue
        # A hash collision: split the run by the sums themselves.
        distinct, inverse = np.unique(run_sums, axis=0, return_inverse=True)
        for g in range(distinct.shape[0]):
            subset = members[inverse.ravel() == g]
            if subset.size > 1:
                runs.append(subset)
                sums.append(distinct[g])
    if not runs:
        return []
    sums = np.array(sums)
    by_sum = np.lexsort(sums.T[::-1])
    return [runs[g] for g in by_sum]


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
