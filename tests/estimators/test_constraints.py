"""Constrained competitors: signs, sparsity and group rate gaps.

Ground truth enumerates the linear dichotomies of tiny data that a model
meeting the constraints realises (``brute_force.dichotomies`` with signs or
a largest support; group rates filtered from the dichotomies).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from brute_force import Truth, baseline_truth, random_tiny, separable
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier
from sklearn_multiplicity._mip._constraints import ConstraintRows
from sklearn_multiplicity.constraints import GroupRateGap, MaxNonzero, Signs

EPSILONS = [0.0, 0.1, 0.3]


def seeds(n, fast):
    """``range(n)``, only the first ``fast`` in the default run (the others
    are marked slow)."""
    return [
        i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)
    ]


def tiny(seed, d=2):
    """Tiny data whose columns all enter the canonical representation."""
    X, y = random_tiny(seed, n=9, d=d, levels=3)
    assert all(np.unique(X[:, j]).size > 1 for j in range(d))
    return X, y


def check_audit(auditor, truth, z0, err0, label):
    """Compare both measures and the flags with ``truth`` at every tolerance."""
    for eps in EPSILONS:
        mask = truth.level_mask(err0, eps)
        S = truth.D[mask]
        flips = S != z0
        weight = truth.pos + truth.neg
        disc = float((flips @ weight).max() / truth.total)
        flippable = flips.any(axis=0)
        amb = float(weight[flippable].sum() / truth.total)
        assert auditor.discrepancy_bounds(eps) == pytest.approx((disc,) * 2), label
        assert auditor.ambiguity_bounds(eps) == pytest.approx((amb,) * 2), label
        np.testing.assert_array_equal(
            auditor.conflicts(eps), flippable[truth.inverse], err_msg=label
        )


SIGNS = [{0: 1}, {1: -1}, {0: -1, 1: 1}, {0: 0}]


@pytest.mark.parametrize("seed", seeds(6, 2))
def test_signs_match_enumeration(seed):
    X, y = tiny(seed)
    signs = SIGNS[seed % len(SIGNS)]
    auditor = MultiplicityAuditor(constraints=[Signs(signs)], time_limit=20)
    auditor.fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y, signs=signs)
    # The baseline is 0-1 optimal under the constraint, and one of its models.
    assert auditor.baseline_errors_ == truth.min_error
    assert (truth.D == z0).all(axis=1).any()
    check_audit(auditor, truth, z0, err0, f"signs {signs}")
    coef = auditor.estimator_.coef_.ravel()
    for j, sign in signs.items():
        assert coef[j] * sign >= -1e-12 if sign else coef[j] == 0


@pytest.mark.parametrize("seed", seeds(6, 2))
def test_max_nonzero_matches_enumeration(seed):
    X, y = tiny(seed + 10, d=3)
    k = 1 + seed % 2
    auditor = MultiplicityAuditor(constraints=[MaxNonzero(k)], time_limit=20)
    auditor.fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y, max_nonzero=k)
    assert auditor.baseline_errors_ == truth.min_error
    assert np.sum(auditor.estimator_.coef_ != 0) <= k
    check_audit(auditor, truth, z0, err0, f"k = {k}")


@pytest.mark.parametrize("seed", seeds(6, 3))
def test_group_rate_gap_matches_enumeration(seed):
    X, y = tiny(seed + 20)
    groups = np.array(list("ab") * 5)[: len(y)]
    rate = ["selection", "fpr", "fnr"][seed % 3]
    if rate != "selection" and any(
        not np.any((groups == g) & (y == (rate == "fnr"))) for g in "ab"
    ):
        pytest.skip("a group without rows of the rate's class")
    gap = [0.0, 0.25][seed % 2]
    constraint = GroupRateGap(rate=rate, max_gap=gap)
    auditor = MultiplicityAuditor(constraints=[constraint], time_limit=20)
    auditor.fit(X, y, groups=groups)
    truth, z0, err0 = baseline_truth(auditor, X, y, groups=groups)
    rates = truth.rates(rate)
    truth.keep(rates.max(axis=1) - rates.min(axis=1) <= gap + 1e-9)
    assert auditor.baseline_errors_ == truth.min_error
    assert (truth.D == z0).all(axis=1).any()
    check_audit(auditor, truth, z0, err0, f"{rate} gap {gap}")


def test_constraints_combine_with_per_class_tolerances():
    X, y = tiny(3)
    groups = np.array(list("ab") * 5)[: len(y)]
    constraints = [Signs({0: 1}), GroupRateGap(groups, max_gap=0.5)]
    auditor = MultiplicityAuditor(constraints=constraints, time_limit=20).fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y, signs={0: 1}, groups=groups)
    rates = truth.rates("selection")
    truth.keep(rates.max(axis=1) - rates.min(axis=1) <= 0.5 + 1e-9)
    for pair in [(0.0, 0.0), (0.2, 0.4), (0.5, 0.5)]:
        disc, amb, _ = truth.class_measures(z0, *pair)
        eps = {0: pair[0], 1: pair[1]}
        assert auditor.discrepancy(eps) == pytest.approx(disc)
        assert auditor.ambiguity(eps) == pytest.approx(amb)
    assert auditor.constraints_ == [
        "signs: 0 >= 0",
        "selection rate of groups a, b within 0.5 of each other",
    ]


def test_classifier_under_constraints_matches_enumeration():
    X, y = tiny(4, d=3)
    for constraints, restriction in [
        ([MaxNonzero(1)], {"max_nonzero": 1}),
        ([Signs({0: -1, 2: 1})], {"signs": {0: -1, 2: 1}}),
        ([MaxNonzero(0)], {"max_nonzero": 0}),
    ]:
        clf = ZeroOneLinearClassifier(constraints=constraints, time_limit=20)
        clf.fit(X, y)
        assert clf.status_ == "optimal"
        assert clf.n_errors_ == Truth(X, y, **restriction).min_error
        assert len(clf.constraints_) == 1
    assert clone(clf).constraints == [MaxNonzero(0)]


def test_named_features_and_integer_weights():
    X, y = tiny(5)
    frame = pd.DataFrame(X, columns=["age", "priors"])
    clf = ZeroOneLinearClassifier(constraints=[Signs({"priors": 1})]).fit(frame, y)
    assert clf.coef_[0, 1] >= 0
    assert clf.n_errors_ == Truth(X, y, signs={1: 1}).min_error
    groups = np.array(list("ab") * 5)[: len(y)]
    # Integer weights get whole rows (CP-SAT solves integer problems only).
    auditor = MultiplicityAuditor(
        solver="cpsat",
        constraints=[GroupRateGap(groups, max_gap=0.25)],
        time_limit=20,
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y, groups=groups)
    rates = truth.rates("selection")
    truth.keep(rates.max(axis=1) - rates.min(axis=1) <= 0.25 + 1e-9)
    assert auditor.baseline_errors_ == truth.min_error
    check_audit(auditor, truth, z0, err0, "integer weights")


def test_a_baseline_breaking_the_constraints_is_refused():
    X, y = tiny(6)
    logistic = LogisticRegression().fit(X, y)
    sign = -int(np.sign(logistic.coef_[0, 0]))
    auditor = MultiplicityAuditor(
        FrozenEstimator(logistic), constraints=[Signs({0: sign})]
    )
    with pytest.raises(ValueError, match="baseline does not meet the constraints"):
        auditor.fit(X, y)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: MaxNonzero(-1), "non-negative integer"),
        (lambda: MaxNonzero(1.5), "non-negative integer"),
        (lambda: Signs({0: 2}), r"must be \+1, -1 or 0"),
        (lambda: Signs({}), "non-empty dict"),
        (lambda: GroupRateGap(rate="tpr"), "rate must be"),
        (lambda: GroupRateGap(max_gap=-0.1), r"max_gap must be a number in \[0, 1\]"),
    ],
)
def test_bad_constraint_parameters(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_constraints_that_cannot_bind():
    X, y = tiny(7)
    cases = [
        ([Signs({5: 1})], {}, r"Feature index 5 is not in \[0, 2\)"),
        ([Signs({"age": 1})], {}, "Unknown feature 'age'"),
        ([GroupRateGap()], {}, "GroupRateGap needs groups"),
        ([GroupRateGap(np.zeros(len(y)))], {}, "at least two groups"),
        ([GroupRateGap(np.arange(3))], {}, r"groups have shape \(3,\)"),
    ]
    for constraints, fit_params, message in cases:
        with pytest.raises(ValueError, match=message):
            ZeroOneLinearClassifier(constraints=constraints).fit(X, y, **fit_params)
    groups = np.where(y == 1, "pos", "neg")
    groups[0] = "mixed"  # one row of a group of its own
    with pytest.raises(ValueError, match="has no negative rows"):
        ZeroOneLinearClassifier(constraints=[GroupRateGap(groups, rate="fpr")]).fit(
            X, y
        )
    constant = np.column_stack([X, np.ones(len(y))])
    with pytest.raises(ValueError, match="affine combination of other"):
        ZeroOneLinearClassifier(constraints=[Signs({2: 1})]).fit(constant, y)


class Unmeetable(ConstraintRows):
    """A constraint no model meets (the row ``0 = 1``)."""

    def rows(self, layout, aux_offset):
        return sp.csr_matrix((1, layout.n_vars)), np.ones(1), np.ones(1)

    def satisfied(self, enc, model, tolerance):
        return False

    def describe(self):
        return "unmeetable"


class NoModel:
    """A new constraint is one class with ``bind``."""

    def bind(self, context):
        return Unmeetable()


def test_no_model_meets_the_constraints_is_a_clear_error():
    X, y = tiny(8)
    with pytest.raises(ValueError, match="No model of the hypothesis class meets"):
        ZeroOneLinearClassifier(constraints=[NoModel()]).fit(X, y)
    with pytest.raises(ValueError, match="No model of the hypothesis class meets"):
        MultiplicityAuditor(constraints=[NoModel()]).fit(X, y)


def test_new_people_under_constraints_match_enumeration():
    X, y = tiny(2)
    signs = {0: 1}
    auditor = MultiplicityAuditor(constraints=[Signs(signs)], time_limit=20)
    auditor.fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y, signs=signs)
    grid = np.array([[a, b] for a in range(4) for b in range(4)], dtype=float)
    for eps in [0.0, 0.3]:
        sets = auditor.predict_set(grid, eps)
        baseline = auditor.predict(grid) == 1
        S = truth.level_set(err0, eps)
        points = np.vstack([truth.points, np.zeros(2)])
        for i, point in enumerate(grid):
            points[-1] = point
            expected = any(
                separable(points, np.append(z, ~baseline[i]), signs) for z in S
            )
            assert sets[i].all() == expected, (eps, point)


def test_a_constrained_estimator_audited_without_its_constraints_warns():
    X, y = tiny(4, d=3)
    sparse = ZeroOneLinearClassifier(constraints=[MaxNonzero(1)], time_limit=20)
    with pytest.warns(UserWarning, match="competitors need not meet them"):
        MultiplicityAuditor(estimator=sparse, time_limit=20).fit(X, y)
    frozen = FrozenEstimator(clone(sparse).fit(X, y))
    with pytest.warns(UserWarning, match="competitors need not meet them"):
        MultiplicityAuditor(estimator=frozen, time_limit=20).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        auditor = MultiplicityAuditor(
            estimator=sparse, constraints=[MaxNonzero(1)], time_limit=20
        ).fit(X, y)
    assert auditor.constraints_ == ["at most 1 non-zero weight"]


def test_max_nonzero_path_matches_enumeration():
    """Paths of a sparse class run support by support: every tolerance's
    ambiguity and discrepancy is exact."""
    X, y = tiny(12, d=3)
    auditor = MultiplicityAuditor(constraints=[MaxNonzero(1)], time_limit=20)
    auditor.fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y, max_nonzero=1)
    path = auditor.path(0.4)
    assert path["certified"].all()
    weight = truth.pos + truth.neg
    for row in path.itertuples():
        S = truth.D[truth.errors <= row.budget + 1e-9]
        flips = S != z0
        assert row.discrepancy == pytest.approx((flips @ weight).max() / truth.total)
        assert row.ambiguity == pytest.approx(
            weight[flips.any(axis=0)].sum() / truth.total
        )
    logged = [entry["mip"] for entry in auditor.mip_log_]
    assert any(name.startswith("supports[") and "path" in name for name in logged)
