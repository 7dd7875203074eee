"""Valid inequalities from affine identities between patterns.

If four patterns satisfy ``x_a + x_b = x_c + x_d`` then every linear score
satisfies ``s_a + s_b = s_c + s_d``: ``a`` and ``b`` cannot both be positive
while ``c`` and ``d`` are both negative, and vice versa. With ``z_u = 1`` for a
positive prediction, ``-1 <= z_a + z_b - z_c - z_d <= 1`` holds for every
linear classifier (with a margin or not). The same holds with ``a == b``
(``x_a`` is the midpoint of ``c`` and ``d``): ``-1 <= 2 z_a - z_c - z_d <= 1``.

Binary and categorical data have many such identities; adding them all makes
the LP relaxation of the 0-1 loss MIP far tighter.

With ``K`` labels every score difference ``s_l - s_m`` is linear too, so the
same identity holds for it: ``a`` and ``b`` cannot both win by ``l`` over
``m`` while ``c`` and ``d`` both win by ``m``. With ``z[u, l] = 1`` when ``u``
gets label ``l``, ``z[a, l] + z[b, l] + z[c, m] + z[d, m] <= 3`` for every
ordered pair ``l != m`` (:func:`label_identity_rows`). For two labels these
are the two rows above.
"""

import numpy as np

#: Pairs of patterns searched at most: a few int64 arrays of this length
#: (about 200 MB in all), whatever the number of patterns.
MAX_PAIRS = 4_000_000


def affine_identities(patterns, *, weights=None, max_identities=200_000):
    """Quadruples ``(a, b, c, d)`` with ``x_a + x_b == x_c + x_d`` exactly.

    Only integer-valued patterns are searched: their pair sums are exact in
    floating point, so an identity found is an identity of the real data.
    The search sorts all pairs of patterns, so with more than about 2,800
    patterns (:data:`MAX_PAIRS` pairs) it is restricted to the heaviest
    patterns: every identity returned is still exact, some are left out.

    Parameters
    ----------
    patterns : array-like of shape (n_patterns, n_features)
    weights : array-like of shape (n_patterns,), default=None
        Weight of each pattern; the heaviest are searched first when not all
        pairs can be. ``None`` keeps the first patterns.
    max_identities : int, default=200_000

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
    searched = _searched_patterns(k, weights)
    a, b = np.triu_indices(searched.size)
    a, b = searched[a], searched[b]
    runs = _equal_pair_sums(patterns.astype(np.int64), a, b)
    quads = _pairs_within_runs(runs, max_identities)
    # Distinct patterns: equal pair sums with a shared member force the other
    # members equal, so every pair of pairs here is disjoint.
    return np.column_stack(
        [a[quads[:, 0]], b[quads[:, 0]], a[quads[:, 1]], b[quads[:, 1]]]
    )


def _searched_patterns(k, weights):
    """Indices of the patterns whose pairs fit in :data:`MAX_PAIRS`, sorted."""
    # Largest m with m (m + 1) / 2 <= MAX_PAIRS.
    m = min(k, int((np.sqrt(8 * MAX_PAIRS + 1) - 1) // 2))
    if m == k:
        return np.arange(k)
    if weights is None:
        return np.arange(m)
    heaviest = np.argsort(-np.asarray(weights, float), kind="stable")[:m]
    return np.sort(heaviest)


def _pairs_within_runs(runs, max_identities):
    """Every two members of each run, run after run, at most ``max_identities``.

    Returns
    -------
    ndarray of shape (n, 2), dtype int
        Indices (into the pairs) of the two members, first < second in run
        order.
    """
    sizes = np.array([run.size for run in runs], dtype=np.int64)
    counts = sizes * (sizes - 1) // 2
    before = np.concatenate([[0], np.cumsum(counts)])
    n_runs = int(np.searchsorted(before, max_identities, side="left"))
    n_runs = min(n_runs, len(runs))
    out = []
    # Runs of one size at once: one index matrix per distinct size.
    for size in np.unique(sizes[:n_runs]):
        which = np.flatnonzero(sizes[:n_runs] == size)
        members = np.stack([runs[r] for r in which])
        i, j = np.triu_indices(int(size), k=1)
        pairs = np.stack([members[:, i], members[:, j]], axis=-1)
        out.append((np.repeat(which, i.size), pairs.reshape(-1, 2)))
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    run_of = np.concatenate([r for r, _ in out])
    pairs = np.concatenate([p for _, p in out])
    order = np.argsort(run_of, kind="stable")
    return pairs[order][:max_identities]


def _equal_pair_sums(patterns, a, b, coefficients=None):
    """Runs of pairs ``(a, b)`` with equal sums, in the order of their hash.

    Pair sums are compared through a random linear hash of the patterns
    (``hash(x_a + x_b) = hash(x_a) + hash(x_b)``, exact in wrapping integer
    arithmetic), so no ``n_pairs x n_features`` array is sorted; every run of
    equal hashes is then checked on the sums themselves (in chunks, with no
    loop over runs). Within a run, pairs keep their index order.
    ``coefficients`` (int64, one per feature) fixes the hash.
    """
    if coefficients is None:
        rng = np.random.default_rng(0)
        coefficients = rng.integers(1, 2**62, size=patterns.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        key = patterns @ coefficients
        pair_key = key[a] + key[b]
    order = np.argsort(pair_key, kind="stable")
    sorted_key = pair_key[order]
    del pair_key
    cuts = np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1
    del sorted_key
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [order.size]])
    several = ends - starts > 1
    starts, ends = starts[several], ends[several]
    collided = _collided_runs(patterns, a, b, order, starts, ends)
    runs = []
    for r, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        members = order[start:end]
        if not collided[r]:
            runs.append(members)
            continue
        # A hash collision: split the run by the sums themselves.
        run_sums = patterns[a[members]] + patterns[b[members]]
        _, inverse = np.unique(run_sums, axis=0, return_inverse=True)
        for g in range(inverse.max() + 1):
            subset = members[inverse.ravel() == g]
            if subset.size > 1:
                runs.append(subset)
    return runs


def _collided_runs(patterns, a, b, order, starts, ends, chunk=65_536):
    """Whether each run (``order[start:end]``) holds pairs of different sums."""
    collided = np.zeros(starts.size, dtype=bool)
    if starts.size == 0:
        return collided
    lengths = ends - starts
    run_of = np.repeat(np.arange(starts.size), lengths)
    offset = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    position = np.arange(run_of.size) + offset
    for c in range(0, position.size, chunk):
        pos, run = position[c : c + chunk], run_of[c : c + chunk]
        first = order[starts[run]]
        members = order[pos]
        differ = np.any(
            patterns[a[members]] + patterns[b[members]]
            != patterns[a[first]] + patterns[b[first]],
            axis=1,
        )
        collided[run[differ]] = True
    return collided


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


def label_identity_rows(quads, z_index, n_classes):
    """Sparse rows ``z[a, l] + z[b, l] + z[c, m] + z[d, m] <= 3`` for ``quads``
    and every ordered pair of labels ``l != m``.

    Parameters
    ----------
    quads : ndarray of shape (n_identities, 4)
        Identities ``x_a + x_b == x_c + x_d`` (:func:`affine_identities`).
    z_index : callable
        ``z_index(patterns, label)``: the columns of ``z[patterns, label]``.
    n_classes : int

    Returns
    -------
    rows, cols, vals : ndarrays for a COO matrix with
    ``len(quads) * n_classes * (n_classes - 1)`` rows (a coincident ``a == b``
    adds up to a coefficient of 2).
    """
    n = quads.shape[0]
    pairs = [(l, m) for l in range(n_classes) for m in range(n_classes) if l != m]
    rows, cols = [], []
    for i, (l, m) in enumerate(pairs):
        rows.append(np.repeat(np.arange(i * n, (i + 1) * n), 4))
        cols.append(
            np.column_stack(
                [
                    z_index(quads[:, 0], l),
                    z_index(quads[:, 1], l),
                    z_index(quads[:, 2], m),
                    z_index(quads[:, 3], m),
                ]
            ).ravel()
        )
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    cols = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    return rows, cols, np.ones(rows.size)
