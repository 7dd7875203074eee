"""Per-class tolerances: false positives and false negatives bounded apart.

Ground truth is the enumeration of every linear dichotomy of tiny data
(``brute_force.Truth.class_measures``).
"""

import math

import numpy as np
import pytest
from brute_force import Truth, baseline_truth, random_tiny
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._mip._program import MIPResult
from sklearn_multiplicity.backends import Backend, get_backend

PAIRS = [(0.0, 0.0), (0.2, 0.0), (0.0, 0.25), (0.15, 0.3), (0.5, 0.5)]


def seeds(n, fast):
    """``range(n)``, only the first ``fast`` in the default run (the others
    are marked slow)."""
    return [
        i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)
    ]


@pytest.mark.parametrize("seed", seeds(8, 2))
def test_per_class_measures_match_enumeration(seed):
    X, y = random_tiny(seed, n=10, d=2, levels=4)
    estimator = LogisticRegression() if seed % 2 else None
    auditor = MultiplicityAuditor(estimator, time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    for eps_neg, eps_pos in PAIRS:
        eps = {0: eps_neg, 1: eps_pos}
        discrepancy, ambiguity, flippable = truth.class_measures(z0, eps_neg, eps_pos)
        assert auditor.discrepancy_bounds(eps) == pytest.approx((discrepancy,) * 2)
        assert auditor.ambiguity_bounds(eps) == pytest.approx((ambiguity,) * 2)
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable[truth.inverse])


@pytest.mark.parametrize("seed", [2, 3])
def test_parallel_per_class_flip_mips_match_enumeration(seed):
    X, y = random_tiny(seed, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20, n_jobs=2).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    for eps_neg, eps_pos in PAIRS:
        eps = {0: eps_neg, 1: eps_pos}
        _, ambiguity, flippable = truth.class_measures(z0, eps_neg, eps_pos)
        assert auditor.ambiguity_bounds(eps) == pytest.approx((ambiguity,) * 2)
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable[truth.inverse])


@pytest.mark.slow
def test_weighted_per_class_measures_match_enumeration():
    X, y = random_tiny(5, n=9, d=2, levels=3)
    weight = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3], dtype=float)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y, sample_weight=weight)
    truth, z0, _ = baseline_truth(auditor, X, y, weight)
    for eps_neg, eps_pos in PAIRS:
        discrepancy, ambiguity, _ = truth.class_measures(z0, eps_neg, eps_pos)
        eps = {0: eps_neg, 1: eps_pos}
        assert auditor.discrepancy(eps) == pytest.approx(discrepancy)
        assert auditor.ambiguity(eps) == pytest.approx(ambiguity)


def test_string_labels_and_hand_worked_budgets():
    # Figure 1 of the paper: XOR on four points, 25 people each.
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    y = np.repeat(["no", "yes", "yes", "no"], 25)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    assert auditor.baseline_errors_ == 25.0
    z0 = auditor.predict(X[::25]) == "yes"
    fp0 = 25.0 * np.sum(z0 & np.array([1, 0, 0, 1], bool))
    fn0 = 25.0 - fp0
    budget = auditor.error_budget({"no": 0.5, "yes": 0.0})
    # 50 negatives and 50 positives: 25 more false positives, none more FN.
    assert budget == {"false_positives": fp0 + 25.0, "false_negatives": fn0}
    truth = Truth(X, y == "yes")
    for pair in [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]:
        disc, amb, _ = truth.class_measures(z0, *pair)
        eps = {"no": pair[0], "yes": pair[1]}
        assert auditor.discrepancy(eps) == pytest.approx(disc)
        assert auditor.ambiguity(eps) == pytest.approx(amb)
    # At eps = 0 any model erring on one corner competes (all four people
    # flippable); per class, the baseline's kind of error is the only one
    # allowed, so only the two models erring on that label's corners remain.
    assert auditor.ambiguity(0.0) == 1.0
    assert auditor.ambiguity({"no": 0, "yes": 0}) == 0.5
    assert auditor.discrepancy({"no": 0, "yes": 0}) == 0.5


def test_per_class_epsilon_parameter_and_people():
    X, y = random_tiny(2, n=10, d=2, levels=4)
    eps = {0: 0.2, 1: 0.4}
    auditor = MultiplicityAuditor(epsilon=eps, time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    _, _, flippable = truth.class_measures(z0, 0.2, 0.4)
    evidence = auditor.evidence()
    np.testing.assert_array_equal(evidence["contestable"], flippable[truth.inverse])
    assert not evidence["undecided"].any()
    budget = auditor.error_budget()
    for row in np.flatnonzero(flippable[truth.inverse]):
        model = auditor.competing_model(row)
        z = model.predict(truth.points) == 1
        assert z[truth.inverse[row]] != z0[truth.inverse[row]]
        assert z @ truth.neg <= budget["false_positives"]
        assert (~z) @ truth.pos <= budget["false_negatives"]
    assert (
        auditor.competing_model(int(np.flatnonzero(~flippable[truth.inverse])[0]))
        is None
    )
    model = auditor.discrepancy_model()
    assert model is not None
    frame = auditor.fit(X, y, groups=X[:, 0] > 1).by_group()
    assert frame.overall["ambiguity"] == pytest.approx(auditor.ambiguity())
    assert "{0: 0.2, 1: 0.4}" in repr(frame)


@pytest.mark.parametrize(
    "eps, message",
    [
        ({0: 0.1, 2: 0.1}, "not class labels"),
        ({0: 0.1}, "no tolerance for class 1"),
        ({0: -0.1, 1: 0.1}, r"eps\[0\] must be a number in \[0, 1\]"),
        ({0: 0.1, 1: 1.5}, r"eps\[1\] must be a number in \[0, 1\]"),
        ({0: "a", 1: 0.1}, "must be a number"),
    ],
)
def test_bad_per_class_tolerances(eps, message):
    X, y = random_tiny(0, n=8)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    with pytest.raises(ValueError, match=message):
        auditor.ambiguity(eps)
    with pytest.raises(ValueError, match=message):
        MultiplicityAuditor(epsilon=eps).fit(X, y).ambiguity()


class StoppedBackend(Backend):
    """A time limit that stops every MIP whose name starts with ``only`` (a
    prefix or a tuple of them) before any solution (HiGHS solves the others)."""

    name = "stopped"

    def __init__(self, only="", **kwargs):
        super().__init__(**kwargs)
        self.only = only

    def _solve(self, mip, *, first_solution=False):
        if not mip.name.startswith(self.only):
            highs = get_backend("highs", time_limit=self.time_limit, threads=1)
            return highs._solve(mip, first_solution=first_solution)
        bound = math.inf if mip.maximize else -math.inf
        return MIPResult("no_solution", None, math.nan, bound, 0.0, self.name, "")


@pytest.mark.parametrize("seed", [1, *seeds(4, 0)[:1], *seeds(4, 0)[2:]])
def test_stopped_mips_leave_honest_per_class_bounds(seed):
    X, y = random_tiny(seed + 40, n=10, d=2, levels=4)
    reference = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(reference, X, y)
    auditor = MultiplicityAuditor(
        solver=StoppedBackend(only="flip"), time_limit=20, cuts=False
    ).fit(X, y)
    stopped = MultiplicityAuditor(
        solver=StoppedBackend(only="max_disagreement"), time_limit=20, cuts=False
    ).fit(X, y)
    for pair in PAIRS:
        eps = {0: pair[0], 1: pair[1]}
        disc, amb, _ = truth.class_measures(z0, *pair)
        lower, upper = auditor.ambiguity_bounds(eps)
        assert lower - 1e-9 <= amb <= upper + 1e-9
        lower, upper = stopped.discrepancy_bounds(eps)
        assert lower - 1e-9 <= disc <= upper + 1e-9


def test_per_class_path():
    X, y = random_tiny(7, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    path = auditor.path({0: 0.2, 1: 0.4}, step=0.1)
    # Equal steps of 0.1 on both rates, each capped at its own maximum.
    assert path["epsilon"].tolist() == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert path["epsilon_0"].tolist() == pytest.approx([0.0, 0.1, 0.2, 0.2, 0.2])
    assert path["epsilon_1"].tolist() == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    for row in path.itertuples():
        disc, amb, _ = truth.class_measures(z0, row.epsilon_0, row.epsilon_1)
        assert row.discrepancy == pytest.approx(disc)
        assert row.ambiguity == pytest.approx(amb)
        assert row.certified


def flip_mips(auditor, start=0):
    """``{pattern: status}`` of the flip MIPs logged from entry ``start``."""
    import re

    out = {}
    for entry in auditor.mip_log_[start:]:
        found = re.match(r"flip\[pattern (\d+) ->", entry["mip"])
        if found:
            out[int(found.group(1))] = entry["status"]
    return out


@pytest.mark.parametrize("seed", [7, 11])
def test_proofs_at_a_larger_pair_carry_to_smaller_pairs(seed):
    X, y = random_tiny(seed, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20, cuts=False).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    large, small = {0: 0.3, 1: 0.4}, {0: 0.2, 1: 0.1}
    auditor.ambiguity_bounds(large)
    proven = {u for u, s in flip_mips(auditor).items() if s == "infeasible"}
    start = len(auditor.mip_log_)
    for eps in (small, large):
        _, ambiguity, flippable = truth.class_measures(z0, eps[0], eps[1])
        assert auditor.ambiguity_bounds(eps) == pytest.approx((ambiguity,) * 2)
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable[truth.inverse])
    # No pattern proven unflippable at the larger pair gets a MIP again.
    assert not proven & set(flip_mips(auditor, start))


def test_discrepancy_bound_at_a_larger_pair_holds_at_smaller_ones():
    from sklearn_multiplicity._engine import Deadline

    X, y = random_tiny(7, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y)
    session = auditor.session_
    large = session.level_set.budget((0.3, 0.4))
    small = session.level_set.budget((0.2, 0.1))
    certified = session.discrepancy_bounds(large).bounds
    assert certified.certified
    # No time at the smaller pair: its upper bound is the larger pair's.
    stopped = session.discrepancy_bounds(small, deadline=Deadline(0.0)).bounds
    discrepancy, _, _ = truth.class_measures(z0, 0.2, 0.1)
    assert stopped.lower <= discrepancy + 1e-9
    assert discrepancy <= stopped.upper <= certified.upper + 1e-9
