import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._estimators._sampling import SamplingAuditor

EPSILONS = [0.0, 0.05, 0.1, 0.2]


def small_data(seed, n=40, d=4):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 2, size=(n, d)).astype(float)
    score = X @ rng.normal(size=d) + rng.normal(0, 0.8, n)
    return X, (score > np.median(score)).astype(int)


@pytest.fixture(scope="module", params=[0, 1])
def audited(request):
    X, y = small_data(request.param)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10).fit(X, y)
    sampling = SamplingAuditor.from_auditor(auditor, X, y, n_models=40, random_state=0)
    return X, y, auditor, sampling


def test_sampling_is_a_lower_estimate_of_the_exact_measures(audited):
    _, _, auditor, sampling = audited
    assert sampling.baseline_errors_ == auditor.baseline_errors_
    for eps in EPSILONS:
        assert sampling.ambiguity(eps) <= auditor.ambiguity_bounds(eps)[1] + 1e-12
        assert sampling.discrepancy(eps) <= auditor.discrepancy_bounds(eps)[1] + 1e-12


def test_contested_rows_are_certified_contestable(audited):
    _, _, auditor, sampling = audited
    for eps in EPSILONS:
        sampled = sampling.contestable(eps)
        exact = auditor.evidence(eps)
        assert not np.any(sampled & ~(exact["contestable"] | exact["undecided"]))


def test_measures_are_monotone_in_epsilon(audited):
    _, _, _, sampling = audited
    grid = np.linspace(0, 0.5, 11)
    ambiguity = [sampling.ambiguity(eps) for eps in grid]
    discrepancy = [sampling.discrepancy(eps) for eps in grid]
    in_set = [sampling.in_level_set(eps).sum() for eps in grid]
    for values in (ambiguity, discrepancy, in_set):
        assert np.all(np.diff(values) >= 0)
    assert all(d <= a for a, d in zip(ambiguity, discrepancy, strict=True))


@pytest.mark.parametrize("n_models", [1, 7, 20])
def test_pool_has_n_models(n_models):
    X, y = small_data(3)
    sampling = SamplingAuditor(n_models=n_models, random_state=0).fit(X, y)
    assert sampling.n_models_ == len(sampling.models_) == n_models
    assert sampling.flips_.shape == (n_models, X.shape[0])
    assert sampling.model_errors_.shape == (n_models,)
    l1 = sum(m.get_params()["l1_ratio"] == 1.0 for m in sampling.models_)
    assert l1 == n_models // 2


def test_path_columns_and_grid():
    X, y = small_data(4)
    sampling = SamplingAuditor(n_models=10, random_state=0).fit(X, y)
    path = sampling.path(0.1)
    assert list(path.columns) == [
        "epsilon",
        "ambiguity",
        "discrepancy",
        "n_models_in_set",
    ]
    np.testing.assert_allclose(path["epsilon"], np.arange(5) / 40)
    assert path["ambiguity"].is_monotonic_increasing
    assert path["ambiguity"].iloc[-1] == sampling.ambiguity(0.1)


def test_path_of_repeated_rows_steps_as_the_rows():
    # Weights of 1000 each: the sampled path has the rows' steps, not 1000
    # times as many.
    X, y = small_data(4)
    once = SamplingAuditor(n_models=10, random_state=0).fit(X, y).path(0.1)
    weight = np.full(X.shape[0], 1000.0)
    many = SamplingAuditor(n_models=10, random_state=0).fit(X, y, weight)
    np.testing.assert_allclose(many.path(0.1)["epsilon"], once["epsilon"])


def test_default_baseline_is_logistic_regression_and_deterministic():
    X, y = small_data(5)
    a = SamplingAuditor(n_models=10, random_state=0).fit(X, y)
    b = SamplingAuditor(n_models=10, random_state=0).fit(X, y)
    assert isinstance(a.estimator_, LogisticRegression)
    np.testing.assert_array_equal(a.flips_, b.flips_)
    np.testing.assert_array_equal(a.model_errors_, b.model_errors_)


def test_weighted_budget_counts_weights():
    X, y = small_data(6)
    weight = np.full(X.shape[0], 2.0)
    unit = SamplingAuditor(n_models=10, random_state=0).fit(X, y)
    double = SamplingAuditor(n_models=10, random_state=0).fit(X, y, weight)
    assert double.baseline_errors_ == 2 * unit.baseline_errors_
    assert double.baseline_error_ == pytest.approx(unit.baseline_error_)


@pytest.mark.parametrize("n_models", [0, -3, 2.5, True])
def test_bad_n_models_raises(n_models):
    X, y = small_data(7)
    with pytest.raises(ValueError, match="n_models"):
        SamplingAuditor(n_models=n_models).fit(X, y)


def test_bad_epsilon_raises():
    X, y = small_data(8)
    sampling = SamplingAuditor(n_models=4).fit(X, y)
    with pytest.raises(ValueError, match="eps"):
        sampling.ambiguity(1.5)


def test_the_estimate_can_be_rebased_on_the_best_pooled_model():
    from sklearn.frozen import FrozenEstimator

    from sklearn_multiplicity import ZeroOneLinearClassifier

    # Figure 1 of the paper (XOR, 25 people per point): the 0-1 optimal
    # baseline makes 25 errors, every logistic regression at least 50.
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0).astype(float)
    y = np.repeat([0, 1, 1, 0], 25)
    baseline = FrozenEstimator(ZeroOneLinearClassifier(time_limit=10).fit(X, y))
    around_baseline = SamplingAuditor(baseline, n_models=10, random_state=0)
    around_baseline.fit(X, y)
    assert around_baseline.model_errors_.min() > around_baseline.baseline_errors_
    assert not around_baseline.in_level_set(0.1).any()
    assert around_baseline.ambiguity(0.1) == 0.0
    assert "lower estimate" in around_baseline.comparison()
    rebased = SamplingAuditor(baseline, n_models=10, random_state=0, reference="best")
    rebased.fit(X, y)
    assert rebased.reference_errors_ == rebased.model_errors_.min()
    assert rebased.in_level_set(0.0).any()  # the best pooled model itself
    best = np.argmin(rebased.model_errors_)
    assert not rebased.flips_[best].any()  # flips are against its predictions
    assert 0.0 <= rebased.discrepancy(0.1) <= rebased.ambiguity(0.1) <= 1.0
    assert "most accurate" in rebased.comparison()


def test_unknown_reference_is_refused():
    X, y = small_data(9)
    with pytest.raises(ValueError, match="reference"):
        SamplingAuditor(n_models=4, reference="worst").fit(X, y)


def test_time_limit_cuts_the_pool_short_but_keeps_one_model_of_each_kind():
    X, y = small_data(3)
    full = SamplingAuditor(n_models=20, random_state=0).fit(X, y)
    none = SamplingAuditor(n_models=20, random_state=0, time_limit=0).fit(X, y)
    assert none.n_models_ == len(none.models_) == 1
    assert none.flips_.shape == (1, X.shape[0])
    # The models fitted are the same models as without a limit.
    first = none.models_[0]
    same = [m for m in full.models_ if m.get_params() == first.get_params()]
    np.testing.assert_array_equal(same[0].coef_, first.coef_)
    unlimited = SamplingAuditor(n_models=20, random_state=0, time_limit=1e6).fit(X, y)
    np.testing.assert_array_equal(unlimited.model_errors_, full.model_errors_)


def test_pool_order_spreads_over_penalties_and_strengths():
    from sklearn_multiplicity._estimators._sampling import _coarse_to_fine

    order = _coarse_to_fine(10)
    assert sorted(order) == list(range(10))
    assert order[:3] == [0, 8, 4]


@pytest.mark.parametrize("time_limit", [-1, "soon"])
def test_bad_time_limit_raises(time_limit):
    X, y = small_data(3)
    with pytest.raises(ValueError, match="time_limit"):
        SamplingAuditor(n_models=4, time_limit=time_limit).fit(X, y)


PER_CLASS = [(0.0, 0.0), (0.05, 0.0), (0.0, 0.1), (0.1, 0.2)]


@pytest.mark.parametrize("reference", ["baseline", "best"])
def test_per_class_level_set_counts_each_kind_of_error(reference):
    X, y = small_data(3, n=60)
    sampling = SamplingAuditor(n_models=30, random_state=0, reference=reference)
    sampling.fit(X, y)
    truth = y.astype(bool)
    predictions = np.array([m.predict(X) == 1 for m in sampling.models_])
    reference_prediction = predictions[0] ^ sampling.flips_[0]
    fp0 = np.sum(reference_prediction & ~truth)
    fn0 = np.sum(~reference_prediction & truth)
    fp = np.sum(predictions & ~truth, axis=1)
    fn = np.sum(~predictions & truth, axis=1)
    n_neg, n_pos = np.sum(~truth), np.sum(truth)
    for eps_neg, eps_pos in PER_CLASS:
        expected = (fp <= fp0 + np.floor(eps_neg * n_neg)) & (
            fn <= fn0 + np.floor(eps_pos * n_pos)
        )
        eps = {0: eps_neg, 1: eps_pos}
        np.testing.assert_array_equal(sampling.in_level_set(eps), expected)
        flips = sampling.flips_[expected]
        assert sampling.ambiguity(eps) == pytest.approx(
            flips.any(axis=0).mean() if expected.any() else 0.0
        )
        assert sampling.discrepancy(eps) == pytest.approx(
            flips.sum(axis=1).max() / len(y) if expected.any() else 0.0
        )


def test_per_class_sampling_is_a_lower_estimate_of_the_exact_measures(audited):
    _, _, auditor, sampling = audited
    for eps_neg, eps_pos in PER_CLASS:
        eps = {0: eps_neg, 1: eps_pos}
        assert sampling.ambiguity(eps) <= auditor.ambiguity_bounds(eps)[1] + 1e-12
        assert sampling.discrepancy(eps) <= auditor.discrepancy_bounds(eps)[1] + 1e-12


def test_per_class_path_takes_equal_steps_like_the_auditor():
    X, y = small_data(4)
    sampling = SamplingAuditor(n_models=10, random_state=0).fit(X, y)
    path = sampling.path({0: 0.1, 1: 0.25}, step=0.05)
    assert path["epsilon"].tolist() == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2, 0.25])
    assert path["epsilon_0"].tolist() == pytest.approx([0, 0.05, 0.1, 0.1, 0.1, 0.1])
    assert path["epsilon_1"].tolist() == pytest.approx(path["epsilon"].tolist())
    for row in path.itertuples():
        eps = {0: row.epsilon_0, 1: row.epsilon_1}
        assert row.ambiguity == sampling.ambiguity(eps)
        assert row.n_models_in_set == sampling.in_level_set(eps).sum()


@pytest.mark.parametrize(
    "eps, message",
    [
        ({0: 0.1}, "no tolerance for class 1"),
        ({0: 0.1, 1: 0.1, 2: 0.1}, "not class labels"),
        ({0: -0.1, 1: 0.1}, r"eps\[0\]"),
    ],
)
def test_bad_per_class_tolerances_raise(eps, message):
    X, y = small_data(8)
    sampling = SamplingAuditor(n_models=4).fit(X, y)
    with pytest.raises(ValueError, match=message):
        sampling.in_level_set(eps)
