"""The auditor as a scikit-learn meta-estimator: clone, pickle, pipelines,
frozen models, grid search, and clear errors on bad parameters and input."""

import pickle

import numpy as np
import pytest
from brute_force import random_tiny
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import MultiplicityAuditor


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
        MultiplicityAuditor(LogisticRegression()).fit(X, np.linspace(0, 1, len(y)))
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


def test_unknown_strategy_is_refused():
    X, y = random_tiny(0)
    with pytest.raises(ValueError, match="strategy"):
        MultiplicityAuditor(LogisticRegression(), strategy="guess").fit(X, y)


@pytest.mark.parametrize("labels", ["ids", "shuffled", "default"])
def test_evidence_keeps_the_index_of_the_fitted_frame(labels):
    pd = pytest.importorskip("pandas")
    X, y = random_tiny(2, n=30, d=2, levels=5, noise=0.2)
    frame = pd.DataFrame(X, columns=["a", "b"])
    if labels == "ids":
        frame.index = pd.Index([f"person-{i}" for i in range(30)], name="id")
    elif labels == "shuffled":  # e.g. the rows of a train_test_split
        frame.index = np.random.RandomState(0).permutation(100)[:30]
    auditor = MultiplicityAuditor(LogisticRegression(), epsilon=0.1, time_limit=10)
    evidence = clone(auditor).fit(frame, y).evidence()
    pd.testing.assert_index_equal(evidence.index, frame.index)
    from_array = clone(auditor).fit(X, y).evidence()
    pd.testing.assert_index_equal(from_array.index, pd.RangeIndex(30))
    pd.testing.assert_frame_equal(
        evidence.reset_index(drop=True), from_array.reset_index(drop=True)
    )
    assert evidence["contestable"].any()  # something to label


def test_text_columns_are_named_unless_a_pipeline_encodes_them():
    pd = pytest.importorskip("pandas")
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    X, y = random_tiny(3, n=30, d=2, levels=4)
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame["region"] = np.where(X[:, 0] > 1, "north", "south")
    frame["city"] = pd.Categorical(np.where(X[:, 1] > 1, "x", "y"))
    names = "text column.*'region', 'city'"
    with pytest.raises(ValueError, match=names):
        MultiplicityAuditor(time_limit=5).fit(frame, y)
    with pytest.raises(ValueError, match=names):
        MultiplicityAuditor(LogisticRegression()).fit(frame, y)
    with pytest.raises(ValueError, match="text column.*'region', 'city'"):
        MultiplicityAuditor(make_pipeline(StandardScaler(), LogisticRegression())).fit(
            frame, y
        )
    encoder = make_column_transformer(
        (OneHotEncoder(), ["region", "city"]), remainder="passthrough"
    )
    pipe = make_pipeline(encoder, LogisticRegression())
    auditor = MultiplicityAuditor(pipe, epsilon=0.1, time_limit=10).fit(frame, y)
    # Audited in the encoded space: 2 + 2 indicators and the 2 numbers.
    assert auditor.n_features_in_ == 4
    assert auditor.estimator_[-1].coef_.shape == (1, 6)
    assert 0 <= auditor.ambiguity() <= 1
    assert auditor.predict_set(frame).shape == (30, 2)
