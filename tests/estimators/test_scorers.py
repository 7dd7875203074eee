import warnings

import numpy as np
import pytest
import sklearn
from brute_force import Truth, random_tiny
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    ProbabilisticAuditor,
    ambiguity_scorer,
    discrepancy_scorer,
    neg_ambiguity_scorer,
    neg_discrepancy_scorer,
    probabilistic_ambiguity_scorer,
    vpr_width_scorer,
)


def data():
    X, y = random_tiny(31, n=24, d=2, levels=4, noise=0.25)
    return X, y


def test_scorers_report_held_out_multiplicity():
    X, y = data()
    train, test = np.arange(16), np.arange(16, 24)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10).fit(
        X[train], y[train]
    )
    eps = 0.125
    amb = ambiguity_scorer(eps)(auditor, X[test], y[test])
    assert amb == pytest.approx(np.mean(auditor.ambiguous(X[test], eps)))
    disc = discrepancy_scorer(eps)(auditor, X[test], y[test])
    model = auditor.discrepancy_model(eps)
    assert disc == pytest.approx(
        np.mean(model.predict(X[test]) != auditor.predict(X[test]))
    )
    # A held-out person identical to a training person shares its verdict.
    same = X[train][:3]
    np.testing.assert_array_equal(
        auditor.ambiguous(same, eps), auditor.conflicts(eps)[:3]
    )
    truth = Truth(X[train], y[train])
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    assert auditor.ambiguity(eps) == pytest.approx(
        truth.ambiguity(z0, auditor.baseline_errors_, eps)
    )


def test_cross_validate_with_scorers():
    X, y = data()
    result = cross_validate(
        MultiplicityAuditor(LogisticRegression(), time_limit=10),
        X,
        y,
        cv=KFold(3),
        scoring={
            "accuracy": "accuracy",
            "ambiguity": ambiguity_scorer(0.1),
            "discrepancy": discrepancy_scorer(0.1),
        },
    )
    for key in ("test_accuracy", "test_ambiguity", "test_discrepancy"):
        assert result[key].shape == (3,)
        assert np.all((result[key] >= 0) & (result[key] <= 1))


class RecordingAuditor(MultiplicityAuditor):
    """Records the groups each fit received."""

    seen = []

    def fit(self, X, y, sample_weight=None, groups=None):
        RecordingAuditor.seen.append(None if groups is None else np.asarray(groups))
        return super().fit(X, y, sample_weight=sample_weight, groups=groups)


@pytest.mark.parametrize("routing", [False, True])
def test_groups_route_through_cross_validate(routing):
    X, y = data()
    groups = np.array(["a", "b", "c"] * 8)
    RecordingAuditor.seen = []
    with sklearn.config_context(enable_metadata_routing=routing):
        auditor = RecordingAuditor(LogisticRegression(), time_limit=10)
        if routing:
            auditor.set_fit_request(groups=True, sample_weight=False)
        cross_validate(
            auditor, X, y, cv=KFold(2), params={"groups": groups}, scoring="accuracy"
        )
    assert len(RecordingAuditor.seen) == 2
    for fold, seen in enumerate(RecordingAuditor.seen):
        train = np.setdiff1d(np.arange(24), np.arange(12 * fold, 12 * fold + 12))
        np.testing.assert_array_equal(seen, groups[train])


def test_scorer_needs_an_auditor():
    X, y = data()
    with pytest.raises(TypeError, match="MultiplicityAuditor"):
        ambiguity_scorer(0.1)(LogisticRegression().fit(X, y), X, y)


def cancer_data():
    """150 people of breast cancer, first 6 features cut at their medians:
    few distinct people, so every fold's audit is certified within a second."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::3, :6][:150], y[::3][:150]
    return (X > np.median(X, axis=0)).astype(float), y


def test_scorers_read_the_auditor_ending_a_pipeline():
    X, y = cancer_data()
    eps = 0.02
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=10, total_time_limit=10
    )
    result = cross_validate(
        make_pipeline(StandardScaler(), auditor),
        X,
        y,
        cv=2,
        scoring={"a": ambiguity_scorer(eps), "d": discrepancy_scorer(eps)},
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    assert np.all(np.isfinite(result["test_a"]))
    assert np.all(np.isfinite(result["test_d"]))
    for k, pipeline in enumerate(result["estimator"]):
        fitted = pipeline[-1]
        Z = pipeline[:-1].transform(X[result["indices"]["test"][k]])
        assert result["test_a"][k] == pytest.approx(np.mean(fitted.ambiguous(Z, eps)))
        model = fitted.discrepancy_model(eps)
        flips = 0.0 if model is None else np.mean(model.predict(Z) != fitted.predict(Z))
        assert result["test_d"][k] == pytest.approx(flips)
    # Nested pipelines: X passes through every step before the auditor.
    train, test = result["indices"]["train"][0], result["indices"]["test"][0]
    nested = make_pipeline(MinMaxScaler(), make_pipeline(StandardScaler(), auditor))
    nested.fit(X[train], y[train])
    fitted = nested[-1][-1]
    Z = nested[-1][:-1].transform(nested[:-1].transform(X[test]))
    assert ambiguity_scorer(eps)(nested, X[test], y[test]) == pytest.approx(
        np.mean(fitted.ambiguous(Z, eps))
    )


def test_probabilistic_scorers_read_the_auditor_ending_a_pipeline():
    X, y = cancer_data()
    pipeline = make_pipeline(
        StandardScaler(), ProbabilisticAuditor(log_loss_epsilon=0.02)
    )
    result = cross_validate(
        pipeline,
        X,
        y,
        cv=2,
        scoring={"w": vpr_width_scorer(), "a": probabilistic_ambiguity_scorer()},
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    for k, fitted in enumerate(result["estimator"]):
        Z = fitted[:-1].transform(X[result["indices"]["test"][k]])
        ranges = fitted[-1].viable_prediction_range(Z)
        assert result["test_w"][k] == pytest.approx(ranges["width"].mean())
        t = fitted[-1].threshold
        flips = np.where(
            ranges["baseline"] > t, ranges["lower"] <= t, ranges["upper"] > t
        )
        assert result["test_a"][k] == pytest.approx(np.mean(flips))


def test_scorers_name_a_pipeline_without_an_auditor():
    X, y = data()
    pipeline = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    with pytest.raises(TypeError, match="a Pipeline ending in LogisticRegression"):
        discrepancy_scorer(0.1)(pipeline, X, y)
    with pytest.raises(TypeError, match="ProbabilisticAuditor"):
        vpr_width_scorer()(pipeline, X, y)


def test_grid_search_with_the_selection_scorer_picks_the_least_ambiguous_setting():
    X, y = cancer_data()
    eps = 0.01
    pipe = Pipeline(
        [
            (
                "audit",
                MultiplicityAuditor(
                    LogisticRegression(), time_limit=5, total_time_limit=10
                ),
            )
        ]
    )
    grid = {"audit__estimator__C": [0.001, 0.1, 10]}
    search = GridSearchCV(
        pipe,
        grid,
        cv=2,
        scoring={"report": ambiguity_scorer(eps), "select": neg_ambiguity_scorer(eps)},
        refit="select",
        error_score="raise",
    )
    with warnings.catch_warnings():
        # Every held-out person decided: both bounds are the held-out value.
        warnings.simplefilter("error", CertificationWarning)
        search.fit(X, y)
    results = search.cv_results_
    # The per-setting means of the reporting scorer, from its fold scores.
    folds = np.column_stack([results[f"split{k}_test_report"] for k in range(2)])
    means = folds.mean(axis=1)
    assert means.max() > means.min()  # the settings differ
    least = grid["audit__estimator__C"][int(np.argmin(means))]
    assert search.best_params_ == {"audit__estimator__C": least}
    np.testing.assert_allclose(results["mean_test_select"], -means)
    # Selecting with the reporting scorer would pick the most ambiguous one.
    most = results["params"][int(np.argmin(results["rank_test_report"]))]
    assert most["audit__estimator__C"] == grid["audit__estimator__C"][np.argmax(means)]
    assert most != search.best_params_


def test_selection_scorers_count_undecided_held_out_people_as_contestable():
    X, y = cancer_data()
    eps = 0.05
    # A millisecond per MIP leaves held-out people undecided.
    auditor = MultiplicityAuditor(
        LogisticRegression(C=10), time_limit=1e-3, total_time_limit=1e-3
    ).fit(X[:75], y[:75])
    held_out = X[75:]
    with pytest.warns(CertificationWarning, match="held-out people .* undecided"):
        lower = ambiguity_scorer(eps)(auditor, held_out, y[75:])
        upper = -neg_ambiguity_scorer(eps)(auditor, held_out, y[75:])
    assert lower < upper  # undecided people separate the bounds
    # The exact held-out ambiguity, from an audit given the time to decide all.
    exact = MultiplicityAuditor(LogisticRegression(C=10), time_limit=10)
    exact.fit(X[:75], y[:75])
    with warnings.catch_warnings():
        warnings.simplefilter("error", CertificationWarning)
        value = np.mean(exact.ambiguous(held_out, eps))
    assert lower <= value <= upper
    disagreement = discrepancy_scorer(eps)(auditor, held_out, y[75:])
    assert neg_discrepancy_scorer(eps)(auditor, held_out, y[75:]) == -disagreement
    # One level-set model's held-out flips: contestable or undecided people.
    assert disagreement <= upper


def test_selection_scorers_are_the_reporting_ones_negated_when_certified():
    X, y = data()
    train, test = np.arange(16), np.arange(16, 24)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10).fit(
        X[train], y[train]
    )
    for report, select in [
        (ambiguity_scorer(0.125), neg_ambiguity_scorer(0.125)),
        (discrepancy_scorer(0.125), neg_discrepancy_scorer(0.125)),
    ]:
        value = report(auditor, X[test], y[test])
        assert select(auditor, X[test], y[test]) == pytest.approx(-value)
