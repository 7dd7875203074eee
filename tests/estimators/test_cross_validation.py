import numpy as np
import pytest
from brute_force import random_tiny
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from sklearn_multiplicity import MultiplicityAuditor, cross_validate_multiplicity

TOLERANCE = 1e-6

COLUMNS = [
    "train_ambiguity_lower",
    "train_ambiguity_upper",
    "train_ambiguity_certified",
    "train_discrepancy_lower",
    "train_discrepancy_upper",
    "train_discrepancy_certified",
    "test_contestable",
    "test_undecided",
    "test_certified",
    "test_disagreement",
    "test_error",
    "fit_time",
    "score_time",
]


def check_consistent(table):
    """Bands ordered, flags saying what the bands say, shares in [0, 1]."""
    assert list(table.columns) == COLUMNS
    assert table.index.name == "fold"
    for measure in ("ambiguity", "discrepancy"):
        lower = table[f"train_{measure}_lower"]
        upper = table[f"train_{measure}_upper"]
        assert ((0 <= lower) & (lower <= upper) & (upper <= 1)).all()
        flag = table[f"train_{measure}_certified"]
        assert flag.dtype == bool
        np.testing.assert_array_equal(flag, upper - lower <= TOLERANCE)
    contestable, undecided = table["test_contestable"], table["test_undecided"]
    assert ((0 <= undecided) & (undecided <= 1)).all()
    assert ((0 <= contestable) & (contestable + undecided <= 1)).all()
    np.testing.assert_array_equal(table["test_certified"], undecided == 0)
    for share in ("test_disagreement", "test_error"):
        assert ((0 <= table[share]) & (table[share] <= 1)).all()


# Every number certified: a CertificationWarning would be a failure.
@pytest.mark.filterwarnings("error::sklearn_multiplicity.CertificationWarning")
def test_folds_hold_the_training_audits_and_the_held_out_people():
    X, y = random_tiny(31, n=24, d=2, levels=4, noise=0.25)
    eps = 0.125
    cv = KFold(3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10)
    table = cross_validate_multiplicity(auditor, X, y, eps=eps, cv=cv)
    check_consistent(table)
    assert len(table) == 3
    assert table.attrs["epsilon"] == eps
    assert table["train_ambiguity_certified"].all()
    assert table["test_certified"].all()
    for k, (train, test) in enumerate(cv.split(X)):
        row = table.loc[k]
        fitted = MultiplicityAuditor(LogisticRegression(), time_limit=10)
        fitted.fit(X[train], y[train])
        for measure in ("ambiguity", "discrepancy"):
            exact = getattr(fitted, measure)(eps)  # certified: no warning
            assert row[f"train_{measure}_lower"] == pytest.approx(exact)
            assert row[f"train_{measure}_upper"] == pytest.approx(exact)
        people = X[test]
        assert row["test_contestable"] == pytest.approx(
            np.mean(fitted.ambiguous(people, eps))
        )
        assert row["test_error"] == pytest.approx(
            np.mean(fitted.predict(people) != y[test])
        )
        model = fitted.discrepancy_model(eps)
        flips = np.mean(model.predict(people) != fitted.predict(people))
        assert row["test_disagreement"] == pytest.approx(flips)


def test_folds_mark_what_a_limit_left_open():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::3, :6][:150], y[::3][:150]
    X = (X > np.median(X, axis=0)).astype(float)
    # A millisecond per audit leaves bands open and held-out people undecided.
    auditor = MultiplicityAuditor(
        LogisticRegression(C=10), time_limit=1e-3, total_time_limit=1e-3
    )
    with pytest.warns(UserWarning):
        table = cross_validate_multiplicity(auditor, X, y, eps=0.05, cv=2)
    check_consistent(table)
    assert not table["train_ambiguity_certified"].all()
    assert not table["test_certified"].all()
    assert (table["test_undecided"] > 0).any()
