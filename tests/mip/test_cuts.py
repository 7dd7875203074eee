"""Affine identities between patterns, against their definition."""

import itertools

import numpy as np
import pytest

from sklearn_multiplicity._mip._cuts import _equal_pair_sums, affine_identities


def identities_by_definition(patterns):
    """Every ``{a, b}``, ``{c, d}`` with ``x_a + x_b == x_c + x_d``."""
    k = len(patterns)
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    found = set()
    for (a, b), (c, d) in itertools.combinations(pairs, 2):
        if np.array_equal(patterns[a] + patterns[b], patterns[c] + patterns[d]):
            found.add(frozenset([frozenset([a, b]), frozenset([c, d])]))
    return found


def as_set(quads):
    return {frozenset([frozenset(q[:2]), frozenset(q[2:])]) for q in quads.tolist()}


@pytest.mark.parametrize("seed", range(8))
def test_every_identity_is_found_once(seed):
    rng = np.random.default_rng(seed)
    patterns = np.unique(rng.integers(0, 3, size=(14, 3)).astype(float), axis=0)
    quads = affine_identities(patterns)
    assert len(as_set(quads)) == len(quads)  # each identity once
    assert as_set(quads) == identities_by_definition(patterns)
    for a, b, c, d in quads:
        assert len({a, b} & {c, d}) == 0
        np.testing.assert_array_equal(
            patterns[a] + patterns[b], patterns[c] + patterns[d]
        )


def test_hash_collisions_are_split_by_the_sums_themselves():
    rng = np.random.default_rng(3)
    patterns = np.unique(rng.integers(0, 4, size=(20, 3)), axis=0).astype(np.int64)
    a, b = np.triu_indices(len(patterns))
    # All-ones coefficients hash every pair to its coordinate sum: many
    # collisions between different sums, which must not be grouped.
    colliding = _equal_pair_sums(patterns, a, b, np.ones(3, dtype=np.int64))
    exact = _equal_pair_sums(patterns, a, b)
    assert sorted(run.tolist() for run in colliding) == sorted(
        run.tolist() for run in exact
    )
    for run in exact:
        sums = patterns[a[run]] + patterns[b[run]]
        assert np.all(sums == sums[0])


def test_fractional_or_tiny_data_have_no_identities():
    assert affine_identities(np.array([[0.5, 1.0], [1.0, 0.0], [0.0, 0.0]])).size == 0
    assert affine_identities(np.array([[0.0], [1.0]])).size == 0


def test_beyond_max_pairs_only_the_heaviest_patterns_are_searched(monkeypatch):
    rng = np.random.default_rng(5)
    patterns = np.unique(rng.integers(0, 3, size=(30, 3)), axis=0).astype(float)
    k = len(patterns)
    weights = rng.integers(1, 50, size=k)
    monkeypatch.setattr("sklearn_multiplicity._mip._cuts.MAX_PAIRS", 55)  # 10 patterns
    quads = affine_identities(patterns, weights=weights)
    heaviest = set(np.argsort(-weights, kind="stable")[:10].tolist())
    assert len(quads) > 0
    assert set(quads.ravel().tolist()) <= heaviest
    # Exactly the identities among those patterns, each still exact.
    kept = np.array(sorted(heaviest))
    among = {
        frozenset(frozenset(kept[list(pair)].tolist()) for pair in identity)
        for identity in identities_by_definition(patterns[kept])
    }
    assert as_set(quads) == among


def test_identity_search_memory_does_not_grow_with_all_pairs():
    import tracemalloc

    rng = np.random.default_rng(0)
    # 6,000 distinct binary patterns: all 18 million pairs would need
    # several int64 arrays of 144 MB each.
    patterns = np.unique(rng.integers(0, 2, size=(7000, 16)), axis=0)
    patterns = np.vstack([patterns, rng.integers(0, 3, size=(6000, 16))])
    patterns = np.unique(patterns, axis=0)[:6000].astype(float)
    tracemalloc.start()
    try:
        quads = affine_identities(patterns, weights=np.ones(len(patterns)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(quads) > 0
    assert peak < 300e6
