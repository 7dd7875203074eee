"""The probabilistic auditor as a scikit-learn meta-estimator, and bad input."""

import re
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from ground_truth import precise_lr, small_problem
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._engine import Deadline, capped


@pytest.fixture(scope="module")
def data():
    return small_problem(7, n=60, d=3)


def _frozen(X, y, **params):
    return FrozenEstimator(precise_lr(**params).fit(X, y))


def test_clone_get_params_and_delegation(data):
    X, y = data
    auditor = ProbabilisticAuditor(
        LogisticRegression(C=0.5), log_loss_epsilon=0.03, tol=1e-5
    )
    copy = clone(auditor)
    assert copy.get_params()["log_loss_epsilon"] == 0.03
    assert copy.get_params()["estimator__C"] == 0.5
    with pytest.raises(NotFittedError):
        copy.viable_prediction_range()
    copy.fit(X, y)
    baseline = LogisticRegression(C=0.5).fit(X, y)
    np.testing.assert_allclose(copy.predict_proba(X), baseline.predict_proba(X))
    np.testing.assert_array_equal(copy.predict(X), baseline.predict(X))
    ranges = copy.viable_prediction_range()
    np.testing.assert_allclose(ranges["baseline"], baseline.predict_proba(X)[:, 1])
    assert copy.score(X, y) == baseline.score(X, y)


def test_pipeline_and_pandas_index_and_feature_names(data):
    X, y = data
    frame = pd.DataFrame(X * [1, 100, 0.01], columns=["a", "b", "c"])
    frame.index = [f"p{i}" for i in range(len(y))]
    model = make_pipeline(StandardScaler(), LogisticRegression())
    auditor = ProbabilisticAuditor(model, log_loss_epsilon=0.02).fit(frame, y)
    assert list(auditor.feature_names_in_) == ["a", "b", "c"]
    ranges = auditor.viable_prediction_range(frame.iloc[:5])
    assert list(ranges.index) == ["p0", "p1", "p2", "p3", "p4"]
    train = auditor.viable_prediction_range()
    np.testing.assert_allclose(ranges["upper"], train["upper"].iloc[:5], atol=2e-4)
    # Standardising inside the pipeline = auditing the standardised data.
    plain = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(
        StandardScaler().fit_transform(X), y
    )
    np.testing.assert_allclose(
        plain.viable_prediction_range()["upper"], train["upper"].to_numpy(), atol=2e-4
    )
    low, high = auditor.extreme_models(2)
    assert high.predict_proba(frame.iloc[[2]])[0, 1] == pytest.approx(
        train["upper"].iloc[2], abs=1e-4
    )


def test_grid_search_and_frozen(data):
    X, y = data
    search = GridSearchCV(
        ProbabilisticAuditor(LogisticRegression()),
        {"estimator__C": [0.1, 1.0]},
        cv=2,
    ).fit(X, y)
    assert search.best_estimator_.viable_prediction_range().shape[0] == len(y)
    frozen = _frozen(X, y)
    auditor = ProbabilisticAuditor(frozen).fit(X, y)
    assert auditor.estimator_ is frozen


def test_integer_weights_equal_repeated_rows(data):
    X, y = data
    weight = np.random.RandomState(0).randint(1, 4, size=len(y))
    weighted = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(
        X, y, sample_weight=weight
    )
    Xr, yr = np.repeat(X, weight, axis=0), np.repeat(y, weight)
    repeated = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(Xr, yr)
    a = weighted.viable_prediction_range()
    b = repeated.viable_prediction_range(X)
    np.testing.assert_allclose(a[["lower", "upper"]], b[["lower", "upper"]], atol=1e-5)
    assert weighted.ambiguity() == pytest.approx(repeated.ambiguity())


def test_zero_weight_rows_do_not_count(data):
    X, y = data
    weight = np.ones(len(y))
    weight[:10] = 0
    a = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, y, sample_weight=weight)
    b = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X[10:], y[10:])
    np.testing.assert_allclose(
        a.viable_prediction_range()[["lower", "upper"]].iloc[10:],
        b.viable_prediction_range()[["lower", "upper"]],
        atol=1e-5,
    )


def test_invariant_to_row_order_column_order_and_class_names(data):
    X, y = data
    base = ProbabilisticAuditor(_frozen(X, y), tol=1e-6).fit(X, y)
    ref = base.viable_prediction_range()
    order = np.random.RandomState(1).permutation(len(y))
    rows = ProbabilisticAuditor(_frozen(X, y), tol=1e-6).fit(X[order], y[order])
    np.testing.assert_allclose(
        rows.viable_prediction_range()[["lower", "upper"]],
        ref[["lower", "upper"]].iloc[order],
        atol=3e-6,
    )
    cols = [2, 0, 1]
    swapped = ProbabilisticAuditor(_frozen(X[:, cols], y), tol=1e-6).fit(X[:, cols], y)
    np.testing.assert_allclose(
        swapped.viable_prediction_range()[["lower", "upper"]],
        ref[["lower", "upper"]],
        atol=3e-6,
    )
    names = np.where(y == 1, "yes", "no")
    named = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, names)
    assert list(named.classes_) == ["no", "yes"]
    np.testing.assert_allclose(
        named.viable_prediction_range()[["lower", "upper"]],
        ProbabilisticAuditor(precise_lr(), tol=1e-6)
        .fit(X, y)
        .viable_prediction_range()[["lower", "upper"]],
        atol=3e-6,
    )
    # Renaming so that the other class is positive mirrors the probabilities.
    flipped = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, 1 - y)
    mirrored = flipped.viable_prediction_range()
    plain = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, y)
    direct = plain.viable_prediction_range()
    np.testing.assert_allclose(mirrored["upper"], 1 - direct["lower"], atol=3e-6)
    assert flipped.ambiguity() == pytest.approx(plain.ambiguity())


def test_objective_family_is_read_from_the_estimator(data):
    X, y = data
    auditor = ProbabilisticAuditor(precise_lr(class_weight="balanced")).fit(X, y)
    assert "C=1" in auditor.level_set_
    lo, hi = auditor.min_objective_bounds_
    assert lo <= auditor.baseline_objective_ <= hi + 1e-12
    liblinear = LogisticRegression(solver="liblinear", tol=1e-10, max_iter=10000)
    auditor = ProbabilisticAuditor(liblinear).fit(X, y)
    # liblinear's intercept is penalised: its fit is the certified minimum.
    assert auditor.baseline_objective_ - auditor.min_objective_bounds_[0] < 1e-7


def _separable():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    return X, np.array([0, 0, 1, 1])


@pytest.mark.parametrize(
    "X, y, kwargs, error, match",
    [
        ([[np.nan, 1], [1, 2], [2, 3]], [0, 1, 0], {}, ValueError, "NaN"),
        ([[np.inf, 1], [1, 2], [2, 3]], [0, 1, 0], {}, ValueError, "infinity"),
        ([[0, 1], [1, 2], [2, 3]], [1, 1, 1], {}, ValueError, "one class"),
        ([[0, 1], [1, 2], [2, 3]], [0, 1, 2], {}, ValueError, "binary"),
        ([[0, 1], [1, 2], [2, 3]], [0, 1], {}, ValueError, "inconsistent"),
        (
            [[0, 1], [1, 2], [2, 3]],
            [0, 1, 0],
            {"sample_weight": [1, -1, 1]},
            ValueError,
            "non-negative",
        ),
        (
            [[0, 1], [1, 2], [2, 3]],
            [0, 1, 0],
            {"sample_weight": [1, 1]},
            ValueError,
            "sample_weight",
        ),
    ],
)
def test_bad_data(X, y, kwargs, error, match):
    with pytest.raises(error, match=match):
        ProbabilisticAuditor().fit(np.asarray(X, dtype=float), y, **kwargs)


@pytest.mark.parametrize(
    "estimator, match",
    [
        (LinearSVC(), "not supported"),
        (LogisticRegression(l1_ratio=1.0, solver="saga"), "L2 penalty or none"),
        (make_pipeline(StandardScaler(), LinearSVC()), "not supported"),
    ],
)
def test_unsupported_estimators(data, estimator, match):
    X, y = data
    with pytest.raises(TypeError, match=match):
        ProbabilisticAuditor(estimator).fit(X, y)


def test_separable_data_without_penalty_is_refused():
    X, y = _separable()
    with pytest.raises(ValueError, match="separable"):
        ProbabilisticAuditor(LogisticRegression(C=np.inf)).fit(X, y)


def test_bad_requests(data):
    X, y = data
    auditor = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y)
    for eps in (-0.1, np.nan, "0.1", True):
        with pytest.raises(ValueError, match="eps"):
            auditor.viable_prediction_range(eps=eps)
    with pytest.raises(ValueError, match="threshold"):
        auditor.ambiguity(threshold=1.0)
    with pytest.raises(ValueError, match="delta"):
        auditor.delta_ambiguity(delta=2)
    with pytest.raises(IndexError):
        auditor.extreme_models(len(y))
    with pytest.raises(ValueError, match="features"):
        auditor.viable_prediction_range(X[:, :2])
    with pytest.raises(ValueError):
        ProbabilisticAuditor(log_loss_epsilon=-1).fit(X, y)
    with pytest.raises(ValueError):
        ProbabilisticAuditor(refine="some").fit(X, y)


def test_invariant_to_translating_the_features(data):
    # With an unpenalised intercept, shifting X moves only b: same level set
    # of scores, though the shifted problem is far worse conditioned.
    X, y = data
    plain = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, y)
    shifted = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X + 100, y)
    a = plain.viable_prediction_range()
    b = shifted.viable_prediction_range()
    assert b["certified"].all()
    np.testing.assert_allclose(a[["lower", "upper"]], b[["lower", "upper"]], atol=1e-5)


def test_a_time_limit_leaves_certified_brackets_and_more_time_settles_them():
    X, y = small_problem(3, n=300, d=6)
    exact = ProbabilisticAuditor(log_loss_epsilon=0.05, total_time_limit=None).fit(X, y)
    full = exact.viable_prediction_range()
    assert full["certified"].all()
    limited = ProbabilisticAuditor(log_loss_epsilon=0.05, total_time_limit=1e-9).fit(
        X, y
    )
    quick = limited.viable_prediction_range()
    assert not quick["certified"].all()  # the closed forms leave ends open
    tol = 1e-4
    assert np.all(quick["lower_bound"] <= full["lower"] + tol)
    assert np.all(full["lower"] <= quick["lower"] + tol)
    assert np.all(quick["upper"] <= full["upper"] + tol)
    assert np.all(full["upper"] <= quick["upper_bound"] + tol)
    low, high = limited.ambiguity_bounds()
    assert low <= exact.ambiguity() <= high
    # The same request with more time solves the ends again.
    limited.set_params(total_time_limit=None)
    np.testing.assert_allclose(
        limited.viable_prediction_range()["upper"], full["upper"], atol=tol
    )
    assert limited.viable_prediction_range()["certified"].all()


def test_a_capped_block_bounds_each_request_and_leaves_the_cache_open():
    # ``capped`` (the CLI's bound on a whole command) ends every request's
    # deadline, unlimited ones included; a request outside it has more time
    # and solves the ends again.
    X, y = small_problem(3, n=300, d=6)
    auditor = ProbabilisticAuditor(log_loss_epsilon=0.05, total_time_limit=None).fit(
        X, y
    )
    with capped(Deadline(0.0)):
        assert not auditor.viable_prediction_range()["certified"].all()
    assert auditor.viable_prediction_range()["certified"].all()


RENAMED = re.escape(
    "`time_limit` was renamed `total_time_limit` in 0.2 and will be removed in 0.4"
)


def test_the_deprecated_time_limit_warns_and_still_limits_time():
    X, y = small_problem(3, n=300, d=6)
    # The old name wins over the new one while it is set.
    limited = ProbabilisticAuditor(
        log_loss_epsilon=0.05, total_time_limit=None, time_limit=1e-9
    ).fit(X, y)
    with pytest.warns(FutureWarning, match=RENAMED):
        quick = limited.viable_prediction_range()
    assert not quick["certified"].all()  # stopped at the closed forms
    with pytest.warns(FutureWarning, match=RENAMED):
        low, high = limited.ambiguity_bounds()
    assert low <= high
    limited.set_params(time_limit=None)  # unlimited, still by the old name
    with pytest.warns(FutureWarning, match=RENAMED):
        assert limited.viable_prediction_range()["certified"].all()
    with pytest.raises(ValueError, match="time_limit"):
        ProbabilisticAuditor(time_limit=-1.0).fit(X, y)


def test_total_time_limit_is_the_time_of_one_tolerance_over_its_calls(monkeypatch):
    # Every call is charged ten seconds (a fake clock): the first call at a
    # tolerance spends its account, the next call at it gets no time (the
    # closed forms), and another tolerance has its own account.
    from types import SimpleNamespace

    from sklearn_multiplicity._probabilistic import _auditor

    ticks = iter(range(0, 10_000, 10))
    monkeypatch.setattr(_auditor, "time", SimpleNamespace(perf_counter=ticks.__next__))
    X, y = small_problem(3, n=300, d=6)
    auditor = ProbabilisticAuditor(log_loss_epsilon=0.05, total_time_limit=5.0)
    auditor.fit(X, y)
    assert auditor.viable_prediction_range(X[:20])["certified"].all()
    assert not auditor.viable_prediction_range(X[20:40])["certified"].all()
    assert auditor.viable_prediction_range(X[20:40], eps=0.04)["certified"].all()


EPSILON_RENAMED = re.escape(
    "`epsilon` was renamed `log_loss_epsilon` in 0.3 and will be removed in 0.5"
)


def test_the_deprecated_epsilon_warns_and_still_sets_the_tolerance(data):
    X, y = data
    # The old name wins over the new one while it is set.
    old = ProbabilisticAuditor(log_loss_epsilon=0.2, epsilon=0.02)
    with pytest.warns(FutureWarning, match=EPSILON_RENAMED):
        old.fit(X, y)
    new = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y)
    assert old.objective_level() == new.objective_level()
    pd.testing.assert_frame_equal(
        old.viable_prediction_range(), new.viable_prediction_range()
    )
    assert clone(old).get_params()["epsilon"] == 0.02
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        assert ProbabilisticAuditor().get_params()["epsilon"] == "deprecated"
        ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        ProbabilisticAuditor(epsilon=-1.0).fit(X, y)


def test_total_time_limit_round_trips_without_a_warning(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        auditor = ProbabilisticAuditor(total_time_limit=7.0)
        params = clone(auditor).get_params()
        assert params["total_time_limit"] == 7.0
        assert params["time_limit"] == "deprecated"
        assert ProbabilisticAuditor().get_params()["total_time_limit"] == 300
        fitted = clone(auditor).fit(X, y)
        fitted.viable_prediction_range()
        fitted.discrepancy_bounds()
        assert clone(fitted).get_params() == params
    # The old name, once set, survives a clone.
    old = clone(ProbabilisticAuditor(time_limit=5.0))
    assert old.get_params()["time_limit"] == 5.0


def test_random_state_and_verbose_are_parameters(data):
    X, y = data
    auditor = ProbabilisticAuditor(random_state=3, verbose=1)
    params = clone(auditor).get_params()
    assert params["random_state"] == 3 and params["verbose"] == 1
    assert ProbabilisticAuditor().get_params()["random_state"] is None
    assert ProbabilisticAuditor().get_params()["verbose"] == 0
    with pytest.raises(ValueError, match="random_state"):
        ProbabilisticAuditor(random_state="seed").fit(X, y)
    with pytest.raises(ValueError, match="verbose"):
        ProbabilisticAuditor(verbose=-1).fit(X, y)


def _chosen_people(monkeypatch, random_state, X, y):
    """The people whose range-attaining models the discrepancy tries, with a
    sample of 5 of the ambiguous people."""
    from sklearn_multiplicity._probabilistic import _auditor
    from sklearn_multiplicity._probabilistic._level_set import LevelSet

    monkeypatch.setattr(_auditor, "MAX_FLIP_MODELS", 5)
    seen = []
    attaining = LevelSet.attaining

    def spy(self, ranges, index, *args):
        seen.append(int(index))
        return attaining(self, ranges, index, *args)

    monkeypatch.setattr(LevelSet, "attaining", spy)
    auditor = ProbabilisticAuditor(log_loss_epsilon=0.05, random_state=random_state)
    auditor.fit(X, y).discrepancy_bounds()
    monkeypatch.undo()
    return auditor, sorted(seen)


def test_random_state_seeds_the_sample_of_ambiguous_people(monkeypatch):
    X, y = small_problem(3, n=300, d=6)
    auditor, chosen = _chosen_people(monkeypatch, 0, X, y)
    r = auditor.viable_prediction_range()
    # Ambiguous: the attained range crosses the threshold (0.5).
    people = np.flatnonzero(np.where(r.baseline > 0.5, r.lower <= 0.5, r.upper > 0.5))
    assert people.size > 5
    expected = {
        seed: sorted(np.random.RandomState(seed).choice(people, 5, replace=False))
        for seed in (0, 1)
    }
    assert expected[0] != expected[1]
    assert chosen == expected[0]
    assert _chosen_people(monkeypatch, 1, X, y)[1] == expected[1]
    same = _chosen_people(monkeypatch, np.random.RandomState(0), X, y)[1]
    assert same == expected[0]


def test_verbose_prints_a_line_per_stage_of_the_ranges(data, capsys):
    X, y = data
    ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y).viable_prediction_range()
    assert capsys.readouterr().err == ""
    auditor = ProbabilisticAuditor(log_loss_epsilon=0.02, verbose=1).fit(X, y)
    auditor.viable_prediction_range()
    shown = capsys.readouterr()
    assert shown.out == ""  # progress goes to stderr
    lines = [
        line for line in shown.err.splitlines() if line.startswith("[Probabilistic")
    ]
    assert lines[0].startswith("[ProbabilisticAuditor] eps=0.02 nats: ")
    assert f"closed-form bounds of {len(y)} people" in lines[0]
    assert any("boundary walk settled" in line for line in lines[1:])
    auditor.viable_prediction_range()  # cached: nothing computed, nothing said
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("index", [None, [f"id{i}" for i in range(60)]])
def test_training_tables_keep_the_index_of_the_fitted_frame(data, index):
    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    if index is not None:
        frame.index = pd.Index(index, name="person")
    from_frame = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(frame, y)
    expected = frame.index if index is not None else pd.RangeIndex(len(y))
    pd.testing.assert_index_equal(from_frame.viable_prediction_range().index, expected)
    pd.testing.assert_index_equal(from_frame.rashomon_capacity().index, expected)
    from_array = ProbabilisticAuditor(log_loss_epsilon=0.02).fit(X, y)
    ranges = from_array.viable_prediction_range()
    pd.testing.assert_index_equal(ranges.index, pd.RangeIndex(len(y)))
    np.testing.assert_allclose(
        ranges[["lower", "upper"]],
        from_frame.viable_prediction_range()[["lower", "upper"]],
        rtol=1e-12,
    )


def test_text_columns_are_named_unless_a_pipeline_encodes_them(data):
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["region"] = np.where(X[:, 0] > 0, "north", "south")
    frame["code"] = np.where(X[:, 1] > 0, "1.5", "2")  # numbers as text convert
    with pytest.raises(ValueError, match="text column.*'region'"):
        ProbabilisticAuditor().fit(frame, y)
    scaled = make_pipeline(StandardScaler(), LogisticRegression())
    with pytest.raises(ValueError, match="text column.*'region'"):
        ProbabilisticAuditor(scaled).fit(frame, y)
    encoded = make_pipeline(
        make_column_transformer(
            (OneHotEncoder(), ["region"]), remainder=StandardScaler()
        ),
        LogisticRegression(),
    )
    auditor = ProbabilisticAuditor(encoded, log_loss_epsilon=0.02).fit(frame, y)
    assert auditor.viable_prediction_range().shape[0] == len(y)


def test_verbose_counts_the_ends_settled_while_a_stage_runs(monkeypatch, capsys):
    from sklearn_multiplicity._probabilistic import _walk
    from sklearn_multiplicity._reporting import _progress

    monkeypatch.setattr(_progress, "TICK_SECONDS", 0.05)
    # One end per batch, each batch slowed down: the bar must move between
    # the stage's start and its end.
    monkeypatch.setattr(_walk, "BLOCK_FLOATS", 1)
    walk = _walk.BoundaryWalk._walk

    def slow_walk(self, *args, **kwargs):
        time.sleep(0.02)
        return walk(self, *args, **kwargs)

    monkeypatch.setattr(_walk.BoundaryWalk, "_walk", slow_walk)
    X, y = small_problem(3, n=40, d=3)
    auditor = ProbabilisticAuditor(
        log_loss_epsilon=0.02, refine="all", verbose=1, n_jobs=1
    )
    auditor.fit(X, y).viable_prediction_range()
    bars = capsys.readouterr().err.replace("\r", "\n").splitlines()
    counts = {
        int(line.split("|")[2].split("/")[0])
        for line in bars
        if line.startswith("boundary walk")
    }
    asked = {
        int(line.split("|")[2].split("/")[1].split()[0])
        for line in bars
        if line.startswith("boundary walk")
    }
    assert len(asked) == 1 and 0 < asked.pop()
    assert len(counts) >= 3  # read at the start, along the way and at the end


@pytest.mark.parametrize("labels", [2, 3])
def test_collinear_or_constant_columns_without_a_penalty_are_named(labels):
    rng = np.random.default_rng(0)
    x = rng.normal(size=120)
    y = np.digitize(x + rng.normal(size=120), np.linspace(-0.5, 0.5, labels - 1))
    X = pd.DataFrame(
        {"age": x, "low": (x <= 0) * 1.0, "high": (x > 0) * 1.0, "one": 1.0}
    )
    unpenalised = LogisticRegression(C=np.inf, max_iter=2000)
    with pytest.raises(ValueError, match="constant: 'one'.*intercept: 'high'"):
        ProbabilisticAuditor(unpenalised).fit(X, y)
    with pytest.raises(ValueError, match="linear combination.*'column 0'"):
        ProbabilisticAuditor(unpenalised).fit(np.c_[x, x], y)
    # A penalty bounds every direction: the same columns audit.
    ProbabilisticAuditor(LogisticRegression(C=1.0)).fit(X, y)
