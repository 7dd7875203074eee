import pickle
import re
import warnings

import numpy as np
import pytest
from brute_force import Truth, random_tiny
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    ZeroOneLinearClassifier,
)
from sklearn_multiplicity._mip._program import NO_SOLUTION, MIPResult
from sklearn_multiplicity._engine._scheduling import Deadline
from sklearn_multiplicity.backends import Backend

EPSILONS = [0.0, 0.1, 0.25]


def baseline_truth(auditor, X, y, sample_weight=None):
    """Enumerated truth plus the baseline's predictions on its points."""
    truth = Truth(X, y, sample_weight)
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    err0 = float((~z0) @ truth.pos + z0 @ truth.neg)
    return truth, z0, err0


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("baseline", ["zero-one", "logistic"])
def test_measures_match_enumeration(seed, baseline):
    X, y = random_tiny(seed, n=9, d=2 + seed % 2, levels=3)
    estimator = LogisticRegression() if baseline == "logistic" else None
    auditor = MultiplicityAuditor(estimator, time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    assert auditor.baseline_errors_ == err0
    assert auditor.min_error_bounds_ == (truth.min_error, truth.min_error)
    for eps in EPSILONS:
        assert auditor.discrepancy_bounds(eps) == pytest.approx(
            (truth.discrepancy(z0, err0, eps),) * 2
        )
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )
        flippable = truth.flippable(z0, err0, eps)[truth.inverse]
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable)


def test_weighted_measures_match_enumeration():
    X, y = random_tiny(21, n=9, d=2, levels=3)
    weight = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3], dtype=float)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20)
    auditor.fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    for eps in EPSILONS:
        assert auditor.discrepancy(eps) == pytest.approx(
            truth.discrepancy(z0, err0, eps)
        )
        assert auditor.ambiguity(eps) == pytest.approx(truth.ambiguity(z0, err0, eps))


def figure_one():
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    y = np.repeat([0, 1, 1, 0], 25)
    return X, y


def test_paper_figure_one():
    X, y = figure_one()
    auditor = MultiplicityAuditor(epsilon=0.0, time_limit=10).fit(X, y)
    assert auditor.baseline_errors_ == 25
    assert auditor.discrepancy() == 0.5
    assert auditor.ambiguity() == 1.0
    assert auditor.conflicts().all()


def test_path_matches_enumeration_and_is_monotone():
    X, y = random_tiny(4, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    path = auditor.path(0.3)
    assert list(path["extra_errors"]) == [0, 1, 2, 3]
    assert path["certified"].all()
    for row in path.itertuples():
        assert row.ambiguity == pytest.approx(truth.ambiguity(z0, err0, row.epsilon))
        assert row.discrepancy == pytest.approx(
            truth.discrepancy(z0, err0, row.epsilon)
        )
    assert path["ambiguity"].is_monotonic_increasing
    assert path["discrepancy"].is_monotonic_increasing
    assert (path["discrepancy"] <= path["ambiguity"] + 1e-12).all()
    assert auditor.path_ is path


def test_evidence_models_really_flip():
    X, y = random_tiny(8, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    eps = 0.2
    budget = auditor.baseline_errors_ + np.floor(eps * len(y))
    baseline = auditor.predict(X)
    conflicts = auditor.conflicts(eps)
    for i in range(len(y)):
        model = auditor.competing_model(i, eps)
        if not conflicts[i]:
            assert model is None
            continue
        # Re-checked with the model's own predictions, not solver output.
        predictions = model.predict(X)
        assert predictions[i] != baseline[i]
        assert np.sum(predictions != y) <= budget
    disc = auditor.discrepancy_model(eps)
    assert np.sum(disc.predict(X) != y) <= budget
    assert np.mean(disc.predict(X) != baseline) == pytest.approx(
        auditor.discrepancy(eps)
    )
    frame = auditor.evidence(eps)
    np.testing.assert_array_equal(frame["contestable"], conflicts)
    assert not frame["undecided"].any()


def test_ambiguous_new_people_matches_enumeration():
    X, y = random_tiny(12, n=8, d=2, levels=3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    eps = 0.125
    new = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 2.0], [0.5, 1.5], [3.0, 0.0]])
    got = auditor.ambiguous(new, eps)
    for x, flag in zip(new, got, strict=True):
        X_aug = np.vstack([X, x])
        y_aug = np.append(y, 0)
        weight = np.append(np.ones(len(y)), 0.0)
        truth = Truth(X_aug, y_aug, weight)
        z0 = auditor.predict(truth.points) == auditor.classes_[1]
        err0 = auditor.baseline_errors_
        level = truth.D[truth.errors <= err0 + np.floor(eps * len(y)) + 1e-9]
        j = np.flatnonzero((truth.points == x).all(axis=1))[0]
        assert flag == bool((level[:, j] != z0[j]).any())


@pytest.mark.parametrize("seed", [13, 14])
def test_ambiguous_new_people_with_identity_rows_matches_enumeration(seed):
    # Enough integer patterns for affine identities: the flip MIPs of new
    # people then go through the LP separation (and its own models).
    X, y = random_tiny(seed, n=30, d=2, levels=3, noise=0.3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    assert auditor.n_identities_ > 0
    eps = 0.1
    new = np.array([[0.5, 1.5], [1.5, 0.0]])  # off the 3 x 3 grid
    got = auditor.ambiguous(new, eps)
    # One enumeration with every new point at weight 0.
    truth = Truth(
        np.vstack([X, new]),
        np.append(y, np.zeros(len(new))),
        np.append(np.ones(len(y)), np.zeros(len(new))),
    )
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    budget = auditor.baseline_errors_ + np.floor(eps * len(y))
    level = truth.D[truth.errors <= budget + 1e-9]
    for x, flag in zip(new, got, strict=True):
        j = np.flatnonzero((truth.points == x).all(axis=1))[0]
        assert flag == bool((level[:, j] != z0[j]).any())


def test_groups_match_enumeration():
    X, y = random_tiny(5, n=10, d=2, levels=4)
    groups = np.array(["a", "b"] * 5)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y, groups=groups)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    eps = 0.2
    frame = auditor.by_group(eps)
    flippable = truth.flippable(z0, err0, eps)[truth.inverse]
    level = truth.level_set(err0, eps)
    for g in ["a", "b"]:
        rows = groups == g
        assert frame.by_group.loc[g, "ambiguity"] == pytest.approx(
            flippable[rows].mean()
        )
        disagree = level[:, truth.inverse[rows]] != z0[truth.inverse[rows]]
        assert frame.by_group.loc[g, "discrepancy"] == pytest.approx(
            disagree.sum(axis=1).max() / rows.sum()
        )
    assert frame.overall["ambiguity"] == pytest.approx(auditor.ambiguity(eps))
    diff = frame.difference()
    assert diff["ambiguity"] == pytest.approx(
        abs(frame.by_group.loc["a", "ambiguity"] - frame.by_group.loc["b", "ambiguity"])
    )


def test_expired_total_time_gives_honest_bounds():
    X, y = random_tiny(3, n=9, d=2, levels=3)
    exact = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(exact, X, y)
    hurried = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    hurried.set_params(total_time_limit=1e-9)
    for eps in EPSILONS:
        lo, hi = hurried.ambiguity_bounds(eps)
        assert lo <= truth.ambiguity(z0, err0, eps) + 1e-12 <= hi + 2e-12
        lo, hi = hurried.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12


@pytest.mark.parametrize(
    "params, remedy",
    [
        ({"weights": "integer", "max_weight": 1}, "Increase max_weight"),
        ({"margin": 0.5}, "Decrease margin"),
        ({}, None),
    ],
)
def test_warns_with_the_remedy_when_the_class_cannot_match_the_baseline(params, remedy):
    # 2 x1 + x2 >= 3 on a 3 x 3 grid: separable, but not by weights in
    # {-1, 0, 1}, nor with a margin of 0.5 on features scaled to [0, 1].
    grid = np.array([(a, b) for a in range(3) for b in range(3)], float)
    X = np.repeat(grid, 3, axis=0)
    y = (2 * X[:, 0] + X[:, 1] >= 3).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auditor = MultiplicityAuditor(LogisticRegression(C=1e4), **params).fit(X, y)
    messages = [str(w.message) for w in caught if "hypothesis class" in str(w.message)]
    assert auditor.baseline_errors_ == 0
    if remedy is None:
        assert auditor.min_error_bounds_[0] == 0 and not messages
    else:
        assert auditor.min_error_bounds_[0] > 0
        assert len(messages) == 1 and remedy in messages[0]


def test_nothing_is_learnt_once_time_is_up():
    # Found by the property tests: with time up, the threshold-shift search
    # used to run on every call and grow the pool, so ``ambiguity_bounds``
    # read 0.833 and the next ``ambiguity`` 1.0 at eps = 0.4.
    X = np.array([[1, 1, 2], [3, 2, 2], [1, 2, 0], [2, 2, 0], [2, 3, 3]], float)
    y = np.array([0, 0, 1, 1, 0])
    weight = np.array([1.0, 1.0, 1.0, 2.0, 1.0])
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10)
    auditor.fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    auditor.set_params(total_time_limit=1e-9)
    n_models, n_logged = len(auditor._engine.pool), len(auditor.mip_log_)
    for eps in [0.0, 0.1, 0.2, 0.4]:
        first = auditor.ambiguity_bounds(eps)
        assert first[0] <= truth.ambiguity(z0, err0, eps) + 1e-12 <= first[1] + 2e-12
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert auditor.ambiguity(eps) == first[0]
        warned = any(issubclass(w.category, CertificationWarning) for w in caught)
        assert warned == (first[0] < first[1])
        assert auditor.ambiguity_bounds(eps) == first
        lo, hi = auditor.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12
        assert auditor.discrepancy_bounds(eps) == (lo, hi)
    assert len(auditor._engine.pool) == n_models
    assert len(auditor.mip_log_) == n_logged


def test_bound_proven_at_a_larger_tolerance_caps_smaller_ones():
    X, y = random_tiny(3, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    large = 0.25
    top_lower, top_upper = auditor.discrepancy_bounds(large)
    assert top_lower == top_upper < 1  # certified, and a real cap
    n_mips = len(auditor.mip_log_)
    # No time for MIPs: smaller tolerances get their upper bound from `large`.
    auditor.set_params(total_time_limit=1e-9)
    for eps in [0.0, 0.05, 0.1, 0.2]:
        lo, hi = auditor.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12
        assert hi <= top_upper + 1e-12
    assert len(auditor.mip_log_) == n_mips


class NoProofBackend(Backend):
    """A solver that never finds anything: every bound must stay open."""

    name = "noproof"

    def _solve(self, mip, *, first_solution=False):
        worst = np.inf if mip.maximize else -np.inf
        return MIPResult(NO_SOLUTION, None, np.nan, worst, 0.0, self.name, "gave up")


def test_unsolved_mips_give_honest_bounds_and_warnings(monkeypatch):
    X, y = random_tiny(6, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    auditor._engine.backend = NoProofBackend()
    eps = 0.25
    lo, hi = auditor.ambiguity_bounds(eps)
    true_amb = truth.ambiguity(z0, err0, eps)
    assert lo <= true_amb <= hi
    if lo < hi:
        with pytest.warns(CertificationWarning):
            assert auditor.ambiguity(eps) == lo
    lo, hi = auditor.discrepancy_bounds(eps)
    assert lo <= truth.discrepancy(z0, err0, eps) <= hi
    assert any(entry["status"] == NO_SOLUTION for entry in auditor.mip_log_)


def test_short_time_limits_keep_bounds_ordered():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + rng.normal(size=150) > 0).astype(int)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=0.05, cuts=False)
    auditor.fit(X, y)
    lo_a, hi_a = auditor.ambiguity_bounds(0.02)
    lo_d, hi_d = auditor.discrepancy_bounds(0.02)
    assert 0 <= lo_d <= hi_d <= 1
    assert 0 <= lo_a <= hi_a <= 1
    assert lo_d <= hi_a  # discrepancy <= ambiguity


def test_meta_estimator_behaviour():
    pd = pytest.importorskip("pandas")
    X, y = random_tiny(2, n=30, d=2, levels=5, noise=0.2)
    frame = pd.DataFrame(X, columns=["a", "b"])
    auditor = MultiplicityAuditor(LogisticRegression(C=0.5), time_limit=10)
    params = auditor.get_params()
    assert params["estimator__C"] == 0.5
    assert clone(auditor).get_params()["estimator__C"] == 0.5
    auditor.fit(frame, y)
    assert list(auditor.feature_names_in_) == ["a", "b"]
    assert auditor.n_features_in_ == 2
    np.testing.assert_array_equal(
        auditor.predict(frame), auditor.estimator_.predict(frame)
    )
    np.testing.assert_allclose(
        auditor.predict_proba(frame), auditor.estimator_.predict_proba(frame)
    )
    np.testing.assert_allclose(
        auditor.decision_function(frame), auditor.estimator_.decision_function(frame)
    )
    assert auditor.score(frame, y) == pytest.approx(auditor.estimator_.score(frame, y))
    amb = auditor.ambiguity()
    again = pickle.loads(pickle.dumps(auditor))
    assert again.ambiguity() == amb
    auditor.set_params(estimator__C=2.0)
    assert auditor.estimator.C == 2.0
    # The zero-one baseline has no predict_proba: neither has the auditor.
    assert not hasattr(MultiplicityAuditor(), "predict_proba")


def test_pipeline_is_audited_in_transformed_space():
    X, y = random_tiny(9, n=12, d=2, levels=4)
    X = X * np.array([100.0, 0.01])
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    via_pipeline = MultiplicityAuditor(pipe, time_limit=20).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    direct = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(Xs, y)
    assert via_pipeline.ambiguity(0.1) == direct.ambiguity(0.1)
    assert via_pipeline.discrepancy(0.1) == direct.discrepancy(0.1)
    model = via_pipeline.discrepancy_model(0.1)
    assert model.predict(X).shape == (12,)  # takes raw X: the pipeline's transformers


def test_frozen_prefit_estimator_is_audited_as_is():
    from sklearn.frozen import FrozenEstimator

    X, y = random_tiny(10, n=12, d=2, levels=4)
    prefit = (
        LogisticRegression(C=0.01).fit(X[:6], y[:6])
        if len(set(y[:6])) == 2
        else (LogisticRegression(C=0.01).fit(X, y))
    )
    auditor = MultiplicityAuditor(FrozenEstimator(prefit), time_limit=10).fit(X, y)
    np.testing.assert_array_equal(auditor.predict(X), prefit.predict(X))
    assert auditor.estimator_.estimator is prefit
    assert 0 <= auditor.ambiguity(0.1) <= 1


def test_gridsearch_tunes_the_wrapped_estimator():
    from sklearn.model_selection import GridSearchCV

    X, y = random_tiny(13, n=30, d=2, levels=5, noise=0.2)
    search = GridSearchCV(
        MultiplicityAuditor(LogisticRegression(), time_limit=10),
        {"estimator__C": [0.01, 1.0]},
        cv=3,
    )
    search.fit(X, y)
    assert search.best_params_["estimator__C"] in (0.01, 1.0)
    assert 0 <= search.best_estimator_.ambiguity() <= 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"epsilon": -0.1}, "epsilon"),
        ({"epsilon": 1.5}, "epsilon"),
        ({"solver": "nope"}, "Unknown solver"),
        ({"time_limit": 0}, "time_limit"),
        ({"total_time_limit": -1}, "total_time_limit"),
    ],
)
def test_bad_parameters(kwargs, match):
    X, y = random_tiny(0)
    with pytest.raises(ValueError, match=match):
        MultiplicityAuditor(LogisticRegression(), **kwargs).fit(X, y)


def test_bad_inputs():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.exceptions import NotFittedError
    from sklearn.frozen import FrozenEstimator
    from sklearn.tree import DecisionTreeClassifier

    X, y = random_tiny(0)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=5)
    with pytest.raises(ValueError, match="groups"):
        auditor.fit(X, y, groups=np.zeros(3))
    with pytest.raises(TypeError, match="not a linear classifier"):
        MultiplicityAuditor(DecisionTreeClassifier()).fit(X, y)
    with pytest.raises(TypeError, match="linear"):
        MultiplicityAuditor(RandomForestClassifier(n_estimators=2)).fit(X, y)
    with pytest.raises(NotFittedError):
        MultiplicityAuditor(FrozenEstimator(LogisticRegression())).fit(X, y)
    with pytest.raises(TypeError, match="cannot be cloned|not an estimator"):
        MultiplicityAuditor(object()).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        MultiplicityAuditor(LogisticRegression()).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="one class"):
        MultiplicityAuditor(LogisticRegression()).fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="NaN"):
        Xn = X.copy()
        Xn[0, 0] = np.nan
        MultiplicityAuditor(LogisticRegression()).fit(Xn, y)
    with pytest.raises(ValueError, match="non-negative"):
        MultiplicityAuditor(LogisticRegression()).fit(
            X, y, sample_weight=-np.ones(len(y))
        )
    fitted = MultiplicityAuditor(LogisticRegression(), time_limit=5).fit(X, y)
    with pytest.raises(ValueError, match="eps"):
        fitted.ambiguity(eps=2)
    with pytest.raises(ValueError, match="groups"):
        fitted.by_group()
    with pytest.raises(ValueError, match="features"):
        fitted.ambiguous(np.zeros((2, 5)))
    with pytest.raises(NotFittedError):
        MultiplicityAuditor().ambiguity()


def test_default_baseline_is_zero_one_optimal():
    X, y = random_tiny(14, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=10).fit(X, y)
    assert isinstance(auditor.estimator_, ZeroOneLinearClassifier)
    assert auditor.baseline_errors_ == auditor.min_error_bounds_[0]


@pytest.mark.parametrize("strategy", ["each", "batch"])
@pytest.mark.parametrize("seed", [30, 31, 32])
def test_every_strategy_is_exact(strategy, seed):
    X, y = random_tiny(seed, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(
        LogisticRegression(), strategy=strategy, time_limit=20
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for eps in (0.0, 0.1, 0.3):
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )


def test_only_discrepancy_mips_branch_heaviest_first():
    X, y = random_tiny(30, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    engine = auditor._engine
    budget = engine.baseline_errors + 2
    weights = engine.problem.pattern_weight
    mip, _ = engine._disagreement_mip(budget, weights, None, "all")
    z_priority = mip.branching_priority[engine.enc.z_offset :]
    assert np.all(np.diff(weights[np.argsort(-z_priority)]) <= 0)
    # The batch strategy's "flip any of these" MIPs have no order to follow.
    assert engine._batch_mip(np.arange(2), budget).branching_priority is None


def test_unknown_strategy_is_refused():
    X, y = random_tiny(0)
    with pytest.raises(ValueError, match="strategy"):
        MultiplicityAuditor(LogisticRegression(), strategy="guess").fit(X, y)


def test_path_with_fewer_discrepancy_mips_brackets_the_truth():
    X, y = random_tiny(17, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    path = auditor.path(0.5, n_discrepancy=2)
    assert len(path) == 6
    assert path["ambiguity_lower"].equals(path["ambiguity_upper"])
    for row in path.itertuples():
        true = truth.discrepancy(z0, err0, row.epsilon)
        assert row.discrepancy_lower - 1e-12 <= true <= row.discrepancy_upper + 1e-12
    assert path["discrepancy_lower"].is_monotonic_increasing
    # The end points got their own MIPs.
    assert path["certified"].iloc[0] and path["certified"].iloc[-1]


def test_time_limited_path_brackets_open_tolerances_first(monkeypatch):
    from sklearn_multiplicity._engine import _discrepancy

    X, y = random_tiny(41, n=30, d=2, levels=4, noise=0.3)
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=20, total_time_limit=600
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    engine = auditor._engine
    after_bracketing = []
    bracket = engine._bracket_path

    def spy(budgets, workers, deadline, settled):
        n_open = engine.open_budgets(budgets).size
        n_logged = len(engine.log)
        bracket(budgets, workers, deadline, settled)
        envelope = engine.discrepancy_envelope(budgets)
        after_bracketing.append((envelope, n_open, engine.log[n_logged:]))

    monkeypatch.setattr(engine, "_bracket_path", spy)
    monkeypatch.setattr(_discrepancy, "BRACKET_SPACING", 3)
    path = auditor.path(0.3)
    ((envelope, n_open, bracket_mips),) = after_bracketing
    assert len(path) > 6 and n_open > 3
    # One disagreement MIP per 3 open tolerances, the largest first.
    assert 1 <= len(bracket_mips) <= np.ceil(n_open / 3)
    assert all(e["mip"].startswith("max_disagreement") for e in bracket_mips)
    assert envelope[-1].certified
    # Between the bracketing pass and the ascending pass, every tolerance is
    # already bounded around the truth.
    for bounds, row in zip(envelope, path.itertuples(), strict=True):
        true = truth.discrepancy(z0, err0, row.epsilon)
        assert bounds.lower - 1e-12 <= true <= bounds.upper + 1e-12
    # The ascending pass then certifies the rest: the path is still exact.
    assert path["certified"].all()
    for row in path.itertuples():
        assert row.discrepancy == pytest.approx(
            truth.discrepancy(z0, err0, row.epsilon)
        )


def test_path_without_time_limit_does_not_bracket(monkeypatch):
    X, y = random_tiny(4, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)

    def refuse(*args):
        raise AssertionError("bracketing pass without a total time limit")

    monkeypatch.setattr(auditor._engine, "_bracket_path", refuse)
    assert auditor.path(0.3)["certified"].all()


def test_large_problems_are_announced_and_still_bounded():
    from sklearn_multiplicity import ProblemSizeWarning
    from sklearn_multiplicity import _auditor as auditor_module

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:5] = 1 - y[:5]
    original = auditor_module.LARGE_PROBLEM_PATTERNS
    auditor_module.LARGE_PROBLEM_PATTERNS = 50  # pretend 60 patterns is large
    try:
        with pytest.warns(ProblemSizeWarning, match="distinct feature patterns"):
            auditor = MultiplicityAuditor(
                LogisticRegression(), time_limit=5, total_time_limit=0.5
            ).fit(X, y)
    finally:
        auditor_module.LARGE_PROBLEM_PATTERNS = original
    lo, hi = auditor.ambiguity_bounds(0.05)
    assert 0 <= lo <= hi <= 1


class InterruptingBackend(Backend):
    """Solves normally, but the user presses Ctrl-C at the n-th MIP."""

    name = "interrupting"

    def __init__(self, inner, after, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner
        self.after = after
        self.calls = [0]

    def _solve(self, mip, *, first_solution=False):
        self.calls[0] += 1
        if self.calls[0] > self.after:
            raise KeyboardInterrupt
        self.inner.time_limit = self.time_limit
        return self.inner._solve(mip, first_solution=first_solution)


def test_interrupted_audit_keeps_its_progress_and_resumes():
    X, y = random_tiny(23, n=30, d=3, levels=4, noise=0.3)
    reference = MultiplicityAuditor(
        LogisticRegression(), strategy="each", time_limit=20
    )
    reference.fit(X, y)
    expected = reference.ambiguity_bounds(0.1)
    n_mips = len(reference.mip_log_) - 1
    assert n_mips >= 2, "the problem must need several flip MIPs"

    auditor = MultiplicityAuditor(LogisticRegression(), strategy="each", time_limit=20)
    auditor.fit(X, y)
    real = auditor._engine.backend
    auditor._engine.backend = InterruptingBackend(real, after=1)
    with pytest.raises(KeyboardInterrupt):
        auditor.ambiguity_bounds(0.1)
    solved_before = len(auditor.mip_log_)
    assert solved_before >= 2  # min-error plus the MIP solved before Ctrl-C
    auditor._engine.backend = real
    assert auditor.ambiguity_bounds(0.1) == expected  # resumes, same answer


def test_verbose_path_shows_progress_of_both_phases(capsys):
    X, y = random_tiny(4, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20, verbose=1).fit(X, y)
    path = auditor.path(0.3)
    err = capsys.readouterr().err
    assert "ambiguity path" in err
    assert "discrepancy path" in err and "tolerance" in err
    # The bar ends full: every tolerance certified.
    done, total = re.findall(r"(\d+)/(\d+)", err.split("discrepancy path")[-1])[-1]
    assert done == total and 0 < int(total) <= len(path)


def test_mip_log_names_the_solver_of_each_mip():
    X, y = random_tiny(8, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    auditor.ambiguity_bounds(0.2)
    auditor.discrepancy_bounds(0.2)
    solvers = {}
    for entry in auditor.mip_log_:
        solvers.setdefault(entry["mip"].split("[")[0], set()).add(entry["solver"])
    # solver="auto": SCIP for disagreement MIPs, HiGHS for the others.
    assert solvers.pop("max_disagreement") == {"scip"}
    for kind, used in solvers.items():
        assert used == ({"linprog-highs"} if kind == "lp_relaxation" else {"highs"})


def test_a_request_prepared_ahead_learns_what_was_found_since():
    X, y = random_tiny(30, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    engine = auditor._engine
    budget = engine.baseline_errors + 3
    never = Deadline(None)
    here = engine._discrepancy_request(budget, None, "all", never)
    above = engine._discrepancy_request(budget + 1, None, "all", never)
    assert here.mip is not None and above.mip is not None
    known_above = above.lower
    solved = engine.discrepancy(budget)
    assert solved.bounds.certified
    found = solved.bounds.lower * engine.problem.total_weight
    assert found > known_above  # the MIP found a better model
    # Its result certifies the prepared request at the same budget ...
    assert not engine._refresh_request(here)
    # ... and its model is the hint of the one at the budget above.
    assert engine._refresh_request(above)
    assert above.lower >= found - 1e-9
    hint = engine.enc.hint_from((above.best.w, above.best.b))
    np.testing.assert_array_equal(above.mip.hint, hint)
