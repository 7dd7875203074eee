import itertools
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from brute_force import Truth, baseline_truth, random_tiny
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    MultiplicityFrame,
    ZeroOneLinearClassifier,
)
from sklearn_multiplicity._mip._program import NO_SOLUTION, MIPResult
from sklearn_multiplicity.backends import Backend

EPSILONS = [0.0, 0.1, 0.25]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("baseline", ["zero-one", "logistic"])
def test_measures_match_enumeration(seed, baseline):
    X, y = random_tiny(seed, n=9, d=2 + seed % 2, levels=3)
    estimator = LogisticRegression() if baseline == "logistic" else None
    auditor = MultiplicityAuditor(estimator, time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    assert auditor.baseline_errors_ == err0
    assert auditor.min_error_bounds_ == (truth.min_error, truth.min_error)
    for eps in EPSILONS:
        assert auditor.discrepancy_bounds(eps) == pytest.approx(
            (truth.discrepancy(z0, err0, eps),) * 2
        )
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )
        flippable = truth.flippable(z0, err0, eps)[truth.inverse]
        np.testing.assert_array_equal(auditor.conflicts(eps), flippable)


def test_weighted_measures_match_enumeration():
    X, y = random_tiny(21, n=9, d=2, levels=3)
    weight = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3], dtype=float)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20)
    auditor.fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    for eps in EPSILONS:
        assert auditor.discrepancy(eps) == pytest.approx(
            truth.discrepancy(z0, err0, eps)
        )
        assert auditor.ambiguity(eps) == pytest.approx(truth.ambiguity(z0, err0, eps))


def figure_one():
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    y = np.repeat([0, 1, 1, 0], 25)
    return X, y


def test_paper_figure_one():
    X, y = figure_one()
    auditor = MultiplicityAuditor(epsilon=0.0, time_limit=10).fit(X, y)
    assert auditor.baseline_errors_ == 25
    assert auditor.discrepancy() == 0.5
    assert auditor.ambiguity() == 1.0
    assert auditor.conflicts().all()


def test_evidence_models_really_flip():
    X, y = random_tiny(8, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    eps = 0.2
    budget = auditor.baseline_errors_ + np.floor(eps * len(y))
    baseline = auditor.predict(X)
    conflicts = auditor.conflicts(eps)
    for i in range(len(y)):
        model = auditor.competing_model(i, eps)
        if not conflicts[i]:
            assert model is None
            continue
        # Re-checked with the model's own predictions, not solver output.
        predictions = model.predict(X)
        assert predictions[i] != baseline[i]
        assert np.sum(predictions != y) <= budget
    disc = auditor.discrepancy_model(eps)
    assert np.sum(disc.predict(X) != y) <= budget
    assert np.mean(disc.predict(X) != baseline) == pytest.approx(
        auditor.discrepancy(eps)
    )
    frame = auditor.evidence(eps)
    np.testing.assert_array_equal(frame["contestable"], conflicts)
    assert not frame["undecided"].any()


def test_ambiguous_new_people_matches_enumeration():
    X, y = random_tiny(12, n=8, d=2, levels=3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    eps = 0.125
    new = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 2.0], [0.5, 1.5], [3.0, 0.0]])
    got = auditor.ambiguous(new, eps)
    for x, flag in zip(new, got, strict=True):
        X_aug = np.vstack([X, x])
        y_aug = np.append(y, 0)
        weight = np.append(np.ones(len(y)), 0.0)
        truth = Truth(X_aug, y_aug, weight)
        z0 = auditor.predict(truth.points) == auditor.classes_[1]
        err0 = auditor.baseline_errors_
        level = truth.D[truth.errors <= err0 + np.floor(eps * len(y)) + 1e-9]
        j = np.flatnonzero((truth.points == x).all(axis=1))[0]
        assert flag == bool((level[:, j] != z0[j]).any())


@pytest.mark.parametrize("seed", [13, 14])
def test_ambiguous_new_people_with_identity_rows_matches_enumeration(seed):
    # Enough integer patterns for affine identities: the flip MIPs of new
    # people then go through the LP separation (and its own models).
    X, y = random_tiny(seed, n=30, d=2, levels=3, noise=0.3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    assert auditor.n_identities_ > 0
    eps = 0.1
    new = np.array([[0.5, 1.5], [1.5, 0.0]])  # off the 3 x 3 grid
    got = auditor.ambiguous(new, eps)
    # One enumeration with every new point at weight 0.
    truth = Truth(
        np.vstack([X, new]),
        np.append(y, np.zeros(len(new))),
        np.append(np.ones(len(y)), np.zeros(len(new))),
    )
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    budget = auditor.baseline_errors_ + np.floor(eps * len(y))
    level = truth.D[truth.errors <= budget + 1e-9]
    for x, flag in zip(new, got, strict=True):
        j = np.flatnonzero((truth.points == x).all(axis=1))[0]
        assert flag == bool((level[:, j] != z0[j]).any())


def test_groups_match_enumeration():
    X, y = random_tiny(5, n=10, d=2, levels=4)
    groups = np.array(["a", "b"] * 5)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y, groups=groups)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    eps = 0.2
    frame = auditor.by_group(eps)
    flippable = truth.flippable(z0, err0, eps)[truth.inverse]
    level = truth.level_set(err0, eps)
    for g in ["a", "b"]:
        rows = groups == g
        assert frame.by_group.loc[g, "ambiguity"] == pytest.approx(
            flippable[rows].mean()
        )
        disagree = level[:, truth.inverse[rows]] != z0[truth.inverse[rows]]
        assert frame.by_group.loc[g, "discrepancy"] == pytest.approx(
            disagree.sum(axis=1).max() / rows.sum()
        )
    assert frame.overall["ambiguity"] == pytest.approx(auditor.ambiguity(eps))
    diff = frame.difference()
    assert diff["ambiguity"] == pytest.approx(
        abs(frame.by_group.loc["a", "ambiguity"] - frame.by_group.loc["b", "ambiguity"])
    )


def bounded_frame(lower, upper, n=None):
    """A frame of one measure, ``ambiguity``, known within ``[lower, upper]``."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    index = pd.Index([f"g{i}" for i in range(len(lower))], name="group")
    by_group = pd.DataFrame(
        {
            "n": np.arange(1.0, len(lower) + 1) if n is None else n,
            "ambiguity": lower,
            "ambiguity_lower": lower,
            "ambiguity_upper": upper,
        },
        index=index,
    )
    return MultiplicityFrame(by_group.max(), by_group, epsilon=0.1)


def summaries_of_every_choice(lower, upper, step=0.1):
    """Max, min, max - min and min / max of every choice of group values on
    the grid of ``step`` within the bounds (the bounds included)."""
    grids = [
        np.round(np.arange(lo, hi + step / 2, step), 10)
        for lo, hi in zip(lower, upper, strict=True)
    ]
    values = np.array(list(itertools.product(*grids)))
    high, low = values.max(axis=1), values.min(axis=1)
    with np.errstate(invalid="ignore"):
        return high, low, high - low, low / high


@pytest.mark.parametrize("seed", range(20))
def test_frame_summaries_hold_every_value_within_the_bounds(seed):
    rng = np.random.RandomState(seed)
    ends = np.sort(rng.randint(1, 11, size=(3, 2)), axis=1) / 10  # in (0, 1]
    lower, upper = ends[:, 0], ends[:, 1]
    frame = bounded_frame(lower, upper)
    high, low, diff, ratio = summaries_of_every_choice(lower, upper)

    def interval(series):
        assert series["ambiguity"] == series["ambiguity_lower"]  # value = lower
        return series["ambiguity_lower"], series["ambiguity_upper"]

    # Max, min, the smallest difference and the largest ratio are attained.
    assert interval(frame.group_max()) == pytest.approx((high.min(), high.max()))
    assert interval(frame.group_min()) == pytest.approx((low.min(), low.max()))
    lo, hi = interval(frame.difference())
    assert lo == pytest.approx(diff.min())
    assert hi >= diff.max() - 1e-12
    lo, hi = interval(frame.ratio())
    assert lo <= ratio.min() + 1e-12
    assert hi == pytest.approx(ratio.max())
    # n is a weight: summarised by max and min, never compared.
    assert frame.group_max()["n"] == 3 and frame.group_min()["n"] == 1
    assert "n" not in frame.difference() and "n" not in frame.ratio()


def test_frame_difference_with_both_upper_bounds_at_one():
    # Both groups may be anywhere up to 1: the gap may be 0 or as large as
    # 1 - 0.3 (A at 0.3, B at 1), never reported as exactly 0.
    frame = bounded_frame([0.3, 0.6], [1.0, 1.0])
    diff = frame.difference()
    assert diff["ambiguity_lower"] == 0.0
    assert diff["ambiguity_upper"] == pytest.approx(0.7)
    assert diff["ambiguity"] == diff["ambiguity_lower"]
    ratio = frame.ratio()
    assert ratio["ambiguity_lower"] == pytest.approx(0.3)
    assert ratio["ambiguity_upper"] == 1.0
    # Separate bounds: gap within [0.5 - 0.4, 0.9 - 0.1], ratio within
    # [0.1 / 0.9, 0.4 / 0.5].
    frame = bounded_frame([0.1, 0.5], [0.4, 0.9])
    assert frame.difference()[["ambiguity_lower", "ambiguity_upper"]].tolist() == (
        pytest.approx([0.1, 0.8])
    )
    assert frame.ratio()[["ambiguity_lower", "ambiguity_upper"]].tolist() == (
        pytest.approx([0.1 / 0.9, 0.8])
    )


def test_frame_ratio_is_nan_where_the_largest_value_may_be_zero():
    ratio = bounded_frame([0.0, 0.0], [0.0, 0.0]).ratio()
    assert np.isnan(ratio["ambiguity_lower"]) and np.isnan(ratio["ambiguity_upper"])
    ratio = bounded_frame([0.0, 0.0], [0.2, 0.5]).ratio()
    assert ratio["ambiguity_lower"] == 0.0 and np.isnan(ratio["ambiguity_upper"])


def test_frame_of_pinned_bounds_gives_the_exact_summaries():
    values = np.array([0.2, 0.5, 0.35])
    bounded = bounded_frame(values, values)
    plain = MultiplicityFrame(None, bounded.by_group[["n", "ambiguity"]], epsilon=0.1)
    assert plain.difference().index.tolist() == ["ambiguity"]
    assert bounded.difference()["ambiguity"] == pytest.approx(0.3)
    assert plain.difference()["ambiguity"] == pytest.approx(0.3)
    assert bounded.ratio()["ambiguity"] == pytest.approx(0.4)
    assert plain.ratio()["ambiguity"] == pytest.approx(0.4)
    assert plain.group_max()["ambiguity"] == bounded.group_max()["ambiguity"]


def test_expired_group_audit_brackets_the_exact_difference():
    X, y = random_tiny(7, n=10, d=2, levels=4)
    groups = np.repeat(["a", "b"], 5)
    eps = 0.2
    exact = MultiplicityAuditor(time_limit=20).fit(X, y, groups=groups)
    exact = exact.by_group(eps).difference()
    hurried = MultiplicityAuditor(time_limit=20).fit(X, y, groups=groups)
    hurried.set_params(total_time_limit=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        frame = hurried.by_group(eps)
    # Time ran out: every group's bounds are left open (ambiguity's end at
    # 1), yet the groups differ.
    by = frame.by_group
    assert (by["ambiguity_upper"] == 1).all()
    for measure in ("ambiguity", "discrepancy"):
        assert (by[f"{measure}_upper"] > by[f"{measure}_lower"]).all()
    assert exact["ambiguity_lower"] == exact["ambiguity_upper"] > 0
    diff = frame.difference()
    for measure in ("ambiguity", "discrepancy"):
        assert exact[f"{measure}_lower"] == exact[f"{measure}_upper"]
        gap = exact[measure]
        assert diff[f"{measure}_lower"] <= gap <= diff[f"{measure}_upper"]


def test_expired_total_time_gives_honest_bounds():
    X, y = random_tiny(3, n=9, d=2, levels=3)
    exact = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(exact, X, y)
    hurried = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    hurried.set_params(total_time_limit=1e-9)
    for eps in EPSILONS:
        lo, hi = hurried.ambiguity_bounds(eps)
        assert lo <= truth.ambiguity(z0, err0, eps) + 1e-12 <= hi + 2e-12
        lo, hi = hurried.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12


@pytest.mark.parametrize(
    "params, remedy",
    [
        ({"weights": "integer", "max_weight": 1}, "Increase max_weight"),
        ({"margin": 0.5}, "Decrease margin"),
        ({}, None),
    ],
)
def test_warns_with_the_remedy_when_the_class_cannot_match_the_baseline(params, remedy):
    # 2 x1 + x2 >= 3 on a 3 x 3 grid: separable, but not by weights in
    # {-1, 0, 1}, nor with a margin of 0.5 on features scaled to [0, 1].
    grid = np.array([(a, b) for a in range(3) for b in range(3)], float)
    X = np.repeat(grid, 3, axis=0)
    y = (2 * X[:, 0] + X[:, 1] >= 3).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auditor = MultiplicityAuditor(LogisticRegression(C=1e4), **params).fit(X, y)
    messages = [str(w.message) for w in caught if "hypothesis class" in str(w.message)]
    assert auditor.baseline_errors_ == 0
    if remedy is None:
        assert auditor.min_error_bounds_[0] == 0 and not messages
    else:
        assert auditor.min_error_bounds_[0] > 0
        assert len(messages) == 1 and remedy in messages[0]


def test_nothing_is_learnt_once_time_is_up():
    # Found by the property tests: with time up, the threshold-shift search
    # used to run on every call and grow the pool, so ``ambiguity_bounds``
    # read 0.833 and the next ``ambiguity`` 1.0 at eps = 0.4.
    X = np.array([[1, 1, 2], [3, 2, 2], [1, 2, 0], [2, 2, 0], [2, 3, 3]], float)
    y = np.array([0, 0, 1, 1, 0])
    weight = np.array([1.0, 1.0, 1.0, 2.0, 1.0])
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10)
    auditor.fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    auditor.set_params(total_time_limit=1e-9)
    n_models, n_logged = len(auditor.session_.state.pool), len(auditor.mip_log_)
    for eps in [0.0, 0.1, 0.2, 0.4]:
        first = auditor.ambiguity_bounds(eps)
        assert first[0] <= truth.ambiguity(z0, err0, eps) + 1e-12 <= first[1] + 2e-12
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert auditor.ambiguity(eps) == first[0]
        warned = any(issubclass(w.category, CertificationWarning) for w in caught)
        assert warned == (first[0] < first[1])
        assert auditor.ambiguity_bounds(eps) == first
        lo, hi = auditor.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12
        assert auditor.discrepancy_bounds(eps) == (lo, hi)
    assert len(auditor.session_.state.pool) == n_models
    assert len(auditor.mip_log_) == n_logged


def test_bound_proven_at_a_larger_tolerance_caps_smaller_ones():
    X, y = random_tiny(3, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    large = 0.25
    top_lower, top_upper = auditor.discrepancy_bounds(large)
    assert top_lower == top_upper < 1  # certified, and a real cap
    n_mips = len(auditor.mip_log_)
    # No time for MIPs: smaller tolerances get their upper bound from `large`.
    auditor.set_params(total_time_limit=1e-9)
    for eps in [0.0, 0.05, 0.1, 0.2]:
        lo, hi = auditor.discrepancy_bounds(eps)
        assert lo <= truth.discrepancy(z0, err0, eps) + 1e-12 <= hi + 2e-12
        assert hi <= top_upper + 1e-12
    assert len(auditor.mip_log_) == n_mips


class NoProofBackend(Backend):
    """A solver that never finds anything: every bound must stay open."""

    name = "noproof"

    def _solve(self, mip, *, first_solution=False):
        worst = np.inf if mip.maximize else -np.inf
        return MIPResult(NO_SOLUTION, None, np.nan, worst, 0.0, self.name, "gave up")


def test_unsolved_mips_give_honest_bounds_and_warnings():
    # Seed 9: discrepancy needs a MIP (on most tiny tables the relations with
    # ambiguity settle it without one).
    X, y = random_tiny(9, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    auditor.session_.backend = NoProofBackend()
    eps = 0.25
    lo, hi = auditor.ambiguity_bounds(eps)
    true_amb = truth.ambiguity(z0, err0, eps)
    assert lo <= true_amb <= hi
    if lo < hi:
        with pytest.warns(CertificationWarning):
            assert auditor.ambiguity(eps) == lo
    lo, hi = auditor.discrepancy_bounds(eps)
    assert lo <= truth.discrepancy(z0, err0, eps) <= hi
    assert any(entry["status"] == NO_SOLUTION for entry in auditor.mip_log_)


def test_short_time_limits_keep_bounds_ordered():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + rng.normal(size=150) > 0).astype(int)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=0.05, cuts=False)
    auditor.fit(X, y)
    lo_a, hi_a = auditor.ambiguity_bounds(0.02)
    lo_d, hi_d = auditor.discrepancy_bounds(0.02)
    assert 0 <= lo_d <= hi_d <= 1
    assert 0 <= lo_a <= hi_a <= 1
    assert lo_d <= hi_a  # discrepancy <= ambiguity


def test_default_baseline_is_zero_one_optimal():
    X, y = random_tiny(14, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=10).fit(X, y)
    assert isinstance(auditor.estimator_, ZeroOneLinearClassifier)
    assert auditor.baseline_errors_ == auditor.min_error_bounds_[0]


@pytest.mark.parametrize("strategy", ["each", "batch"])
@pytest.mark.parametrize("seed", [30, 31, 32])
def test_every_strategy_is_exact(strategy, seed):
    X, y = random_tiny(seed, n=10, d=3, levels=3)
    auditor = MultiplicityAuditor(
        LogisticRegression(), strategy=strategy, time_limit=20
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for eps in (0.0, 0.1, 0.3):
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )


def test_problems_not_expected_exact_are_announced_and_still_bounded():
    from sklearn_multiplicity import ProblemSizeWarning

    # 60 continuous patterns: the root LP proves little, so bands, not exact.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:5] = 1 - y[:5]
    with pytest.warns(ProblemSizeWarning, match="bands"):
        auditor = MultiplicityAuditor(
            LogisticRegression(), time_limit=5, total_time_limit=0.5
        ).fit(X, y)
    assert auditor.assessment_.regime == "bands"
    lo, hi = auditor.ambiguity_bounds(0.05)
    assert 0 <= lo <= hi <= 1


class InterruptingBackend(Backend):
    """Solves normally, but the user presses Ctrl-C at the n-th MIP."""

    name = "interrupting"

    def __init__(self, inner, after, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner
        self.after = after
        self.calls = [0]

    def _solve(self, mip, *, first_solution=False):
        self.calls[0] += 1
        if self.calls[0] > self.after:
            raise KeyboardInterrupt
        self.inner.time_limit = self.time_limit
        return self.inner._solve(mip, first_solution=first_solution)


def test_interrupted_audit_keeps_its_progress_and_resumes():
    X, y = random_tiny(23, n=30, d=3, levels=4, noise=0.3)
    reference = MultiplicityAuditor(
        LogisticRegression(), strategy="each", time_limit=20
    )
    reference.fit(X, y)
    expected = reference.ambiguity_bounds(0.1)
    n_mips = len(reference.mip_log_) - 1
    assert n_mips >= 2, "the problem must need several flip MIPs"

    auditor = MultiplicityAuditor(LogisticRegression(), strategy="each", time_limit=20)
    auditor.fit(X, y)
    real = auditor.session_.backend
    auditor.session_.backend = InterruptingBackend(real, after=1)
    with pytest.raises(KeyboardInterrupt):
        auditor.ambiguity_bounds(0.1)
    solved_before = len(auditor.mip_log_)
    assert solved_before >= 2  # min-error plus the MIP solved before Ctrl-C
    auditor.session_.backend = real
    assert auditor.ambiguity_bounds(0.1) == expected  # resumes, same answer


def test_mip_log_names_the_solver_of_each_mip():
    # Seed 5: a table whose discrepancy needs its MIP.
    X, y = random_tiny(5, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    auditor.ambiguity_bounds(0.2)
    auditor.discrepancy_bounds(0.2)
    solvers = {}
    for entry in auditor.mip_log_:
        solvers.setdefault(entry["mip"].split("[")[0], set()).add(entry["solver"])
    # solver="auto": SCIP for disagreement MIPs, HiGHS for the others.
    assert solvers.pop("max_disagreement") == {"scip"}
    for kind, used in solvers.items():
        assert used == ({"linprog-highs"} if kind == "lp_relaxation" else {"highs"})


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fit_and_both_readings_keep_to_the_total_time_limit(n_classes):
    # Binary features, three noisy labels (or the first against the rest):
    # about 500 patterns that no audit certifies in seconds. The fit is part
    # of the audit of ``epsilon``: the readings get what it leaves.
    rng = np.random.default_rng(0)
    X = (rng.random((1500, 9)) < 0.5).astype(float)
    scores = X @ rng.normal(size=(9, 3)) + rng.gumbel(size=(1500, 3))
    y = np.argmax(scores, axis=1)
    if n_classes == 2:
        y = (y == 0).astype(int)
    limit = 10.0
    began = time.perf_counter()
    auditor = MultiplicityAuditor(total_time_limit=limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor.fit(X, y)
        fitted = time.perf_counter() - began
        # The fit's seconds are already the audit's.
        account = ("tolerance", auditor.session_.budget(0.01))
        assert auditor.session_.accounts.spent[account] >= 0.9 * fitted
        ambiguity = auditor.ambiguity_bounds(0.01)
        discrepancy = auditor.discrepancy_bounds(0.01)
    assert time.perf_counter() - began <= 1.1 * limit + 15.0
    for lower, upper in (ambiguity, discrepancy):
        assert 0.0 <= lower <= upper <= 1.0
    assert auditor.session_.accounts.exhausted(account, limit)


def test_every_request_ends_by_its_total_time_limit():
    # Continuous data that nothing certifies in a second: each request runs
    # into its deadline and answers with honest bounds.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(250, 5))
    y = (X @ rng.normal(size=5) + rng.normal(scale=1.5, size=250) > 0).astype(int)
    limit = 1.0
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=10, total_time_limit=limit
    )
    for request in (
        lambda: auditor.fit(X, y),
        lambda: auditor.ambiguity_bounds(0.05),
        lambda: auditor.discrepancy_bounds(0.05),
        lambda: auditor.path(0.02),
    ):
        began = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            request()
        assert time.perf_counter() - began <= 1.1 * limit + 15.0
    lower, upper = auditor.ambiguity_bounds(0.05)
    assert 0.0 <= lower <= upper <= 1.0


def one_feature_data():
    """20 rows on x in {0, 1, 2, 3}; "yes" iff x >= 1 but for one row of x = 0
    and one of x = 3: 15 "yes", 5 "no", 2 errors for the best threshold."""
    X = np.repeat([[0.0], [1.0], [2.0], [3.0]], 5, axis=0)
    y = np.where(X[:, 0] >= 1, "yes", "no").astype(object)
    y[0], y[-1] = "yes", "no"
    return X, y


def constant_warnings(caught):
    return [str(w.message) for w in caught if "baseline is constant" in str(w.message)]


def fit_recording(estimator, X, y, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auditor = MultiplicityAuditor(estimator, time_limit=20, **params).fit(X, y)
    return auditor, constant_warnings(caught)


def frozen_logistic(X, y, coef_factor, intercept):
    """A fitted logistic regression with its weights scaled by ``coef_factor``
    and the given intercept, frozen."""
    model = LogisticRegression().fit(X, y)
    model.coef_ = model.coef_ * coef_factor
    model.intercept_ = np.array([intercept])
    return FrozenEstimator(model)


@pytest.mark.parametrize(
    "make_estimator, label",
    [
        # Regularised to nothing: the intercept (15 "yes" against 5) decides.
        (lambda X, y: LogisticRegression(C=1e-6), "yes"),
        # All weights zero.
        (lambda X, y: frozen_logistic(X, y, 0.0, -1.0), "no"),
        # Real weights, swamped by a huge intercept.
        (lambda X, y: frozen_logistic(X, y, 1.0, 1e6), "yes"),
    ],
    ids=["regularised", "zero-weights", "huge-intercept"],
)
def test_constant_baseline_is_announced_with_the_minimum_error(make_estimator, label):
    X, y = one_feature_data()
    auditor, messages = fit_recording(make_estimator(X, y), X, y)
    assert set(auditor.predict(X)) == {label}
    assert auditor.baseline_constant_class_ == label
    errors = float(np.sum(y != label))
    assert auditor.baseline_errors_ == errors
    assert auditor.min_error_bounds_ == (2.0, 2.0)
    assert len(messages) == 1
    assert f"predicts {label!r} for every training row" in messages[0]
    assert f"({errors:g} training errors" in messages[0]
    assert f"minimum error of the class is 2: {errors - 2:g} fewer" in messages[0]


def test_constant_baseline_of_least_error_is_announced_as_such():
    # "no" is the majority of both patterns: no model beats the constant one.
    X = np.repeat([[0.0], [1.0]], [4, 5], axis=0)
    y = np.array([0, 0, 0, 1, 0, 0, 0, 1, 1])
    auditor, messages = fit_recording(None, X, y)
    assert auditor.baseline_constant_class_ == 0
    assert auditor.baseline_errors_ == auditor.min_error_bounds_[0] == 3
    assert len(messages) == 1 and "predicts 0 for every" in messages[0]
    assert "No model of the class makes fewer errors" in messages[0]


@pytest.mark.parametrize("estimator", [None, LogisticRegression(C=1e3)])
def test_baselines_that_tell_people_apart_are_not_announced(estimator):
    X, y = one_feature_data()
    auditor, messages = fit_recording(estimator, X, y)
    assert len(set(auditor.predict(X))) == 2
    assert auditor.baseline_constant_class_ is None
    assert messages == []
