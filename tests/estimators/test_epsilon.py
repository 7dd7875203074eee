import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity._estimators._epsilon import EpsilonSuggestion, suggest_epsilon


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    "method, described", [("bootstrap", "bootstrap"), ("cv", "cross-validation")]
)
def test_returns_a_tolerance_in_unit_interval(data, method, described):
    X, y = data
    s = suggest_epsilon(LogisticRegression(), X, y, method=method, random_state=0)
    assert isinstance(s, EpsilonSuggestion)
    assert s.method == method
    assert 0.0 <= s.epsilon <= 1.0
    assert 0.0 <= s.interval[0] <= s.error <= s.interval[1] <= 1.0
    assert s.epsilon > 0
    assert described in s.description


def test_bootstrap_is_the_half_width_around_the_training_error(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    s = suggest_epsilon(FrozenEstimator(model), X, y, random_state=0)
    assert s.error == pytest.approx(np.mean(model.predict(X) != y))
    assert s.epsilon == pytest.approx((s.interval[1] - s.interval[0]) / 2)
    p, n = s.error, len(y)
    assert s.epsilon == pytest.approx(1.96 * np.sqrt(p * (1 - p) / n), rel=0.5)


def test_deterministic_with_random_state(data):
    X, y = data
    a = suggest_epsilon(LogisticRegression(), X, y, random_state=3)
    b = suggest_epsilon(LogisticRegression(), X, y, random_state=3)
    assert a == b


def test_higher_confidence_gives_larger_epsilon(data):
    X, y = data
    low = suggest_epsilon(LogisticRegression(), X, y, confidence=0.5, random_state=0)
    high = suggest_epsilon(LogisticRegression(), X, y, confidence=0.99, random_state=0)
    assert low.epsilon < high.epsilon


def test_cv_is_a_t_interval_of_fold_errors(data):
    X, y = data
    s = suggest_epsilon(LogisticRegression(), X, y, method="cv", cv=4)
    lo, hi = s.interval
    assert s.error - lo == pytest.approx(s.epsilon)
    assert hi - s.error == pytest.approx(s.epsilon)
    assert "4 cross-validation folds" in s.description


def test_sample_weight_is_used(data):
    X, y = data
    weight = np.where(y == 1, 3.0, 1.0)
    s = suggest_epsilon(
        LogisticRegression(), X, y, sample_weight=weight, random_state=0
    )
    model = LogisticRegression().fit(X, y, sample_weight=weight)
    wrong = model.predict(X) != y
    assert s.error == pytest.approx(weight @ wrong / weight.sum())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "jackknife"}, "method"),
        ({"method": None}, "method"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0}, "confidence"),
        ({"n_resamples": 1}, "n_resamples"),
    ],
)
def test_bad_parameters_raise(data, kwargs, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        suggest_epsilon(LogisticRegression(), X, y, **kwargs)
