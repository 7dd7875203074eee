import numpy as np
import pytest
import sklearn
from brute_force import Truth, random_tiny
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_validate

from sklearn_multiplicity import (
    MultiplicityAuditor,
    ambiguity_scorer,
    discrepancy_scorer,
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
