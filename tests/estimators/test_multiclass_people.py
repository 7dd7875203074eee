"""K-class readings about people against enumeration: label sets and
ambiguity of new and training people, evidence, conflicts, competing models
and the scorers."""

import functools
import warnings

import numpy as np
import pytest
from brute_force_multiclass import MulticlassTruth, tiny_case
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    ambiguity_scorer,
    discrepancy_scorer,
)

EPSILONS = (0.0, 0.125, 0.25)
#: New people on and between the tiny cases' grid points, and outside it.
STEPS = np.arange(-1, 3.5, 0.5)
GRID = np.array([[a, b] for a in STEPS for b in STEPS])


@functools.cache
def audited(seed):
    """A tiny case twice over, its enumeration and an audit of a logistic
    regression on it."""
    X, y, _ = tiny_case(seed)
    X, y = np.vstack([X, X]), np.concatenate([y, y])
    truth = MulticlassTruth(X, y)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    return X, y, truth, auditor


def _labels(auditor, X):
    return np.searchsorted(auditor.classes_, auditor.predict(X))


def _pattern_baseline(auditor, X, truth):
    rows = [np.flatnonzero((X == point).all(axis=1))[0] for point in truth.points]
    return _labels(auditor, X[rows])


def _budget(truth, eps):
    return np.floor(eps * truth.total + 1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_sets_of_new_people_equal_enumeration(seed):
    X, _, truth, auditor = audited(seed)
    baseline = _pattern_baseline(auditor, X, truth)
    own = _labels(auditor, GRID)
    for eps in EPSILONS:
        budget = _budget(truth, eps)
        sets = auditor.predict_set(GRID, eps)
        ambiguous = auditor.ambiguous(GRID, eps)
        assert sets.shape == (len(GRID), 3)
        for i, x in enumerate(GRID):
            want = truth.label_set(baseline, budget, x) | {int(own[i])}
            assert set(np.flatnonzero(sets[i]).tolist()) == want, (eps, x)
            assert ambiguous[i] == (len(want) > 1)


@pytest.mark.parametrize("seed", [0, 3])
def test_training_evidence_conflicts_and_competing_models(seed):
    X, y, truth, auditor = audited(seed)
    baseline = _pattern_baseline(auditor, X, truth)
    for eps in EPSILONS:
        budget = _budget(truth, eps)
        flippable = truth.flippable(baseline, budget)[truth.inverse]
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable)
        evidence = auditor.evidence(eps)
        np.testing.assert_array_equal(evidence["baseline"], auditor.predict(X))
        assert not evidence["undecided"].any()
        ceiling = auditor.error_budget(eps)
        assert (evidence["min_flip_errors"][flippable] <= ceiling).all()
        assert evidence["min_flip_errors"][~flippable].isna().all()
        for row in range(len(X)):
            model = auditor.competing_model(row, eps)
            if not flippable[row]:
                assert model is None
                continue
            # A fitted K-class estimator of the level set changing the row.
            assert model.coef_.shape == (3, X.shape[1])
            assert model.predict(X[row : row + 1])[0] != auditor.predict(X)[row]
            assert np.sum(model.predict(X) != y) <= ceiling
        # The training people's label sets are the level set's labels.
        sets = auditor.predict_set(X, eps)
        for u in range(len(truth.points)):
            row = np.flatnonzero(truth.inverse == u)[0]
            want = set(truth.level_set(baseline, budget)[:, u].tolist()) | {baseline[u]}
            assert set(np.flatnonzero(sets[row]).tolist()) == want


def test_asking_again_solves_nothing():
    _, _, _, auditor = audited(1)
    auditor.predict_set(GRID, 0.125)
    solved = len(auditor.mip_log_)
    auditor.predict_set(GRID, 0.125)
    auditor.ambiguous(GRID, 0.125)
    assert len(auditor.mip_log_) == solved


def test_k_class_scorers_in_cross_validate():
    X, y, _, _ = audited(0)
    X, y = np.vstack([X, X + 0.25]), np.concatenate([y, y])
    scores = cross_validate(
        MultiplicityAuditor(LogisticRegression(), epsilon=0.1, time_limit=20),
        X,
        y,
        cv=2,
        scoring={"ambiguity": ambiguity_scorer(), "discrepancy": discrepancy_scorer()},
        error_score="raise",
    )
    for name in ("test_ambiguity", "test_discrepancy"):
        assert scores[name].shape == (2,)
        assert ((0 <= scores[name]) & (scores[name] <= 1)).all()


def test_a_limit_leaves_labels_in_the_set_with_a_warning():
    from faulty_backends import NoSolutionBackend

    X, y, truth, _ = audited(1)
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=NoSolutionBackend(), time_limit=1
    ).fit(X, y)
    baseline = _pattern_baseline(auditor, X, truth)
    own = _labels(auditor, GRID)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        auditor.ambiguity(0.25)
    with pytest.warns(CertificationWarning, match="label sets"):
        sets = auditor.predict_set(GRID, 0.25)
    # Unsettled labels stay in the set: it always holds the true set.
    for i, x in enumerate(GRID):
        want = truth.label_set(baseline, 4.0, x) | {int(own[i])}
        assert want <= set(np.flatnonzero(sets[i]).tolist())


@pytest.mark.parametrize("seed", [0, 1])
def test_k_class_groups_equal_enumeration(seed):
    X, y, truth, _ = audited(seed)
    groups = np.where(np.arange(len(y)) % 3 == 0, "a", "b")
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20)
    auditor.fit(X, y, groups=groups)
    baseline = _pattern_baseline(auditor, X, truth)
    for eps in EPSILONS:
        budget = _budget(truth, eps)
        S = truth.level_set(baseline, budget)
        frame = auditor.by_group(eps)
        table = frame.by_group
        for label in ("a", "b"):
            weight = np.bincount(
                truth.inverse[groups == label], minlength=len(truth.points)
            ).astype(float)
            ambiguity = weight[(S != baseline).any(axis=0)].sum() / weight.sum()
            discrepancy = ((S != baseline) @ weight).max(initial=0) / weight.sum()
            row = table.loc[label]
            assert row["ambiguity_lower"] == pytest.approx(ambiguity)
            assert row["ambiguity_upper"] == pytest.approx(ambiguity)
            assert row["discrepancy_lower"] == pytest.approx(discrepancy)
            assert row["discrepancy_upper"] == pytest.approx(discrepancy)
            assert row["n"] == weight.sum()


@pytest.mark.parametrize("seed", [0, 2])
def test_k_class_path_equals_enumeration(seed):
    X, y, truth, _ = audited(seed)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    baseline = _pattern_baseline(auditor, X, truth)
    path = auditor.path(0.25)
    # Every row twice: error counts are even, so the path steps by 2.
    np.testing.assert_array_equal(path["extra_errors"], [0.0, 2.0, 4.0])
    assert path["certified"].all()
    for _, step in path.iterrows():
        budget = step["extra_errors"]
        assert step["ambiguity"] == pytest.approx(truth.ambiguity(baseline, budget))
        assert step["discrepancy"] == pytest.approx(truth.discrepancy(baseline, budget))
    # Asked again, the path reads what it certified.
    solved = len(auditor.mip_log_)
    auditor.path(0.25)
    auditor.ambiguity_bounds(0.125)
    assert len(auditor.mip_log_) == solved


def test_k_class_path_under_a_limit_gives_honest_monotone_bands():
    from faulty_backends import NoSolutionBackend

    X, y, truth, _ = audited(1)
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=NoSolutionBackend(), time_limit=1
    ).fit(X, y)
    baseline = _pattern_baseline(auditor, X, truth)
    path = auditor.path(0.25, n_discrepancy=2)
    for column in ("ambiguity_lower", "discrepancy_lower"):
        assert np.all(np.diff(path[column]) >= 0)
    for _, step in path.iterrows():
        budget = step["extra_errors"]
        truths = (
            truth.ambiguity(baseline, budget),
            truth.discrepancy(baseline, budget),
        )
        for name, value in zip(("ambiguity", "discrepancy"), truths, strict=True):
            assert step[f"{name}_lower"] - 1e-9 <= value <= step[f"{name}_upper"] + 1e-9


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_per_label_tolerances_equal_enumeration(seed):
    X, y, truth, auditor = audited(seed)
    baseline = _pattern_baseline(auditor, X, truth)
    label_weight = truth.counts.sum(axis=0)
    for rates in ([0.0, 0.0, 0.0], [0.2, 0.0, 0.5], [0.5, 0.5, 0.0], [1.0] * 3):
        eps = dict(zip(auditor.classes_.tolist(), rates, strict=True))
        extra = np.floor(np.array(rates) * label_weight + 1e-9)
        S = truth.level_set(baseline, extra)
        ambiguity = truth.weight[(S != baseline).any(axis=0)].sum() / truth.total
        discrepancy = ((S != baseline) @ truth.weight).max(initial=0) / truth.total
        assert auditor.ambiguity_bounds(eps) == pytest.approx((ambiguity,) * 2)
        assert auditor.discrepancy_bounds(eps) == pytest.approx((discrepancy,) * 2)
        ceilings = auditor.error_budget(eps)
        assert list(ceilings) == auditor.classes_.tolist()
        np.testing.assert_allclose(
            list(ceilings.values()), truth.label_errors(baseline) + extra
        )
        sets = auditor.predict_set(GRID[::4], eps)
        own = _labels(auditor, GRID[::4])
        for i, x in enumerate(GRID[::4]):
            want = truth.label_set(baseline, extra, x) | {int(own[i])}
            assert set(np.flatnonzero(sets[i]).tolist()) == want, (rates, x)


def test_per_label_tolerances_need_every_known_label():
    _, _, _, auditor = audited(0)
    with pytest.raises(ValueError, match="not class labels"):
        auditor.ambiguity({0: 0.1, 1: 0.1, 7: 0.1})
    with pytest.raises(ValueError, match="no tolerance for class"):
        auditor.ambiguity({0: 0.1, 1: 0.1})


@pytest.mark.parametrize("seed", [0, 1])
def test_per_label_path_equals_enumeration(seed):
    X, y, truth, _ = audited(seed)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    baseline = _pattern_baseline(auditor, X, truth)
    label_weight = truth.counts.sum(axis=0)
    path = auditor.path({0: 0.25, 1: 0.5, 2: 0.0}, step=0.25)
    np.testing.assert_allclose(path["epsilon"], [0.0, 0.25, 0.5])
    np.testing.assert_allclose(path["epsilon_1"], [0.0, 0.25, 0.5])
    np.testing.assert_allclose(path["epsilon_0"], [0.0, 0.25, 0.25])
    assert path["certified"].all()
    for _, step in path.iterrows():
        rates = np.array([step["epsilon_0"], step["epsilon_1"], step["epsilon_2"]])
        extra = np.floor(rates * label_weight + 1e-9)
        np.testing.assert_allclose(
            [step["budget_0"], step["budget_1"], step["budget_2"]],
            truth.label_errors(baseline) + extra,
        )
        S = truth.level_set(baseline, extra)
        ambiguity = truth.weight[(S != baseline).any(axis=0)].sum() / truth.total
        discrepancy = ((S != baseline) @ truth.weight).max(initial=0) / truth.total
        assert step["ambiguity"] == pytest.approx(ambiguity)
        assert step["discrepancy"] == pytest.approx(discrepancy)


def test_k_label_minimum_error_is_solved_once():
    # The default baseline's fit leaves the minimum error open (no solver
    # finds anything): reading it later solves nothing more, as for two
    # labels, so fit plus readings keep to their limit.
    from brute_force_multiclass import random_tiny_multiclass
    from faulty_backends import NoSolutionBackend

    X, y = random_tiny_multiclass(0)[:2]
    auditor = MultiplicityAuditor(solver=NoSolutionBackend(), time_limit=1).fit(X, y)
    solved = len(auditor.mip_log_)
    lower, upper = auditor.min_error_bounds_
    assert lower < upper
    assert auditor.min_error_bounds_ == (lower, upper)
    assert len(auditor.mip_log_) == solved
