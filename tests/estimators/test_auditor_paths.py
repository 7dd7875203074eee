"""Paths over tolerances and the discrepancy certifier behind them, through
the fitted auditor's session."""

import re
import warnings

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny
from faulty_backends import NoSolutionBackend
from relations import check_auditor, check_frame, check_path
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._engine.binary.discrepancy._requests import disagreement_mip


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


def test_only_discrepancy_mips_branch_heaviest_first():
    X, y = random_tiny(30, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    session = auditor.session_
    budget = auditor.baseline_errors_ + 2
    weights = session.problem.pattern_weight
    unflippable = ~session.state.maybe_flippable(budget)
    mip = disagreement_mip(session.state, budget, weights, unflippable)
    z_priority = mip.branching_priority[session.enc.z_offset :]
    assert np.all(np.diff(weights[np.argsort(-z_priority)]) <= 0)
    # The batch strategy's "flip any of these" MIPs have no order to follow.
    batch = session.ambiguity.batch_mip(np.arange(2), budget)
    assert batch.branching_priority is None


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


@pytest.mark.slow  # a 30-pattern path: about 12 s
def test_time_limited_path_brackets_open_tolerances_first(monkeypatch):
    X, y = random_tiny(41, n=30, d=2, levels=4, noise=0.3)
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=20, total_time_limit=600
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    discrepancy = auditor.session_.discrepancy
    after_bracketing = []
    bracket = discrepancy.bracket

    def spy(budgets, workers, deadline, settled):
        n_open = discrepancy.open_budgets(budgets).size
        n_logged = len(auditor.mip_log_)
        bracket(budgets, workers, deadline, settled)
        envelope = discrepancy.envelope(budgets)
        after_bracketing.append((envelope, n_open, auditor.mip_log_[n_logged:]))

    monkeypatch.setattr(discrepancy, "bracket", spy)
    discrepancy.bracket_spacing = 3
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
    auditor = MultiplicityAuditor(time_limit=20, total_time_limit=None).fit(X, y)

    def refuse(*args):
        raise AssertionError("bracketing pass without a total time limit")

    monkeypatch.setattr(auditor.session_.discrepancy, "bracket", refuse)
    assert auditor.path(0.3)["certified"].all()


def test_verbose_path_shows_progress_of_both_phases(capsys):
    # Seed 5: discrepancy is open at 3 of the 4 tolerances once ambiguity is
    # settled (elsewhere the relations with ambiguity may settle all of it).
    X, y = random_tiny(5, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20, verbose=1).fit(X, y)
    path = auditor.path(0.3)
    err = capsys.readouterr().err
    assert "ambiguity path" in err
    assert "discrepancy path" in err and "tolerance" in err
    # The bar ends full: every tolerance certified.
    done, total = re.findall(r"(\d+)/(\d+)", err.split("discrepancy path")[-1])[-1]
    assert done == total and 0 < int(total) <= len(path)


def test_a_request_prepared_ahead_learns_what_was_found_since(monkeypatch):
    # Without the moves past one pattern, the descent and the LPs' models,
    # the search leaves the MIP something to find on these data.
    for search in ("moved_models", "lp_models"):
        monkeypatch.setattr(
            f"sklearn_multiplicity._engine.binary.discrepancy._certifier.{search}",
            lambda *a, **k: [],
        )
    monkeypatch.setattr(
        "sklearn_multiplicity._engine.binary.discrepancy._certifier.DiscrepancyCertifier.descend",
        lambda *a, **k: None,
    )
    X, y = random_tiny(30, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    session = auditor.session_
    engine = session.discrepancy
    budget = auditor.baseline_errors_ + 3
    never = Deadline(None)
    # Prepared as a path prepares them: without searches or LP dives.
    path = "discrepancy in a path"
    here = engine.request(budget, deadline=never, plan=path)
    above = engine.request(budget + 1, deadline=never, plan=path)
    assert here.mip is not None and above.mip is not None
    known_above = above.lower
    solved = engine.discrepancy(budget)
    assert solved.bounds.certified
    found = solved.bounds.lower * session.problem.total_weight
    assert found > known_above  # the MIP found a better model
    # Its result certifies the prepared request at the same budget ...
    assert not engine.refresh(here)
    # ... and its model is the hint of the one at the budget above.
    assert engine.refresh(above)
    assert above.lower >= found - 1e-9
    hint = session.enc.hint_from((above.best.w, above.best.b))
    np.testing.assert_array_equal(above.mip.hint, hint)


def test_a_path_prepares_its_requests_without_searches(monkeypatch):
    # Its MIPs start from the budgets below; searches before each would hold
    # the main thread while the solvers wait for the next MIP.
    searched = []
    for search in ("disagreement_models", "moved_models"):
        monkeypatch.setattr(
            f"sklearn_multiplicity._engine.binary.discrepancy._certifier.{search}",
            lambda *a, **k: searched.append(a) or [],
        )
    X, y = random_tiny(4, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    path = auditor.path(0.3)
    assert not searched
    assert path["certified"].all()
    for row in path.itertuples():
        assert row.discrepancy == pytest.approx(
            truth.discrepancy(z0, err0, row.epsilon)
        )
    # A single tolerance's request, on a fresh audit, still searches.
    MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y).discrepancy(0.2)
    assert searched


def test_path_prepares_no_request_after_its_deadline(monkeypatch):
    X, y = random_tiny(4, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    discrepancy = auditor.session_.discrepancy

    def refuse(*args, **kwargs):
        raise AssertionError("a request prepared after the deadline")

    monkeypatch.setattr(discrepancy, "request", refuse)
    budgets = auditor.session_.level_set.grid(0.3)[2]
    assert discrepancy._path_jobs(budgets, Deadline(0.0))() is None
    # The envelope still bounds every tolerance.
    assert len(discrepancy.envelope(budgets)) == budgets.size


def test_open_bands_meet_every_relation_along_a_path_and_over_groups():
    # A backend that finds and proves nothing leaves every MIP open: the
    # bands come from the LP screens, the known models and the relations
    # between the measures, and must meet all of them while holding the
    # enumerated values.
    X, y = random_tiny(5, n=10, d=2, levels=4)
    groups = np.arange(len(y)) % 2
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=NoSolutionBackend(), time_limit=5
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor.fit(X, y, groups=groups)
        path = auditor.path(0.3)
        frame = auditor.by_group(0.3)
    total = float(len(y))
    assert (
        check_path(path, baseline_errors=auditor.baseline_errors_, total_weight=total)
        == []
    )
    assert check_frame(frame) == []
    assert check_auditor(auditor, 0.3) == []
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for row in path.itertuples():
        amb = truth.ambiguity(z0, err0, row.epsilon)
        disc = truth.discrepancy(z0, err0, row.epsilon)
        assert row.ambiguity_lower <= amb + 1e-12 <= row.ambiguity_upper + 2e-12
        assert row.discrepancy_lower <= disc + 1e-12 <= row.discrepancy_upper + 2e-12
