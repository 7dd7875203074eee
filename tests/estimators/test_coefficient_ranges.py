"""Coefficient ranges over a level set, against enumeration.

For every dichotomy of the level set, an LP gives the least and largest
weight of a model of the continuous class predicting it
(``brute_force.weight_range``); the range is their minimum and maximum.
"""

import itertools
import math

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny, weight_range
from test_per_class import StoppedBackend

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._engine.binary._weight_probes import PROBE_RESOLUTION
from sklearn_multiplicity.backends import Backend, get_backend
from sklearn_multiplicity.constraints import MaxNonzero, Signs


def seeds(n, fast):
    """``range(n)``, only the first ``fast`` in the default run (the others
    are marked slow)."""
    return [
        i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)
    ]


def enumerated_ranges(truth, S, signs=None, skip_unrealised=False):
    """Per feature, the least and largest weight over the dichotomies ``S``
    (``nan`` where, with ``skip_unrealised``, ``signs`` realise none)."""
    d = truth.points.shape[1]
    out = []
    for j in range(d):
        ends = []
        for maximize in (False, True):
            values = [
                weight_range(truth.points, z, j, maximize, signs=signs) for z in S
            ]
            values = [v for v in values if v is not None]
            if not values and skip_unrealised:
                ends.append(np.nan)
                continue
            ends.append(max(values) if maximize else min(values))
        out.append(ends)
    return np.array(out)


def expected_sign(low, high):
    if low >= -1e-9:
        return "non-negative"
    if high <= 1e-9:
        return "non-positive"
    return "either"


@pytest.mark.parametrize("seed", seeds(4, 2))
def test_ranges_match_enumeration(seed):
    X, y = random_tiny(seed + 30, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for eps in [0.0, 0.2]:
        expected = enumerated_ranges(truth, truth.level_set(err0, eps))
        ranges = auditor.coefficient_ranges(eps)
        assert ranges["certified"].all()
        np.testing.assert_allclose(ranges[["min", "max"]], expected, atol=1e-6)
        np.testing.assert_allclose(ranges["min_lower"], expected[:, 0], atol=1e-6)
        np.testing.assert_allclose(ranges["max_upper"], expected[:, 1], atol=1e-6)
        assert list(ranges["sign"]) == [expected_sign(*e) for e in expected]
        scale = X.max(axis=0) - X.min(axis=0)
        for j, row in enumerate(ranges.itertuples()):
            for model, end in [(row.min_model, row.min), (row.max_model, row.max)]:
                # The attaining models are of the level set, and attain the end
                # (in the documented normalisation: features scaled to [0, 1]).
                assert model.coef_[0, j] * scale[j] == pytest.approx(end, abs=1e-9)
                assert model.n_errors_ <= auditor.error_budget(eps) + 1e-9
                z = model.predict(truth.points) == 1
                assert (truth.level_set(err0, eps) == z).all(axis=1).any()


def test_ranges_per_class_and_under_signs():
    X, y = random_tiny(33, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(constraints=[Signs({0: 1})], time_limit=20)
    auditor.fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y, signs={0: 1})
    S = truth.class_level_set(z0, 0.2, 0.4)
    expected = enumerated_ranges(truth, S, signs={0: 1})
    ranges = auditor.coefficient_ranges({0: 0.2, 1: 0.4})
    np.testing.assert_allclose(ranges[["min", "max"]], expected, atol=1e-6)
    assert ranges["sign"][0] == "non-negative"


def test_stopped_mips_leave_honest_ranges():
    X, y = random_tiny(33, n=9, d=2, levels=3)
    reference = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(reference, X, y)
    expected = enumerated_ranges(truth, truth.level_set(err0, 0.2))
    for stopped in ["min_weight", "max_weight"]:
        # Flip MIPs and probes stopped too: their models would attain the ends.
        auditor = MultiplicityAuditor(
            solver=StoppedBackend(only=("flip", "weight_probe", stopped)),
            time_limit=20,
            cuts=False,
        ).fit(X, y)
        ranges = auditor.coefficient_ranges(0.2)
        assert not ranges["certified"].all()
        assert np.all(ranges["min_lower"] <= expected[:, 0] + 1e-6)
        assert np.all(expected[:, 0] <= ranges["min_upper"] + 1e-6)
        assert np.all(ranges["max_lower"] <= expected[:, 1] + 1e-6)
        assert np.all(expected[:, 1] <= ranges["max_upper"] + 1e-6)
        assert not math.isnan(ranges["min"].sum())


@pytest.mark.parametrize("seed", seeds(4, 2))
def test_probes_alone_pin_every_end(seed):
    # The weights' own MIPs stopped: bisection probes settle each end within
    # their resolution, from both sides of the enumerated value, and exactly
    # where a model attains their first threshold (the box's edge, or 0 after
    # a sign test).
    X, y = random_tiny(seed + 50, n=9, d=2, levels=3)
    stopped = StoppedBackend(only=("min_weight", "max_weight"))
    auditor = MultiplicityAuditor(solver=stopped, time_limit=20).fit(X, y)
    truth, _, err0 = baseline_truth(auditor, X, y)
    for eps in (0.0, 0.2):
        expected = enumerated_ranges(truth, truth.level_set(err0, eps))
        ranges = auditor.coefficient_ranges(eps)
        for end, column in ((0, "min"), (1, "max")):
            lower, upper = ranges[f"{column}_lower"], ranges[f"{column}_upper"]
            # Within the resolution (the class's tolerance blurs the rest).
            assert np.all(lower <= expected[:, end] + PROBE_RESOLUTION)
            assert np.all(expected[:, end] <= upper + PROBE_RESOLUTION)
            assert np.all(upper - lower <= PROBE_RESOLUTION)
        scale = X.max(axis=0) - X.min(axis=0)
        for j, row in enumerate(ranges.itertuples()):
            for model, end in [(row.min_model, row.min), (row.max_model, row.max)]:
                assert model.coef_[0, j] * scale[j] == pytest.approx(end, abs=1e-9)
                assert model.n_errors_ <= auditor.error_budget(eps) + 1e-9
        probes = [e for e in auditor.mip_log_ if e["mip"].startswith("weight_probe")]
        assert probes
        at_edge = np.isclose(np.abs(expected), 1.0) | np.isclose(expected, 0.0)
        certified = np.column_stack(
            [ranges["min_upper"] - ranges["min_lower"] <= 1e-9,
             ranges["max_upper"] - ranges["max_lower"] <= 1e-9]
        )  # fmt: skip
        assert certified[at_edge].all()


class RecordingBackend(Backend):
    """HiGHS, keeping every MIP it is given."""

    name = "recording"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.mips = []

    def _solve(self, mip, *, first_solution=False):
        self.mips.append(mip)
        highs = get_backend("highs", time_limit=self.time_limit, threads=1)
        return highs._solve(mip, first_solution=first_solution)


def test_weight_mips_fix_the_labels_no_level_set_model_can_flip():
    X, y = random_tiny(33, n=9, d=2, levels=3)
    backend = RecordingBackend(time_limit=20)
    auditor = MultiplicityAuditor(solver=backend, time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    eps = 0.0
    S = truth.level_set(err0, eps)
    ranges = auditor.coefficient_ranges(eps)
    np.testing.assert_allclose(
        ranges[["min", "max"]], enumerated_ranges(truth, S), atol=1e-6
    )
    # Per engine pattern: flippable within the budget (from enumeration).
    row_flippable = (S != z0).any(axis=0)[truth.inverse]
    session = auditor.session_
    inverse = session.problem.inverse
    flippable = np.array(
        [row_flippable[inverse == u][0] for u in range(session.problem.n_patterns)]
    )
    weight_mips = [m for m in backend.mips if m.kind == "coefficient"]
    assert weight_mips and (~flippable).any()
    enc = session.enc
    z = slice(enc.z_offset, enc.z_offset + session.problem.n_patterns)
    for mip in weight_mips:
        lower, upper = mip.var_lower[z], mip.var_upper[z]
        fixed = lower == upper
        # Exactly the unflippable patterns, at the baseline's label.
        np.testing.assert_array_equal(fixed, ~flippable)
        np.testing.assert_array_equal(upper[fixed], session.state.baseline[fixed])


def test_sign_tests_prove_stable_signs_without_the_weight_mips():
    # The weights' own MIPs and the probes stopped: a stable sign can only
    # come from a sign-test MIP proving that no model of the level set has
    # the other.
    proven = 0
    for seed in (30, 32, 41, 42):
        X, y = random_tiny(seed, n=9, d=2, levels=3)
        stopped = StoppedBackend(only=("min_weight", "max_weight", "weight_probe"))
        auditor = MultiplicityAuditor(solver=stopped, time_limit=20).fit(X, y)
        truth, _, err0 = baseline_truth(auditor, X, y)
        for eps in (0.0, 0.2):
            expected = enumerated_ranges(truth, truth.level_set(err0, eps))
            ranges = auditor.coefficient_ranges(eps)
            for sign, ends in zip(ranges["sign"], expected, strict=True):
                assert sign in (expected_sign(*ends), "unknown")
                proven += sign in ("non-negative", "non-positive")
            assert np.all(ranges["min_lower"] <= expected[:, 0] + 1e-6)
            assert np.all(expected[:, 1] <= ranges["max_upper"] + 1e-6)
    assert proven >= 6


@pytest.mark.parametrize("seed", seeds(4, 2))
def test_sparse_ranges_match_enumeration(seed):
    """Under ``MaxNonzero(k)`` the ends are settled support by support: the
    enumeration takes every dichotomy of the level set on every support."""
    X, y = random_tiny(seed + 40, n=9, d=3, levels=3)
    k = 1 + seed % 2
    auditor = MultiplicityAuditor(constraints=[MaxNonzero(k)], time_limit=20)
    auditor.fit(X, y)
    if auditor.session_.problem.n_kept != 3:
        pytest.skip("a column left the canonical representation")
    truth, z0, err0 = baseline_truth(auditor, X, y, max_nonzero=k)
    for eps in [0.0, 0.2]:
        S = truth.level_set(err0, eps)
        expected = np.full((3, 2), np.nan)
        for support in itertools.combinations(range(3), k):
            zero = {i: 0 for i in range(3) if i not in support}
            ends = enumerated_ranges(truth, S, signs=zero, skip_unrealised=True)
            expected[:, 0] = np.fmin(expected[:, 0], ends[:, 0])
            expected[:, 1] = np.fmax(expected[:, 1], ends[:, 1])
        ranges = auditor.coefficient_ranges(eps)
        assert ranges["certified"].all()
        np.testing.assert_allclose(ranges[["min", "max"]], expected, atol=1e-6)
        logged = [entry["mip"] for entry in auditor.mip_log_]
        assert not any(name.startswith("sign_test") for name in logged)


def test_ranges_in_the_class_normalisation_and_in_feature_units():
    # y = 1[x >= 1] on x in {0, 1, 2}, scaled to {0, 0.5, 1}: a zero-error
    # model w x_c + b with margin m has b <= -m and 0.5 w + b >= m, so w runs
    # from 4 m to the box's 1; per unit of x, divided by max - min = 2.
    margin = 1e-3
    X = np.repeat([[0.0], [1.0], [2.0]], 3, axis=0)
    y = (X[:, 0] >= 1).astype(int)
    for factor in (1.0, 10.0):
        auditor = MultiplicityAuditor(margin=margin, time_limit=20)
        ranges = auditor.fit(factor * X, y).coefficient_ranges(0.0)
        row = ranges.iloc[0]
        assert row["certified"]
        assert (row["min"], row["max"]) == pytest.approx((4 * margin, 1.0), abs=1e-5)
        assert row["scale"] == 2.0 * factor
        assert (row["min_original"], row["max_original"]) == pytest.approx(
            (4 * margin / (2 * factor), 1.0 / (2 * factor)), abs=1e-5 / factor
        )
        # The attaining models carry exactly these coefficients on x.
        assert row["min_model"].coef_[0, 0] == pytest.approx(row["min_original"])
        assert row["max_model"].coef_[0, 0] == pytest.approx(row["max_original"])


def test_a_feature_in_other_units_keeps_its_scaled_range():
    X, y = random_tiny(31, n=9, d=2, levels=3)
    units = np.array([10.0, 1.0])  # feature 0 in a unit ten times smaller,
    shift = np.array([0.0, 5.0])  # feature 1 with another origin
    ranges = {}
    for name, data in [("as is", X), ("converted", X * units + shift)]:
        auditor = MultiplicityAuditor(time_limit=20).fit(data, y)
        ranges[name] = auditor.coefficient_ranges(0.2)
        span = data.max(axis=0) - data.min(axis=0)
        table = ranges[name]
        np.testing.assert_allclose(table["scale"], span)
        for end in ("min", "max"):
            np.testing.assert_allclose(table[f"{end}_original"], table[end] / span)
            for j, model in enumerate(table[f"{end}_model"]):
                assert model.coef_[0, j] == pytest.approx(table[f"{end}_original"][j])
    before, after = ranges["as is"], ranges["converted"]
    assert before["certified"].all() and after["certified"].all()
    np.testing.assert_allclose(after[["min", "max"]], before[["min", "max"]], atol=1e-6)
    np.testing.assert_allclose(
        after[["min_original", "max_original"]],
        before[["min_original", "max_original"]] / units[:, None],
        atol=1e-6,
    )


def test_integer_weights_are_in_feature_units_already():
    X, y = random_tiny(30, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(weights="integer", max_weight=3, time_limit=20)
    ranges = auditor.fit(X, y).coefficient_ranges(0.2)
    assert (ranges["scale"] == 1.0).all()
    np.testing.assert_array_equal(ranges["min_original"], ranges["min"])
    np.testing.assert_array_equal(ranges["max_original"], ranges["max"])
    for j, row in enumerate(ranges.itertuples()):
        assert row.min_model.coef_[0, j] == row.min_original
        assert row.max_model.coef_[0, j] == row.max_original
