"""Facts the audit knows are attributes and, where they change the reading,
warnings of the API, for two labels and K alike."""

import warnings

import numpy as np
import pytest
from brute_force import random_tiny
from brute_force_multiclass import tiny_case
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import BaselineGapWarning, MultiplicityAuditor
from sklearn_multiplicity._reporting._warnings import baseline_gap_words


def _reversed(X, y):
    """A frozen logistic model whose scores are negated: a linear baseline far
    from the best models of the class."""
    model = LogisticRegression().fit(X, y)
    model.coef_, model.intercept_ = -model.coef_, -model.intercept_
    return FrozenEstimator(model)


def _two_labels():
    X, y = random_tiny(0, n=12)
    return X, y


def _k_labels():
    X, y, _ = tiny_case(1)
    return np.vstack([X, X]), np.concatenate([y, y])


@pytest.mark.parametrize("data", [_two_labels, _k_labels], ids=["two", "K"])
def test_a_baseline_far_from_the_best_models_is_said_at_every_reading(data):
    X, y = data()
    auditor = MultiplicityAuditor(_reversed(X, y), time_limit=20).fit(X, y)
    if auditor.baseline_constant_class_ is not None:
        pytest.skip("a constant baseline has its own warning")
    with pytest.warns(BaselineGapWarning, match="fewer, more than the 0 extra"):
        auditor.ambiguity_bounds(0.0)
    # The attribute behind it: a verified model with fewer errors.
    assert auditor.fewest_errors_found_ < auditor.baseline_errors_
    assert auditor.min_error_bounds_[1] <= auditor.baseline_errors_
    # A tolerance that covers the gap says nothing.
    gap = auditor.baseline_errors_ - auditor.fewest_errors_found_
    eps = min(1.0, (gap + 1) / len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineGapWarning)
        auditor.ambiguity_bounds(eps)


@pytest.mark.parametrize("data", [_two_labels, _k_labels], ids=["two", "K"])
def test_the_default_baseline_is_never_far_from_the_best(data):
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineGapWarning)
        auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
        auditor.ambiguity(0.0)
    assert auditor.fewest_errors_found_ == auditor.baseline_errors_


def test_the_gap_sentence_is_one_source():
    assert baseline_gap_words(10, 8, 2) is None  # within the tolerance
    words = baseline_gap_words(32, 1, 5, min_error=(1, 1))
    assert words.startswith("The baseline makes 32 training errors")
    assert "certified minimum [1, 1]" in words and "31 fewer" in words


def test_a_minimum_error_bound_far_below_the_baseline_is_said():
    # No verified model errs fewer, but the certified minimum leaves room.
    assert baseline_gap_words(30, 30, 2, min_error=(30, 30)) is None
    assert baseline_gap_words(30, 30, 2, min_error=(28, 30)) is None
    words = baseline_gap_words(30, 30, 2, min_error=(10, 30))
    assert "certified only within [10, 30]" in words
    assert "up to 20 fewer, more than the 2 extra errors" in words


@pytest.mark.parametrize("data", [_two_labels, _k_labels], ids=["two", "K"])
def test_an_open_minimum_error_far_below_the_baseline_is_warned(data, monkeypatch):
    X, y = data()
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    lower, upper = auditor.session_.known_min_error_bounds()
    assert (lower, upper) == auditor.min_error_bounds_
    # As a time limit leaves it: the minimum's lower bound far below.
    monkeypatch.setattr(
        auditor.session_,
        "known_min_error_bounds",
        lambda: (upper - 3, upper),
    )
    with pytest.warns(BaselineGapWarning, match="certified only within"):
        auditor.ambiguity(0.0)


@pytest.mark.parametrize("data", [_two_labels, _k_labels], ids=["two", "K"])
def test_every_target_has_an_assessment(data):
    X, y = data()
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    assessment = auditor.assessment_
    assert assessment.regime in {"exact", "bands", "lower-bounds"}
    assert assessment.signals["n_patterns"] == auditor.n_patterns_
    assert any("distinct feature patterns" in r for r in assessment.reasons)
    if len(np.unique(y)) > 2:
        assert assessment.signals["n_classes"] == 3
        assert assessment.regime == "exact"  # a tiny table: few patterns


@pytest.mark.parametrize("data", [_two_labels, _k_labels], ids=["two", "K"])
@pytest.mark.parametrize("limit", [1e-3, None], ids=["stopped", "unlimited"])
def test_undecided_people_by_group_for_two_labels_and_k(data, limit):
    X, y = data()
    groups = np.arange(len(y)) % 2
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=20, total_time_limit=limit
    ).fit(X, y, groups=groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts = auditor.undecided_by_group(0.1)
        evidence = auditor.evidence(0.1)
    assert list(counts.index) == ["overall", 0, 1]
    undecided = evidence["undecided"].to_numpy()
    assert counts["overall"] == undecided.sum()
    for g in (0, 1):
        assert counts[g] == undecided[groups == g].sum()
    if limit is None:  # an unlimited audit decides everyone
        assert counts.sum() == 0
    lower, upper = auditor.ambiguity_bounds(0.1)
    # The undecided are what separates ambiguity's bounds (which the
    # relations with discrepancy may tighten further).
    assert upper - lower <= counts["overall"] / len(y) + 1e-9
