"""People outside the training data: one rule, and answers that depend on the
person alone (never on who else is in the call)."""

import os
import warnings

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny, separable
from faulty_backends import NoSolutionBackend
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from sklearn_multiplicity import CertificationWarning, MultiplicityAuditor

#: Random batches of the invariance test; ``PROPERTY_EXAMPLES=40`` asks 200.
N_BATCHES = 5 * int(os.environ.get("PROPERTY_EXAMPLES", "4"))

SQUARE = np.array([[0, 0], [1, 0], [0, 1], [1, 1]] * 2, dtype=float)
SQUARE_Y = np.array([0, 1, 0, 1] * 2)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def square_auditor(cuts=True):
    auditor = MultiplicityAuditor(epsilon=0.0, time_limit=20, cuts=cuts)
    return auditor.fit(SQUARE, SQUARE_Y)


def test_a_person_keeps_both_labels_beside_a_neighbour():
    # At eps = 0 every model separates x1 = 0 from x1 = 1 with 0 errors. In
    # the scaled space (here the data's own), w = (1, 0), b = -margin keeps
    # every training score at least the margin from 0 and scores (t, 0.5)
    # t - margin: the first person below is positive for it, although the
    # baseline says negative. Asking about the second person beside it must
    # not change that.
    auditor = square_auditor()
    margin = auditor.margin
    first, second = [3 * margin, 0.5], [1.5 * margin, 0.5]
    alone = auditor.predict_set([first])
    together = square_auditor().predict_set([first, second])
    np.testing.assert_array_equal(alone, [[True, True]])
    np.testing.assert_array_equal(together, [[True, True], [True, True]])


@pytest.mark.parametrize("cuts", [True, False])
@pytest.mark.filterwarnings("error::sklearn_multiplicity.CertificationWarning")
def test_the_rule_is_score_above_zero_whatever_answers(cuts):
    # Largest score of (t, 0.5) over the level set: t - margin (hand-worked
    # above). Contestable iff some model scores the person at or above 0
    # (t = margin: a tie), by a known model or by a MIP alike (without the
    # identity rows, MIPs answer without an LP first).
    margin = MultiplicityAuditor().margin
    ts = np.array([0.2, 0.5, 0.9, 0.999, 1.0, 1.001, 1.5, 3.0]) * margin
    expected = ts >= margin
    points = np.column_stack([ts, np.full(ts.size, 0.5)])
    each_fresh = [bool(square_auditor(cuts).ambiguous(p[None])[0]) for p in points]
    # The same people after a far one has pooled a model flipping them.
    warmed = square_auditor(cuts)
    assert warmed.ambiguous([[0.3, 0.5]])[0]
    after_pool = warmed.ambiguous(points)
    np.testing.assert_array_equal(each_fresh, expected)
    np.testing.assert_array_equal(after_pool, expected)


def _problem(rng):
    """A tiny table (integer grid, binary or continuous columns), a baseline
    estimator, a tolerance, and new people near the training data."""
    kind = rng.choice(["grid", "binary", "continuous"])
    n = int(rng.integers(6, 11))
    if kind == "grid":
        X, y = random_tiny(int(rng.integers(1_000_000)), n=n, d=2, levels=4)
    else:
        X = rng.normal(size=(n, 2))
        if kind == "binary":
            X = (X > 0).astype(float)
            X[:, 1] += rng.integers(0, 2, size=n)  # three levels in column 1
        y = (X @ rng.normal(size=2) + rng.normal(scale=0.7, size=n) > 0).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
    low, high = X.min(axis=0), X.max(axis=0)
    base = rng.uniform(low - 0.2, high + 0.2, size=(3, 2))
    near = base[rng.integers(0, 3, size=2)] + rng.normal(scale=1e-3, size=(2, 2))
    seen = X[rng.integers(0, n, size=1)]
    people = np.vstack([base, near, seen])
    estimator = rng.choice(["zero-one", "logistic"])
    eps = float(rng.choice([0.0, 0.1, 0.2]))
    return X, y, estimator, eps, people[rng.permutation(len(people))]


def _fit(X, y, estimator, eps):
    base = None if estimator == "zero-one" else LogisticRegression()
    auditor = MultiplicityAuditor(base, epsilon=eps, time_limit=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return auditor.fit(X, y)


def _edge(X, y, estimator, eps, people):
    """Two people either side of the edge of the region the level set can
    flip (bisection on a segment from a stable person to a contestable one):
    where the answer is most delicate."""
    auditor = _fit(X, y, estimator, eps)
    contestable = auditor.ambiguous(people)
    if contestable.all() or not contestable.any():
        return people[:0]
    stable, flipped = people[~contestable][0], people[contestable][0]
    for _ in range(16):
        middle = (stable + flipped) / 2
        if auditor.ambiguous(middle[None])[0]:
            flipped = middle
        else:
            stable = middle
    return np.vstack([stable, flipped])


def test_a_persons_answer_depends_on_that_person_alone():
    rng = np.random.default_rng(20261205)
    differences = []
    for batch in range(N_BATCHES):
        X, y, estimator, eps, people = _problem(rng)
        people = np.vstack([people, _edge(X, y, estimator, eps, people)])
        people = people[rng.permutation(len(people))]
        with warnings.catch_warnings():
            warnings.simplefilter("error", CertificationWarning)
            together = _fit(X, y, estimator, eps).predict_set(people)
            alone_auditor = _fit(X, y, estimator, eps)
            order = rng.permutation(len(people))
            alone = np.empty_like(together)
            for i in order:
                alone[i] = alone_auditor.predict_set(people[[i]])[0]
            subset = np.sort(rng.choice(len(people), size=4, replace=False))
            shuffled = subset[rng.permutation(subset.size)]
            partial = _fit(X, y, estimator, eps).predict_set(people[shuffled])
        if not np.array_equal(together, alone):
            differences.append((batch, "alone"))
        if not np.array_equal(together[shuffled], partial):
            differences.append((batch, "subset"))
    assert differences == []


@pytest.mark.parametrize("seed", [3, 4])
def test_new_people_in_a_batch_match_enumeration(seed):
    # Ground truth: a person is contestable iff a labelling of the level set
    # on the training points extends to the person with the other label.
    X, y = random_tiny(seed, n=8, d=2, levels=3)
    auditor = _fit(X, y, "logistic", 0.25)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    level = truth.level_set(err0, 0.25)
    rng = np.random.default_rng(seed)
    people = np.vstack([rng.uniform(-0.5, 2.5, size=(6, 2)), truth.points[:2]])
    sets = auditor.predict_set(people)
    baseline = auditor.predict(people) == auditor.classes_[1]
    for person, got, label in zip(people, sets, baseline, strict=True):
        seen = np.flatnonzero((truth.points == person).all(axis=1))
        if seen.size:  # a training point: its own label in the level set
            expected = bool((level[:, seen[0]] != label).any())
        else:
            points = np.vstack([truth.points, person])
            expected = any(separable(points, np.append(z, not label)) for z in level)
        assert got.all() == expected, person


def test_people_a_limit_leaves_open_get_both_labels_and_a_warning():
    # A backend that finds and proves nothing: people that no known model
    # flips and no LP proves stable stay open, with both labels (never a
    # singleton that is not certified) and a warning.
    X, y = random_tiny(3, n=8, d=2, levels=3)
    auditor = _fit(X, y, "logistic", 0.25)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    level = truth.level_set(err0, 0.25)
    # Without the identity rows no LP screens the people: MIPs must answer.
    fresh = MultiplicityAuditor(
        LogisticRegression(), epsilon=0.25, time_limit=20, cuts=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fresh.fit(X, y)
    fresh.session_.backend = NoSolutionBackend()
    people = np.random.default_rng(0).uniform(-0.5, 2.5, size=(12, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = fresh.predict_set(people)
        contestable = fresh.ambiguous(people)
    exact = auditor.predict_set(people)
    open_people = sets.all(axis=1) & ~contestable
    assert open_people.any()
    assert any(issubclass(w.category, CertificationWarning) for w in caught)
    # What is certified agrees with the exact answers and the enumeration.
    np.testing.assert_array_equal(sets[~open_people], exact[~open_people])
    assert exact[contestable].all()
    baseline = auditor.predict(people) == auditor.classes_[1]
    for person, pinned, label in zip(people, ~sets.all(axis=1), baseline, strict=True):
        if pinned:
            points = np.vstack([truth.points, person])
            assert not any(separable(points, np.append(z, not label)) for z in level)
